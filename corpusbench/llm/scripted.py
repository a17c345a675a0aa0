"""A scripted backend for tests of parsing, caching and fault handling (never for real runs).

Answers are looked up by rendered prompt. A script entry is a reply text, ``Fail`` (the call
fails), ``TooLong`` (prompt over the context), ``Crash`` (the whole backend goes down, as when a
server dies) or a list of those consumed one per call, so a test can script "fails, then works".
An unscripted prompt gets ``default``: by default a reply that names no option (a reject).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from corpusbench.errors import BackendError
from corpusbench.llm.base import Backend, OnResult, TopTokens
from corpusbench.llm.records import ChoiceRequest, GenRequest, GenResult, ScoreRequest, ScoreResult


@dataclass(frozen=True, slots=True)
class Fail:
    message: str = "scripted failure"


@dataclass(frozen=True, slots=True)
class TooLong:
    pass


@dataclass(frozen=True, slots=True)
class Crash:
    message: str = "scripted backend crash"


Entry = str | Fail | TooLong | Crash
# the reply to an unscripted prompt: text that names no option and holds no sentence (an empty reply
# would be a failed call, records.malformed)
NO_ANSWER = "(no answer)"


class ScriptedBackend(Backend):
    name: ClassVar[str] = "scripted"
    guided_regex: ClassVar[bool] = True  # a script entry stands for the constrained reply

    def __init__(
        self,
        replies: Mapping[str, Entry | list[Entry]] | None = None,
        top: Mapping[str, Sequence[tuple[str, float]]] | None = None,
        model: str = "scripted",
        default: str = NO_ANSWER,
        scores: Callable[[str], float | Entry] | None = None,
    ):
        self.model = model
        self.replies = {k: list(v) if isinstance(v, list) else v for k, v in (replies or {}).items()}
        self.top = dict(top or {})
        self.default = default
        self.scores = scores  # text -> its log-probability (or Fail/TooLong/Crash); None: cannot score
        self.calls: list[tuple[str, str]] = []  # (operation, prompt) of every call, for assertions

    def _next(self, prompt: str) -> Entry:
        entry = self.replies.get(prompt, self.default)
        if isinstance(entry, list):
            return entry.pop(0) if len(entry) > 1 else entry[0]
        return entry

    def generate(
        self, reqs: Sequence[GenRequest], on_result: OnResult[GenResult] | None = None
    ) -> list[GenResult]:
        out = []
        for i, req in enumerate(reqs):
            self.calls.append(("generate", req.prompt))
            entry = self._next(req.prompt)
            n_in = len(req.prompt.split())
            res = _failed(GenResult, req.id, entry, n_in)
            if res is None:
                words = entry.split()[: req.params.max_tokens]
                res = GenResult(
                    id=req.id,
                    status="ok",
                    text=" ".join(words),
                    finish_reason="stop",
                    tokens_in=n_in,
                    tokens_out=len(words),
                )
            out.append(res)
            if on_result:
                on_result(i, res)
        return out

    def answer_top_tokens(
        self, reqs: Sequence[ChoiceRequest], k: int, on_item: OnResult[TopTokens] | None = None
    ) -> list[TopTokens]:
        out = []
        for i, req in enumerate(reqs):
            self.calls.append(("top", req.prompt))
            entry = self.replies.get(req.prompt)
            if isinstance(entry, Crash):
                raise BackendError(entry.message)
            if isinstance(entry, TooLong):
                item = TopTokens(status="too_long", error="prompt longer than the context")
            else:
                top = tuple(self.top.get(req.prompt, ()))[:k]
                item = TopTokens(status="ok", top=top, tokens_in=len(req.prompt.split()))
            out.append(item)
            if on_item:
                on_item(i, item)
        return out

    def score(
        self, reqs: Sequence[ScoreRequest], on_result: OnResult[ScoreResult] | None = None
    ) -> list[ScoreResult]:
        if self.scores is None:
            return super().score(reqs, on_result)
        out = []
        for i, req in enumerate(reqs):
            self.calls.append(("score", req.text))
            entry = self.scores(req.text)
            n_in = len(req.text.split())
            res = _failed(ScoreResult, req.id, entry, n_in)
            if res is None:
                res = ScoreResult(id=req.id, status="ok", logprob=float(entry), tokens_in=n_in)  # type: ignore[arg-type]
            out.append(res)
            if on_result:
                on_result(i, res)
        return out


def _failed(cls: type, rid: str, entry: object, n_in: int):  # type: ignore[no-untyped-def]
    """The scripted failure ``entry`` stands for, as a ``cls`` result (None: it is an answer); a ``Crash``
    takes the whole backend down."""
    if isinstance(entry, Crash):
        raise BackendError(entry.message)
    if isinstance(entry, Fail):
        return cls(id=rid, status="error", error=entry.message, tokens_in=n_in)
    if isinstance(entry, TooLong):
        return cls(id=rid, status="too_long", error="prompt longer than the context")
    return None
