"""Fixtures: the default model, one real vLLM CPU server per test session, a loaded transformers model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpusbench.llm.server import DEFAULT_MODEL_DIR, ServerSpec, VLLMServer, free_port, vllm_python

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def model_dir() -> Path:
    assert (DEFAULT_MODEL_DIR / "config.json").exists(), f"{DEFAULT_MODEL_DIR} is missing: run `make model`"
    return DEFAULT_MODEL_DIR


@pytest.fixture(scope="session")
def vllm_py() -> Path:
    return vllm_python()  # ConfigError naming `make vllm-venv` if the venv is missing


class ServerHandle:
    """The session's server; ``kill()``/``restart()`` let a fault test take it down and bring it back."""

    def __init__(self, spec: ServerSpec, log: Path):
        self.spec = spec
        self.log = log
        self.server = VLLMServer(spec, log)

    @property
    def url(self) -> str:
        return self.spec.base_url

    @property
    def model(self) -> str:
        return self.spec.name

    def start(self) -> None:
        self.server.start(timeout=600)

    def kill(self) -> None:
        self.server.kill()

    def restart(self) -> None:
        self.server.stop()
        self.server = VLLMServer(self.spec, self.log)
        self.start()

    def stop(self) -> None:
        self.server.stop()


_EARLY: dict[str, ServerHandle] = {}  # the session server, started early
_WANTED: list[bool] = []  # whether a selected test needs the server


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    _WANTED[:] = [any("vllm_server" in getattr(item, "fixturenames", ()) for item in items)]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Start the server with the first test of this folder if a selected test needs it: it warms up
    (30-90 s on 2 cores) while the unit and transformers tests run."""
    if not _WANTED or not _WANTED[0] or "server" in _EARLY:
        return
    if not (DEFAULT_MODEL_DIR / "config.json").exists():
        return  # the model_dir fixture reports it
    try:
        py = vllm_python()
    except Exception:
        return  # the vllm_py fixture reports it
    spec = ServerSpec(model=str(DEFAULT_MODEL_DIR), port=free_port(), max_model_len=2048, python=str(py))
    cache = getattr(item.config, "cache", None)  # None under -p no:cacheprovider
    log = Path(cache.mkdir("corpusbench-llm")) / "vllm-server.log" if cache else Path("vllm-server.log")
    log.unlink(missing_ok=True)
    handle = ServerHandle(spec, log)
    handle.server.start(wait=False)
    _EARLY["server"] = handle


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    handle = _EARLY.pop("server", None)
    if handle is not None:
        handle.stop()


@pytest.fixture(scope="session")
def vllm_server(model_dir: Path, vllm_py: Path, tmp_path_factory: pytest.TempPathFactory):
    """vLLM's OpenAI-compatible server on a free loopback port, with the default model (CPU, eager)."""
    handle = _EARLY.get("server")
    if handle is None:
        spec = ServerSpec(model=str(model_dir), port=free_port(), max_model_len=2048, python=str(vllm_py))
        handle = ServerHandle(spec, tmp_path_factory.mktemp("vllm-server") / "server.log")
        handle.server.start(wait=False)
        _EARLY["server"] = handle
    handle.server.wait_healthy(timeout=600)
    return handle


@pytest.fixture(scope="module")
def ruth_stats(default_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Corpus stats of the book of Ruth (from the default corpus), for short `ltswap build` runs."""
    import shutil

    from corpusbench.corpus.readers import CorpusSpec
    from corpusbench.corpus.stats import StatsParams, compute_stats

    corpus = tmp_path_factory.mktemp("ruth")
    shutil.copy(default_corpus / "kjv" / "08-ruth.txt", corpus / "ruth.txt")
    out = tmp_path_factory.mktemp("ruth-stats") / "stats"
    compute_stats(CorpusSpec(path=str(corpus)), out, StatsParams())
    return out
