"""The local Hub stand-in (a test double; see ``app.py`` for why) and a helper to run it.

``HubServer`` serves a fresh in-memory hub on 127.0.0.1 on a free port, from a background thread::

    with HubServer() as hub:
        env = hub.client_env(tmp_path)   # HF_ENDPOINT, HF_TOKEN, HF_HUB_DISABLE_XET=1, fresh caches
        subprocess.run([...], env=env)

Clients must run in a process whose environment was set *before* importing huggingface_hub/datasets
(they read HF_ENDPOINT and HF_HUB_OFFLINE at import time), hence ``client_env`` for subprocesses.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import uvicorn

from .app import HubState, create_app

__all__ = ["HubServer", "HubState", "load_line"]
OFFLINE_VARS = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")


class HubServer:
    def __init__(self, port: int = 0) -> None:
        """``port=0``: a free port (tests); a fixed port for ``make hub``."""
        self.state = HubState()
        self.app = create_app(self.state)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = port

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> HubServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="hub-stand-in", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the Hub stand-in did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> HubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def client_env(self, cache_dir: Path, token: str = "hf_standin_token") -> dict[str, str]:
        """Environment for a client subprocess: this endpoint, a token, no Xet, fresh caches, online."""
        env = {k: v for k, v in os.environ.items() if k not in OFFLINE_VARS}
        env.update(
            HF_ENDPOINT=self.endpoint,
            HF_TOKEN=token,
            HF_HUB_DISABLE_XET="1",
            HF_HUB_CACHE=str(Path(cache_dir) / "hub"),
            HF_DATASETS_CACHE=str(Path(cache_dir) / "datasets"),
            HF_HUB_DISABLE_TELEMETRY="1",
            HF_HUB_DISABLE_PROGRESS_BARS="1",
        )
        return env


def load_line(endpoint: str, repo_id: str, config: str, revision: str, python: str = "python") -> str:
    """A shell line that loads ``config`` of ``repo_id`` at ``revision`` from the stand-in at ``endpoint``."""
    code = (
        "from datasets import load_dataset; "
        f'print(load_dataset("{repo_id}", "{config}", revision="{revision}", split="test"))'
    )
    env = f"HF_ENDPOINT={endpoint} HF_HUB_DISABLE_XET=1 HF_HUB_OFFLINE=0 HF_DATASETS_OFFLINE=0"
    return f"{env} {python} -c '{code}'"
