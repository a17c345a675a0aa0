"""Backend that spreads prompt batches over a pool of OpenAI-compatible endpoints with Ray.

One Ray actor per endpoint (vLLM replicas, each ``corpusbench llm serve`` or ``vllm serve`` on some
node) holds an ``OpenAIBackend``; the driver cuts the requests into batches, keeps two batches in
flight per live endpoint and hands each finished batch to ``on_result`` at once, so ``CachedLLM``
commits it to the same SQLite cache as every other backend (same keys: a stopped job resumes without
repeating finished calls, and the local and Ray paths share answers). An endpoint that stops
answering, or whose actor dies, is dropped and its batch goes to the others; when none is left the
run stops with a ``BackendError`` after every result received so far has been delivered.

    corpusbench llm choose --llm-backend ray --llm-base-url http://node1:8011/v1,http://node2:8011/v1 ...
    corpusbench FAMILY build CORPUS --out OUT --llm-backend ray --llm-base-url URL1,URL2  # a family's

The actors take no CPU slot (the work is on the servers); ``address``/``RAY_ADDRESS`` joins a cluster.
"""

from __future__ import annotations

import collections
import logging
import os
from collections.abc import Sequence
from typing import Any, ClassVar

from corpusbench.errors import BackendError, ConfigError, CorpusbenchError
from corpusbench.llm.base import Backend, OnResult, TopTokens
from corpusbench.llm.records import ChoiceRequest, GenRequest, GenResult, ScoreRequest, ScoreResult

log = logging.getLogger(__name__)
IN_FLIGHT = 2  # batches per endpoint


class _Endpoint:
    """Ray actor body: one OpenAI-compatible endpoint."""

    def __init__(self, url: str, model: str, options: dict[str, Any]) -> None:
        from corpusbench.llm.openai_backend import OpenAIBackend

        self.backend = OpenAIBackend(url, model, **options)

    def run(self, op: str, reqs: list[Any], k: int) -> list[Any]:
        if op == "generate":
            return self.backend.generate(reqs)
        if op == "score":
            return self.backend.score(reqs)
        return self.backend.answer_top_tokens(reqs, k)


def parse_urls(base_url: str | Sequence[str]) -> list[str]:
    """``URL1,URL2`` (or a list) -> distinct endpoint URLs, in order."""
    parts = base_url.split(",") if isinstance(base_url, str) else list(base_url)
    urls = list(dict.fromkeys(u.strip().rstrip("/") for u in parts if u.strip()))
    if not urls:
        raise ConfigError(
            "the ray LLM backend needs at least one endpoint URL (--llm-base-url URL1,URL2,...)"
        )
    return urls


class RayBackend(Backend):
    name: ClassVar[str] = "ray"
    guided_regex: ClassVar[bool] = True  # each endpoint's OpenAIBackend sends it (vLLM servers)

    def __init__(
        self,
        base_urls: str | Sequence[str],
        model: str | None = None,
        *,
        address: str | None = None,
        batch_size: int = 64,
        api_key: str | None = None,
        concurrency: int = 16,
        timeout: float = 180.0,
        max_retries: int = 3,
    ) -> None:
        import ray

        from corpusbench.llm.openai_backend import OpenAIBackend, resolve_api_key

        self.urls = parse_urls(base_urls)
        self.batch_size = max(1, batch_size)
        options = {"api_key": resolve_api_key(api_key), "concurrency": concurrency, "timeout": timeout}
        options["max_retries"] = max_retries
        # Check every endpoint from the driver first: a wrong URL or model fails here, clearly.
        for url in self.urls:
            model = OpenAIBackend(url, model, **options).model  # type: ignore[arg-type]
        assert model is not None
        self.model = model
        self.owns_ray = not ray.is_initialized()
        address = address or os.environ.get("RAY_ADDRESS") or None
        if self.owns_ray:
            kw: dict[str, Any] = {"log_to_driver": False}
            if not address:
                kw.update(include_dashboard=False, object_store_memory=128 * 1024**2)
            ray.init(address=address or None, **kw)
        actor = ray.remote(num_cpus=0, max_restarts=1, max_task_retries=0)(_Endpoint)
        self.actors = [actor.remote(url, model, options) for url in self.urls]

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "endpoints": list(self.urls)}

    def generate(
        self, reqs: Sequence[GenRequest], on_result: OnResult[GenResult] | None = None
    ) -> list[GenResult]:
        return self._dispatch("generate", reqs, 0, on_result)

    def answer_top_tokens(
        self, reqs: Sequence[ChoiceRequest], k: int, on_item: OnResult[TopTokens] | None = None
    ) -> list[TopTokens]:
        return self._dispatch("top", reqs, k, on_item)

    def score(
        self, reqs: Sequence[ScoreRequest], on_result: OnResult[ScoreResult] | None = None
    ) -> list[ScoreResult]:
        return self._dispatch("score", reqs, 0, on_result)

    def _dispatch(self, op: str, reqs: Sequence[Any], k: int, on_result: OnResult[Any] | None) -> list[Any]:
        import ray
        from ray.exceptions import RayActorError, RayTaskError

        out: list[Any] = [None] * len(reqs)
        # Small jobs still spread over every endpoint: at least IN_FLIGHT batches each.
        size = max(1, min(self.batch_size, -(-len(reqs) // (IN_FLIGHT * len(self.actors)))))
        todo = collections.deque(list(range(s, min(s + size, len(reqs)))) for s in range(0, len(reqs), size))
        alive = list(range(len(self.actors)))
        busy: dict[int, int] = collections.Counter()
        pending: dict[Any, tuple[int, list[int]]] = {}
        lost: list[str] = []
        while True:
            for a in alive:
                while todo and busy[a] < IN_FLIGHT:
                    batch = todo.popleft()
                    ref = self.actors[a].run.remote(op, [reqs[i] for i in batch], k)
                    pending[ref] = (a, batch)
                    busy[a] += 1
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                a, batch = pending.pop(ref)
                busy[a] -= 1
                try:
                    results = ray.get(ref)
                except (RayTaskError, RayActorError) as e:
                    cause = getattr(e, "cause", None)
                    if isinstance(cause, CorpusbenchError) and not isinstance(cause, BackendError):
                        raise cause from None
                    if a in alive:
                        alive.remove(a)
                        lost.append(f"{self.urls[a]}: {cause or type(e).__name__}")
                        log.warning("dropping LLM endpoint %s (%s)", self.urls[a], lost[-1])
                    todo.appendleft(batch)
                    continue
                for i, res in zip(batch, results, strict=True):
                    out[i] = res
                    if on_result is not None:
                        on_result(i, res)
        if todo:
            raise BackendError(
                f"all {len(self.urls)} LLM endpoints stopped answering ({'; '.join(lost)[:400]}); "
                "results so far are saved — restart the servers, then rerun to resume"
            )
        return out

    def close(self) -> None:
        import ray

        if not ray.is_initialized():
            return
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        if self.owns_ray:
            ray.shutdown()
