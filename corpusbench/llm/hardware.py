"""Pick the compute dtype from the hardware, and say what reproducibility it gives.

On a CPU the default is float32, on every kind of CPU: seeded sampling in float32 is batch-invariant
(a sample is the same alone, in any batch and after a resume), which the LLM cache and a resumed run
rely on. bf16 is not: on an AMX Xeon the same seeded sample differed alone and in a batch, and a
resumed generation run gave judge margins up to 0.24 nats off (0.002 between two uninterrupted runs).
bf16 stays an opt-in for speed (``CORPUSBENCH_DTYPE=bfloat16`` or ``--dtype``) where it is fast (AMX,
AVX512-BF16, GPUs); on an AVX2-only CPU (AMD EPYC) it is ~5x slower than fp32 per decision (SmolLM2
0.84 s vs 0.18 s, Qwen2.5-1.5B 8.5 s vs 1.65 s) and stalled vLLM's CPU worker. GPUs default to bf16.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

BF16_CPU_FLAGS = ("amx_bf16", "avx512_bf16")


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The CPU feature flags of /proc/cpuinfo (empty where it does not exist)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def gpu_available() -> bool:
    try:
        import torch
    except ImportError:  # the vLLM venv's parent process may lack torch
        return False
    return bool(torch.cuda.is_available())


def vllm_cpu_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a vLLM CPU process: every core of this process bound to its OpenMP threads.

    vLLM's CPU worker by default reserves one core for the front end and binds its threads to the
    rest: on a 2-core machine that serves on 1 core. Measured on 2 cores (Qwen2.5-Coder-1.5B fp32, 48
    pointwise judge prompts through the server): 0.45 decisions/s with vLLM's default, 0.82 with
    both cores bound (1.8x). Values already set by the caller win. KV cache: 2 GiB (CPU only).
    """
    env = dict(os.environ if base is None else base)
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if cores and not gpu_available():
        env.setdefault("VLLM_CPU_OMP_THREADS_BIND", ",".join(map(str, cores)))
        env.setdefault("VLLM_CPU_NUM_OF_RESERVED_CPU", "0")
    env.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
    return env


def vllm_block_size() -> int | None:
    """KV block size for vLLM on CPU (None on a GPU: vLLM's default).

    vLLM's CPU default is 128 tokens, and only whole blocks are prefix-cached: a family's judge
    prompts (~60 tokens, most of them the shared instruction) never filled one, so the prefix cache
    hit 0%. ``CORPUSBENCH_VLLM_BLOCK_SIZE`` overrides.
    """
    if os.environ.get("CORPUSBENCH_VLLM_BLOCK_SIZE"):
        return int(os.environ["CORPUSBENCH_VLLM_BLOCK_SIZE"]) or None
    return None if gpu_available() else 32


def default_dtype(device: str | None = None) -> str:
    """``bfloat16`` on a GPU, ``float32`` on any CPU (reproducibility first); ``CORPUSBENCH_DTYPE`` wins."""
    if os.environ.get("CORPUSBENCH_DTYPE"):
        return os.environ["CORPUSBENCH_DTYPE"]
    if device == "cuda" or (device is None and gpu_available()):
        return "bfloat16"
    return "float32"


def reproducibility(dtype: str) -> str:
    """What a seeded LLM run promises at ``dtype`` (recorded in provenance beside the dtype).

    ``batch-invariant``: the same seed gives the same text alone, in any batch and after a resume.
    ``same-batches``: only a run that batches its requests the same way repeats itself; a resume or
    another concurrency may change samples and judge margins (the half-precision kernels round
    differently for different batch shapes).
    """
    return "batch-invariant" if dtype in ("float32", "fp32") else "same-batches"


def numerics(dtype: str) -> dict[str, object]:
    """The provenance of a run's LLM arithmetic: dtype, its promise, and whether this CPU has native bf16."""
    return {
        "dtype": dtype,
        "reproducibility": reproducibility(dtype),
        "cpu_bf16_native": any(f in cpu_flags() for f in BF16_CPU_FLAGS),
    }
