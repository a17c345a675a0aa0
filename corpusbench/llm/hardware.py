"""Pick the compute dtype from the hardware: bf16 only where it is fast.

Measured on an AVX2-only CPU (AMD EPYC): bf16 is ~5x slower than fp32 per decision (SmolLM2 0.84 s
vs 0.18 s, Qwen2.5-1.5B 8.5 s vs 1.65 s) and stalled vLLM's CPU worker; CPUs with AMX or
AVX512-BF16 and GPUs run bf16 natively. ``CORPUSBENCH_DTYPE`` overrides the choice.
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


def default_dtype(device: str | None = None) -> str:
    """``bfloat16`` on a GPU or a CPU with AMX/AVX512-BF16, else ``float32``."""
    if os.environ.get("CORPUSBENCH_DTYPE"):
        return os.environ["CORPUSBENCH_DTYPE"]
    if device == "cuda" or (device is None and gpu_available()):
        return "bfloat16"
    return "bfloat16" if any(f in cpu_flags() for f in BF16_CPU_FLAGS) else "float32"
