"""Opening an LLM from a spec: the backend registry and ``open_llm``."""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from pathlib import Path

from corpusbench.errors import ConfigError
from corpusbench.llm.base import Backend
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.records import FailureBudget
from corpusbench.llm.server import DEFAULT_MODEL_DIR, DEFAULT_PORT

# Backends register lazily as "module:attr"; heavy imports (torch, httpx pools) happen on use.
BACKENDS: dict[str, str] = {
    "openai": "corpusbench.llm.openai_backend:OpenAIBackend",
    "vllm": "corpusbench.llm.vllm_backend:VLLMBackend",
    "transformers": "corpusbench.llm.transformers_backend:TransformersBackend",
    "scripted": "corpusbench.llm.scripted:ScriptedBackend",
    "ray": "corpusbench.llm.ray_backend:RayBackend",  # batches over a pool of endpoints (Ray actors)
}
# One set of user-facing backend names for every command that talks to an LLM (``llm``, a family's):
BACKEND_NAMES: dict[str, str] = {  # user-facing name -> backend
    "vllm-server": "openai",  # vLLM's OpenAI-compatible server (--llm-base-url; a command may start one)
    "vllm-engine": "vllm",  # vLLM in a worker process, no server
    "transformers": "transformers",
    "openai": "openai",  # any OpenAI-compatible server at --llm-base-url
    "ray": "ray",
}
DEFAULT_BACKEND = "vllm-server"
BACKEND_HELP = (
    "vllm-server (vLLM's OpenAI-compatible server; default), vllm-engine (in-process vLLM), transformers, "
    "openai (any OpenAI-compatible server at --llm-base-url), ray (batches over the endpoints in "
    "--llm-base-url)."
)
ALIASES = {k: v for k, v in BACKEND_NAMES.items() if k != v}
DEFAULT_BASE_URL = f"http://127.0.0.1:{DEFAULT_PORT}/v1"
DEFAULT_CACHE = Path(".cache") / "llm.sqlite"
DEFAULT_CONCURRENCY = 16  # requests in flight to a server (the OpenAI-compatible client)
DEFAULT_TIMEOUT = 180.0  # seconds per call: a CPU server answering 16 concurrent calls needs ~20-60 s
DEFAULT_RETRIES = 3  # a call that times out is sent once more at most (openai_backend)


def canonical_backend(name: str) -> str:
    """``name`` if it is a user-facing backend name (or ``scripted``, the tests'); else a ``ConfigError``."""
    if name in BACKEND_NAMES or name == "scripted":
        return name
    near = difflib.get_close_matches(name, list(BACKEND_NAMES), n=2)
    hint = f" Did you mean: {', '.join(near)}?" if near else ""
    raise ConfigError(f"unknown LLM backend {name!r} (known: {', '.join(BACKEND_NAMES)}).{hint}")


