"""A run that starts its own vLLM server records the server's dtype and reproducibility promise."""

from __future__ import annotations

import contextlib

import pytest
from fake_openai_server import FakeOpenAI

import corpusbench.llm.server as server_mod
from corpusbench.families.ltswap.session import open_run_llm
from corpusbench.llm.hardware import numerics


class _NoServer(contextlib.AbstractContextManager):
    """Stands for ``VLLMServer``: nothing is started; FakeOpenAI answers on the port the run picks."""

    def __init__(self, spec, log):
        self.spec = spec

    def __exit__(self, *exc):
        return None


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_own_server_records_dtype_and_promise(monkeypatch, tmp_path, dtype):
    monkeypatch.setattr(server_mod, "VLLMServer", _NoServer)
    monkeypatch.setattr(server_mod, "default_dtype", lambda: dtype)
    (tmp_path / "m").mkdir()  # a model folder: served under its name
    with FakeOpenAI(model="m") as fake:
        monkeypatch.setattr(server_mod, "free_port", lambda: int(fake.url.rsplit(":", 1)[1].split("/")[0]))
        with open_run_llm(
            backend="vllm-server", model=str(tmp_path / "m"), base_url=None, cache=tmp_path / "c.sqlite",
            log_dir=tmp_path,
        ) as llm:  # fmt: skip
            d = llm.describe()
            assert llm.report.calls == 0  # everything else is the CachedLLM's
    assert d["server"] == {"started_by_run": True, **numerics(dtype)}
    assert d["server"]["reproducibility"] == ("batch-invariant" if dtype == "float32" else "same-batches")


def test_given_server_records_no_numerics(tmp_path):
    with FakeOpenAI(model="m") as fake, open_run_llm(
        backend="vllm-server", model="m", base_url=fake.url, cache=tmp_path / "c.sqlite", log_dir=tmp_path,
    ) as llm:  # fmt: skip
        assert "server" not in llm.describe()  # a server the user runs: its dtype is not known here
