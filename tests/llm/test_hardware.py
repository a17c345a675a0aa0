"""The vLLM CPU settings chosen from the hardware: thread binding, KV block size, dtype."""

from __future__ import annotations

import os

import pytest

from corpusbench.llm import hardware
from corpusbench.llm.server import ServerSpec


@pytest.fixture
def cpu_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hardware, "gpu_available", lambda: False)
    for var in ("VLLM_CPU_OMP_THREADS_BIND", "VLLM_CPU_NUM_OF_RESERVED_CPU", "CORPUSBENCH_VLLM_BLOCK_SIZE"):
        monkeypatch.delenv(var, raising=False)


def test_cpu_env_binds_every_core_of_this_process(cpu_only: None) -> None:
    env = hardware.vllm_cpu_env({})
    cores = sorted(os.sched_getaffinity(0))
    assert env["VLLM_CPU_OMP_THREADS_BIND"] == ",".join(map(str, cores))
    assert env["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "0"  # vLLM's default reserves a core: half of a 2-core box
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "2"


def test_cpu_env_keeps_what_the_caller_set(cpu_only: None) -> None:
    env = hardware.vllm_cpu_env({"VLLM_CPU_OMP_THREADS_BIND": "nobind", "VLLM_CPU_KVCACHE_SPACE": "8"})
    assert env["VLLM_CPU_OMP_THREADS_BIND"] == "nobind"
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "8"


def test_gpu_env_sets_no_cpu_binding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hardware, "gpu_available", lambda: True)
    monkeypatch.delenv("VLLM_CPU_OMP_THREADS_BIND", raising=False)
    assert "VLLM_CPU_OMP_THREADS_BIND" not in hardware.vllm_cpu_env({})
    assert hardware.vllm_block_size() is None


def test_server_command_uses_small_blocks_on_cpu(cpu_only: None, monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = ServerSpec(model="models/x").command()
    assert cmd[cmd.index("--block-size") + 1] == "32"
    assert "--enable-prefix-caching" in cmd
    monkeypatch.setenv("CORPUSBENCH_VLLM_BLOCK_SIZE", "0")  # 0: vLLM's own default
    assert "--block-size" not in ServerSpec(model="models/x").command()
    assert ServerSpec(model="models/x").environment()["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "0"


def test_cpu_dtype_is_float32_even_with_amx(cpu_only: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """bf16 is not batch-invariant (an AMX Xeon gave another seeded sample alone than in a batch):
    every CPU defaults to float32, bf16 only when asked for; GPUs default to bf16."""
    monkeypatch.delenv("CORPUSBENCH_DTYPE", raising=False)
    monkeypatch.setattr(hardware, "cpu_flags", lambda: frozenset({"avx512f", "amx_bf16", "avx512_bf16"}))
    assert hardware.default_dtype() == "float32"
    assert ServerSpec(model="models/x").dtype == "float32"
    assert hardware.reproducibility("float32") == "batch-invariant"
    monkeypatch.setenv("CORPUSBENCH_DTYPE", "bfloat16")
    assert hardware.default_dtype() == "bfloat16"
    assert hardware.reproducibility("bfloat16") == "same-batches"
    monkeypatch.delenv("CORPUSBENCH_DTYPE")
    assert hardware.default_dtype("cuda") == "bfloat16"