def backend_class(name: str) -> type[Backend]:
    key = ALIASES.get(name, name)
    if key not in BACKENDS:
        near = difflib.get_close_matches(name, [*BACKEND_NAMES, *BACKENDS], n=2)
        hint = f" Did you mean: {', '.join(near)}?" if near else ""
        raise ConfigError(f"unknown LLM backend {name!r} (known: {', '.join(BACKEND_NAMES)}).{hint}")
    module, attr = BACKENDS[key].split(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMSpec:
    """Which LLM to use and how. ``model``: for ``openai``/``ray`` the served name (``None``: the
    server's first model); for ``vllm``/``transformers`` a model folder or hub id (``None``: SmolLM2).
    ``ray``: ``base_url`` is a comma-separated list of endpoints; ``ray_address`` (or RAY_ADDRESS)
    names the cluster (``None``: a local Ray instance). ``api_key``: ``None`` reads OPENAI_API_KEY.
    ``timeout``/``max_retries``: per call to a server (a timed-out call is sent once more at most).
    ``restart_hint``: what the error says to do when the server goes away mid-run (``None``: start
    one with ``make llm-server``)."""

    backend: str = "openai"
    model: str | None = None
    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = None
    cache: str | Path | None = DEFAULT_CACHE
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    max_model_len: int | None = 2048
    dtype: str | None = None  # None: picked from the hardware (llm/hardware.py: fp32 on AVX2-only CPUs)
    vllm_python: str | None = None
    batch_size: int = 8  # transformers
    chunk_size: int = 256  # vllm: prompts per batched engine call; ray: per batch (at most 64)
    ray_address: str | None = None
    restart_hint: str | None = None
    trust_remote_code: bool = False  # transformers: run a model folder's own code (auto_map)

    def as_dict(self) -> dict[str, object]:
        d = {f: getattr(self, f) for f in self.__slots__ if f != "restart_hint"}  # type: ignore[attr-defined]
        d["api_key"] = "***" if self.api_key else None
        d["cache"] = str(self.cache) if self.cache else None
        return d


def open_backend(spec: LLMSpec) -> Backend:
    cls = backend_class(spec.backend)
    name = cls.name
    local_model = spec.model or str(DEFAULT_MODEL_DIR)
    if name == "openai":
        return cls(
            spec.base_url,
            spec.model,
            api_key=spec.api_key,
            concurrency=spec.concurrency,  # type: ignore[call-arg]
            timeout=spec.timeout,
            max_retries=spec.max_retries,
            **({"restart_hint": spec.restart_hint} if spec.restart_hint else {}),
        )
    if name == "ray":
        return cls(
            spec.base_url,
            spec.model,
            address=spec.ray_address,  # type: ignore[call-arg]
            batch_size=min(spec.chunk_size, 64),
            api_key=spec.api_key,
            concurrency=spec.concurrency,
            timeout=spec.timeout,
            max_retries=spec.max_retries,
        )
    if name == "vllm":
        return cls(
            local_model,
            python=spec.vllm_python,
            dtype=spec.dtype,  # type: ignore[call-arg]
            max_model_len=spec.max_model_len,
            chunk_size=spec.chunk_size,
        )
    if name == "transformers":
        return cls(
            local_model,
            dtype=spec.dtype or "auto",
            batch_size=spec.batch_size,  # type: ignore[call-arg]
            max_model_len=spec.max_model_len,
            trust_remote_code=spec.trust_remote_code,
        )
    return cls()


def open_llm(spec: LLMSpec, budget: FailureBudget | None = None) -> CachedLLM:
    """The backend wrapped in the persistent cache (``spec.cache=None``: no cache); with ``budget``,
    more failed calls than it allows stop the run (``cache.TooManyFailures``)."""
    return CachedLLM(open_backend(spec), spec.cache, budget)


def read_requests(
    path: str | Path,
    op: str,
    *,
    options: tuple[str, ...] = ("A", "B"),
    defaults: dict[str, object] | None = None,
) -> list:
    """Requests from a ``.jsonl`` file (``{"id", "prompt", ...}`` per line) or a text file (one per line)."""
    from corpusbench.errors import InputError
    from corpusbench.io import read_jsonl
    from corpusbench.llm.records import ChoiceRequest, GenRequest

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such prompts file")
    defaults = dict(defaults or {})
    rows: list[dict[str, object]]
    if path.suffix == ".jsonl":
        rows = list(read_jsonl(path))
    else:
        rows = [{"prompt": line.rstrip("\n")} for line in path.read_text(encoding="utf-8").splitlines()]
    reqs = []
    for n, row in enumerate(rows, 1):
        prompt = row.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise InputError(f"{path}:{n}: missing or empty 'prompt'")
        rid = str(row.get("id", f"{path.name}:{n}"))
        if op == "choose":
            opts = tuple(row.get("options", options))  # type: ignore[arg-type]
            reqs.append(ChoiceRequest(id=rid, prompt=prompt, options=opts, **defaults))  # type: ignore[arg-type]
        else:
            reqs.append(GenRequest(id=rid, prompt=prompt, **defaults))  # type: ignore[arg-type]
    return reqs
