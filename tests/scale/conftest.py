"""Fixtures: one small local Ray (2 CPUs, no dashboard) and one vLLM CPU server, both stopped at the end.

The server starts with the first test of this folder if a selected test needs it (it warms up while
the Ray stats tests run; those run first), unless tests/llm already started one in this session: at
most one server at a time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_OURS: dict[str, object] = {}


def _llm_session_server(config: pytest.Config):
    """The server tests/llm started in this session (its conftest's ``_EARLY``), if any."""
    for plugin in config.pluginmanager.get_plugins():
        early = getattr(plugin, "_EARLY", None)
        if isinstance(early, dict) and "server" in early:
            return early["server"]
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    mine = [i for i in items if Path(str(i.fspath)).parent == here]
    llm = [i for i in mine if "llm_endpoint" in getattr(i, "fixturenames", ())]
    _OURS["wanted"] = bool(llm)
    others = [i for i in mine if i not in llm]
    if llm and others:  # the LLM tests last in this folder, so the server warms up meanwhile
        rest = [i for i in items if i not in llm]
        pos = rest.index(others[-1]) + 1
        items[:] = rest[:pos] + llm + rest[pos:]


def pytest_runtest_setup(item: pytest.Item) -> None:
    if not _OURS.get("wanted") or "server" in _OURS or _llm_session_server(item.config) is not None:
        return
    from corpusbench.llm.server import DEFAULT_MODEL_DIR, ServerSpec, VLLMServer, free_port, vllm_python

    if not (DEFAULT_MODEL_DIR / "config.json").exists():
        return  # the llm_endpoint fixture reports it
    spec = ServerSpec(model=str(DEFAULT_MODEL_DIR), port=free_port(), python=str(vllm_python()))
    log = Path(item.config.cache.mkdir("corpusbench-scale")) / "vllm-server.log"
    _OURS["server"] = (spec, VLLMServer(spec, log).start(wait=False))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    started = _OURS.pop("server", None)
    if started is not None:
        started[1].stop()


@pytest.fixture(scope="session")
def ray_local():
    import ray  # the `ray` extra; `make test` installs it

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=128 * 1024**2,
        configure_logging=False,
    )
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def llm_endpoint(request) -> tuple[str, str]:
    """(base URL, served model name) of a vLLM CPU server with the default model."""
    from corpusbench.llm.server import DEFAULT_MODEL_DIR

    handle = _llm_session_server(request.config)
    if handle is not None:
        handle.server.wait_healthy(timeout=600)
        return handle.url, handle.model
    assert (DEFAULT_MODEL_DIR / "config.json").exists(), f"{DEFAULT_MODEL_DIR} is missing: run `make model`"
    assert "server" in _OURS, "the vLLM server did not start (see `make vllm-venv`)"
    spec, server = _OURS["server"]
    server.wait_healthy(timeout=600)
    return spec.base_url, spec.name
