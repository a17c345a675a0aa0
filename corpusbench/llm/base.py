"""The backend interface shared by every LLM backend, and the ``choose`` logic built on it.

A backend implements two primitives: ``generate`` (free generation) and ``answer_top_tokens``
(the top log-probs of the first answer token, one forward step), and may implement ``score`` (a text's
log-probability, for filters that read a language model's preference). ``choose`` is built from them
here once, so every backend reads choices the same way and records which path decided.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from corpusbench.errors import ConfigError
from corpusbench.llm.choice import bad_top, decide, option_logprobs, parse_answer
from corpusbench.llm.records import (
    ChoiceRequest,
    ChoiceResult,
    GenRequest,
    GenResult,
    SamplingParams,
    ScoreRequest,
    ScoreResult,
    Status,
    as_failure,
)

log = logging.getLogger(__name__)

R = TypeVar("R")
OnResult = Callable[[int, R], None]  # (index in the request list, result), called as results arrive


@dataclass(frozen=True, slots=True, kw_only=True)
class TopTokens:
    """The most likely tokens at the first answer position (after ``answer_prefix``)."""

    status: Status  # ok | too_long | error
    top: tuple[tuple[str, float], ...] = ()
    tokens_in: int = 0
    error: str | None = None


def chat_messages(prompt: str, system: str | None = None, answer_prefix: str = "") -> list[dict[str, str]]:
    """One user turn (plus optional system turn); an ``answer_prefix`` opens the assistant turn."""
    msgs = [{"role": "system", "content": system}] if system else []
    msgs.append({"role": "user", "content": prompt})
    if answer_prefix:
        msgs.append({"role": "assistant", "content": answer_prefix})
    return msgs


def first_text_token(ends: Sequence[int], prefix: str) -> int:
    """Which tokens of ``prefix + text`` a sentence score sums (``Backend.score``): from the first token
    after the first (which has no log-prob) whose end (character offset) lies past ``prefix`` — a token
    straddling the boundary counts as text, and so does a token of no width right after the prefix (the
    first bytes of a character another token completes: a vLLM server decodes them as "") — to the last;
    ``len(ends)`` when there is none."""
    n = len(prefix)
    return next((j for j in range(1, len(ends)) if ends[j] > n or ends[j] == ends[j - 1] == n), len(ends))


def sample_seed(params: SamplingParams, sample: int) -> int | None:
    """Per-sample seed: sample ``i`` of a prompt is reproducible on its own, whatever the batch."""
    if params.seed is None:
        return None
    return (params.seed * 1_000_003 + sample) % (2**31 - 1)


class Backend(abc.ABC):
    """An LLM behind ``generate`` and ``choose``. Results come back in request order."""

    name: ClassVar[str]
    model: str  # model identity, part of the cache key (served name, folder name or hub id)
    guided_regex: ClassVar[bool] = False  # honours ``GenRequest.regex`` (else CachedLLM refuses it)

    @abc.abstractmethod
    def generate(
        self, reqs: Sequence[GenRequest], on_result: OnResult[GenResult] | None = None
    ) -> list[GenResult]:
        """Free generation for each request."""

    @abc.abstractmethod
    def answer_top_tokens(
        self, reqs: Sequence[ChoiceRequest], k: int, on_item: OnResult[TopTokens] | None = None
    ) -> list[TopTokens]:
        """Top-``k`` tokens and log-probs of the first answer token of each request."""

    def score(
        self, reqs: Sequence[ScoreRequest], on_result: OnResult[ScoreResult] | None = None
    ) -> list[ScoreResult]:
        """Each text's log-probability after its prefix (prompt log-probs); not every backend has them."""
        raise ConfigError(
            f"the {self.name} LLM backend cannot score sentences (prompt log-probabilities); use the "
            "vllm-server, vllm or transformers backend"
        )

    def describe(self) -> dict[str, Any]:
        """Provenance: backend, model and backend settings."""
        return {"backend": self.name, "model": self.model}

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release servers, worker processes and models."""

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def choose(
        self, reqs: Sequence[ChoiceRequest], on_result: OnResult[ChoiceResult] | None = None, k: int = 20
    ) -> list[ChoiceResult]:
        """Answer each request with one of its options; see ``ChoiceRequest`` for the two methods."""
        out: list[ChoiceResult | None] = [None] * len(reqs)

        def emit(i: int, result: ChoiceResult) -> None:
            out[i] = result
            if on_result is not None:
                on_result(i, result)

        by_logprobs = [i for i, r in enumerate(reqs) if r.method == "logprobs"]
        fallback = [i for i, r in enumerate(reqs) if r.method == "generation"]
        if by_logprobs:

            def on_top(j: int, top: TopTokens) -> None:
                i = by_logprobs[j]
                req = reqs[i]
                if top.status == "ok" and (why := bad_top(top.top)) is not None:  # e.g. NaN log-probs
                    top = TopTokens(status="error", tokens_in=top.tokens_in, error=f"malformed answer: {why}")
                if top.status != "ok":
                    emit(
                        i,
                        ChoiceResult(id=req.id, status=top.status, tokens_in=top.tokens_in, error=top.error),
                    )
                    return
                lps = option_logprobs(top.top, req.options)
                best = decide(lps)
                if best is None:
                    log.debug("%s: no option among the top %d tokens, falling back to generation", req.id, k)
                    fallback.append(i)
                    return
                emit(
                    i,
                    ChoiceResult(
                        id=req.id,
                        status="ok",
                        choice=req.options[best],
                        path="logprobs",
                        logprobs=lps,
                        tokens_in=top.tokens_in,
                        tokens_out=1,
                    ),
                )

            self.answer_top_tokens([reqs[i] for i in by_logprobs], k, on_top)
        if fallback:
            fallback.sort()
            gen_reqs = [
                GenRequest(
                    id=reqs[i].id,
                    prompt=reqs[i].prompt,
                    system=reqs[i].system,
                    params=SamplingParams(max_tokens=reqs[i].max_tokens),
                )
                for i in fallback
            ]

            def on_gen(j: int, g: GenResult) -> None:
                i = fallback[j]
                emit(i, _choice_from_text(reqs[i], g))

            self.generate(gen_reqs, on_gen)
        missing = [i for i, r in enumerate(out) if r is None]
        if missing:
            raise RuntimeError(f"backend {self.name} returned no result for request indices {missing[:10]}")
        return out  # type: ignore[return-value]


def _choice_from_text(req: ChoiceRequest, g: GenResult) -> ChoiceResult:
    g = as_failure(g)  # an empty reply is a failed call, not an answer naming no option
    base = {"id": req.id, "text": g.text, "tokens_in": g.tokens_in, "tokens_out": g.tokens_out}
    if g.status != "ok":
        return ChoiceResult(status=g.status, error=g.error, **base)
    choice = parse_answer(g.text, req.options)
    if choice is None:
        return ChoiceResult(status="reject", path="generation", error="no option in answer", **base)
    return ChoiceResult(status="ok", choice=choice, path="generation", **base)
