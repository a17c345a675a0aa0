"""Inputs of a run shared by the CLI and the release adapter: corpus stats and an open, cached LLM.

``corpus_stats`` loads a given stats folder or reuses/computes one under the output folder;
``open_run_llm`` opens the LLM behind the persistent answer cache and, for ``vllm-server`` without
a URL, serves the model on a free loopback port for the duration of the ``with`` block. Without
``model``, local backends use the default LT-Swap writer/judge (``make judge-model``). Every LT-Swap
run has a failure budget (``LLMOptions.max_failures``, none by default): more failed calls stop it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import ConfigError, ParamError
from corpusbench.llm.api import DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.records import FailureBudget


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMOptions:
    """How a run talks to its LLM: seconds per call, retries, requests in flight to a server, the failure
    budget, the server's API key (None: OPENAI_API_KEY) and whether a model folder's own code may run
    (transformers)."""

    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    concurrency: int = DEFAULT_CONCURRENCY
    max_failures: FailureBudget = field(default_factory=FailureBudget)
    api_key: str | None = field(default=None, repr=False)
    trust_remote_code: bool = False

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ParamError("timeout", f"must be a positive number of seconds (got {self.timeout})")
        if self.retries < 0:
            raise ParamError("retries", f"must be 0 or more (got {self.retries})")
        if self.concurrency < 1:
            raise ParamError("concurrency", f"must be 1 or more (got {self.concurrency})")


def corpus_stats(
    corpus: str | Path,
    stats: str | Path | None,
    out: Path,
    lang: str,
    workers: int = 1,
    say: Callable[[str], None] = lambda _m: None,
) -> CorpusStats:
    """``stats`` if given; else ``OUT/stats`` when computed from this corpus, else computed there now."""
    from corpusbench.corpus.readers import CorpusSpec, corpus_fingerprint
    from corpusbench.corpus.stats import StatsParams, compute_stats

    if stats is not None:
        return CorpusStats.load(stats)
    spec = CorpusSpec(path=str(corpus))
    target = out / "stats"
    if (target / "manifest.json").exists():
        st = CorpusStats.load(target)
        if st.fingerprint == corpus_fingerprint(spec).as_dict() and st.language == lang:
            return st
    say(f"computing corpus statistics → {target}")
    compute_stats(spec, target, StatsParams(lang=lang, workers=workers))
    return CorpusStats.load(target)


class ServedLLM:
    """A ``CachedLLM`` on a vLLM server that this run started: everything is the ``CachedLLM``'s, and
    ``describe()`` adds the server's numerics (dtype, its reproducibility promise; ``hardware.numerics``)
    so that the run's manifest says what a rerun can promise."""

    def __init__(self, llm: CachedLLM, dtype: str):
        from corpusbench.llm.hardware import numerics

        self._llm = llm
        self.server = {"started_by_run": True, **numerics(dtype)}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def describe(self) -> dict[str, Any]:
        return {**self._llm.describe(), "server": dict(self.server)}


def default_judge_model() -> str:
    """The default writer/judge folder (``make judge-model``); a one-line ``ConfigError`` naming the setup
    step if absent."""
    from corpusbench.assets.judge_model import MODEL_NAME, judge_model_dir

    d = judge_model_dir()
    if d is None:
        raise ConfigError(
            f"the default LT-Swap judge ({MODEL_NAME}) is not installed: run `make judge-model` "
            "(or pass --model)"
        )
    return str(d)


@contextlib.contextmanager
def open_run_llm(
    *,
    backend: str,
    model: str | None,
    base_url: str | None,
    cache: Path,
    log_dir: Path,
    batch_size: int = 8,
    say: Callable[[str], None] = lambda _m: None,
    options: LLMOptions | None = None,
) -> Iterator[CachedLLM | ServedLLM]:
    """The run's LLM; a ``vllm-server`` backend without ``base_url`` gets its own server (stopped after),
    whose dtype and reproducibility promise its ``describe()`` records (``ServedLLM``).

    More failed calls than ``options.max_failures`` allows stop the run (``TooManyFailures``)."""
    from corpusbench.llm import LLMSpec, open_llm
    from corpusbench.llm.api import DEFAULT_BASE_URL, canonical_backend

    backend = canonical_backend(backend)
    options = options or LLMOptions()
    restart_hint = None
    dtype: str | None = None  # the dtype of the server this run starts
    if model is None and backend in ("vllm-server", "vllm-engine", "transformers") and base_url is None:
        model = default_judge_model()
    with contextlib.ExitStack() as stack:
        if backend == "vllm-server" and base_url is None:
            from corpusbench.llm.server import ServerSpec, VLLMServer, free_port

            server = ServerSpec(model=str(model), port=free_port())
            log_dir.mkdir(parents=True, exist_ok=True)
            say(
                f"starting a vLLM server for {server.name} on {server.base_url} "
                f"(log {log_dir}/vllm-server.log)"
            )
            stack.enter_context(VLLMServer(server, log_dir / "vllm-server.log"))
            base_url, model, dtype = server.base_url, server.name, server.dtype
            restart_hint = (
                f"that server was started by this run: see {log_dir / 'vllm-server.log'} for why it "
                "stopped, then rerun the same command to resume (it starts a new server)"
            )
        spec = LLMSpec(
            backend=backend,
            model=model,
            base_url=base_url or DEFAULT_BASE_URL,
            cache=cache,
            batch_size=batch_size,
            timeout=options.timeout,
            max_retries=options.retries,
            concurrency=options.concurrency,
            api_key=options.api_key,
            trust_remote_code=options.trust_remote_code,
            restart_hint=restart_hint,
        )
        llm = stack.enter_context(open_llm(spec, options.max_failures))
        yield llm if dtype is None else ServedLLM(llm, dtype)
