"""Records of the LLM layer: requests, results and the run report.

A request carries the *rendered* user message (see ``corpusbench.prompts.render``); the backend
applies the model's chat template. ``id`` is the caller's label and is not part of the cache key.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, TypeVar

from corpusbench.errors import ConfigError

# ok: answered; reject: answered but unusable (empty/malformed choice); too_long: prompt does not fit
# the model's context (skipped); error: the call failed (recorded, retried on the next run).
Status = Literal["ok", "reject", "too_long", "error"]
ChoicePath = Literal["logprobs", "generation", "none"]
ChoiceMethod = Literal["logprobs", "generation"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplingParams:
    """Sampling settings; part of the cache key. ``temperature=0`` is greedy decoding.

    With ``temperature > 0`` each sample index gets its own seed derived from ``seed``; with
    ``seed=None`` sampled calls are not reproducible and bypass the cache.
    """

    temperature: float = 0.0
    max_tokens: int = 256
    top_p: float = 1.0
    seed: int | None = 0
    stop: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def cacheable(self) -> bool:
        return self.temperature == 0 or self.seed is not None


GREEDY = SamplingParams()


@dataclass(frozen=True, slots=True, kw_only=True)
class GenRequest:
    """Free generation for one rendered prompt; ``sample`` numbers repeated draws of the same prompt.

    ``regex``: guided decoding, the reply must match this regular expression in full (vLLM's
    structured outputs; part of the cache key when set). Backends that cannot constrain decoding
    refuse it with a ``ConfigError`` before any call (``Backend.guided_regex``).
    """

    id: str
    prompt: str
    params: SamplingParams = GREEDY
    sample: int = 0
    system: str | None = None
    regex: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GenResult:
    id: str
    status: Status
    text: str = ""
    finish_reason: str | None = None  # "stop" | "length" | None
    tokens_in: int = 0
    tokens_out: int = 0
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChoiceRequest:
    """Pick one of ``options`` (e.g. ``("A", "B")`` or ``("yes", "no")``) as the answer to ``prompt``.

    ``method="logprobs"`` reads the log-probabilities of the options at the first answer token
    (after ``answer_prefix``, e.g. ``"["`` when the prompt asks for a bracketed answer) and falls
    back to free generation + bracket parsing only if no option is among the top tokens;
    ``method="generation"`` always generates (up to ``max_tokens``) and parses, as the reference
    implementation does.
    """

    id: str
    prompt: str
    options: tuple[str, ...] = ("A", "B")
    method: ChoiceMethod = "logprobs"
    answer_prefix: str = ""
    max_tokens: int = 64  # budget of the generation path
    system: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ChoiceResult:
    id: str
    status: Status
    choice: str | None = None
    path: ChoicePath = "none"  # which read-out decided
    logprobs: tuple[float | None, ...] = ()  # per option, log-prob at the answer token (None: not in top-k)
    text: str = ""  # generated text on the generation path
    tokens_in: int = 0
    tokens_out: int = 0
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreRequest:
    """The log-probability the model gives ``text`` as the continuation of ``prefix``: raw text, no chat
    template (a language model's sentence score). ``prefix`` gives the first word a context, since not
    every tokenizer starts with a beginning-of-text token."""

    id: str
    text: str
    prefix: str = "\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreResult:
    id: str
    status: Status
    logprob: float | None = None  # sum over the text's tokens
    tokens_in: int = 0
    tokens_out: int = 0  # a server that must generate one token to answer (vLLM) counts it
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"


R = TypeVar("R", GenResult, ChoiceResult, ScoreResult)


@dataclass(slots=True, kw_only=True)
class RunReport:
    """Counters of one run through ``CachedLLM``: fresh calls, cache hits and what came back."""

    calls: int = 0  # requests sent to the backend
    cache_hits: int = 0
    ok: int = 0
    rejects: int = 0  # malformed/empty answers
    too_long: int = 0  # prompts longer than the context, skipped
    failures: int = 0  # backend errors (recorded; retried on the next run)
    retried_errors: int = 0  # requests that had failed in an earlier run and were sent again
    uncached: int = 0  # sampled without a seed: not cached
    tokens_in: int = 0  # prompt tokens of fresh calls
    tokens_out: int = 0  # generated tokens of fresh calls
    by_path: dict[str, int] = field(default_factory=dict)  # choose: which read-out decided
    wall_s: float = 0.0
    #: cache key (else request id) -> generated tokens of every answer the run used, fresh or cached,
    #: counted once however often it was looked up: the run's cost whatever the cache held
    #: (``as_dict`` shows it as requests_used / tokens_out_used)
    used: dict[str, int] = field(default_factory=dict, repr=False)

    def add(self, result: GenResult | ChoiceResult | ScoreResult, key: str | None = None) -> None:
        """Count ``result``; ``key`` (its cache key) makes requests that share one answer count once."""
        if result.cached:
            self.cache_hits += 1
        else:
            self.calls += 1
            self.tokens_in += result.tokens_in
            self.tokens_out += result.tokens_out
        if result.status != "too_long":  # a too-long prompt is never sent
            self.used[key or result.id] = result.tokens_out
        match result.status:
            case "ok":
                self.ok += 1
            case "reject":
                self.rejects += 1
            case "too_long":
                self.too_long += 1
            case "error":
                self.failures += 1
        if isinstance(result, ChoiceResult) and result.status == "ok":
            self.by_path[result.path] = self.by_path.get(result.path, 0) + 1

    def merge(self, other: RunReport) -> None:
        for name in (
            "calls",
            "cache_hits",
            "ok",
            "rejects",
            "too_long",
            "failures",
            "retried_errors",
            "uncached",
            "tokens_in",
            "tokens_out",
            "wall_s",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for k, v in other.by_path.items():
            self.by_path[k] = self.by_path.get(k, 0) + v
        self.used.update(other.used)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        used = out.pop("used")
        return {**out, "requests_used": len(used), "tokens_out_used": sum(used.values())}


@dataclass(frozen=True, slots=True)
class FailureBudget:
    """How many failed LLM calls (status ``error``) a run may absorb before it stops with an error.

    ``count``: at most that many; ``share``: at most that fraction of the run's requests so far.
    The default allows none: a failing server stops the run instead of silently dropping items.
    Rejects (answers naming no option) and prompts longer than the context are not failures.
    """

    count: int = 0
    share: float | None = None

    @classmethod
    def parse(cls, value: str | int | float | None, where: str = "--max-llm-failures") -> FailureBudget:
        """``"3"`` (a count), ``"2%"`` or ``"0.02"`` (a share of the requests); None: no failure allowed."""
        if value is None:
            return cls()
        text = str(value).strip()
        try:
            x = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            x = math.nan
        if not math.isfinite(x) or x < 0 or (text.endswith("%") and x > 1):
            raise ConfigError(f"{where} {value!r}: expected a count (3), a share (0.02) or a percentage (2%)")
        if text.endswith("%") or 0 < x < 1:
            return cls(share=x)
        if x != int(x):
            raise ConfigError(f"{where} {value!r}: a count of calls must be a whole number")
        return cls(count=int(x))

    def allowed(self, requests: int) -> int:
        """Failed calls allowed among ``requests`` requests."""
        return math.floor(self.share * requests + 1e-9) if self.share is not None else self.count

    def describe(self) -> str:
        return f"{self.share * 100:g}%" if self.share is not None else str(self.count)


def malformed(result: GenResult | ChoiceResult | ScoreResult) -> str | None:
    """Why a result that claims an answer (``ok``/``reject``) is not a well-formed one, else None.

    An answer needs text (a generation, or the text a choice was parsed from) and a log-prob
    read-out needs a finite log-prob for the option it chose; anything else is a failed call.
    """
    if result.status not in ("ok", "reject"):
        return None
    if isinstance(result, ScoreResult):
        lp = result.logprob
        ok = lp is not None and math.isfinite(lp) and lp <= 1e-4
        return None if ok else f"a sentence score that is not a log-probability: {lp}"
    if isinstance(result, GenResult):
        return None if result.text.strip() else "empty answer"
    if result.path == "generation" or result.status == "reject":
        return None if result.text.strip() else "empty answer"
    if result.choice is None or result.path != "logprobs":
        return f"an answer without a choice (path {result.path})"
    if any(lp is not None and (math.isnan(lp) or lp > 1e-4) for lp in result.logprobs):
        return f"log-probs that are not log-probabilities: {list(result.logprobs)}"
    chosen = [lp for lp in result.logprobs if lp is not None and math.isfinite(lp)]
    return None if chosen else f"no finite log-prob for any option: {list(result.logprobs)}"


# what a failed call cannot claim to have answered
_NO_ANSWER: dict[type, dict[str, Any]] = {
    ChoiceResult: {"choice": None, "path": "none"},
    ScoreResult: {"logprob": None},
}


def as_failure(result: R) -> R:
    """``result``, or a failed call (status ``error``) when it is not a well-formed answer."""
    why = malformed(result)
    if why is None:
        return result
    fields = _NO_ANSWER.get(type(result), {})
    return replace(result, status="error", error=f"malformed answer: {why}", **fields)


def result_to_dict(result: GenResult | ChoiceResult | ScoreResult) -> dict[str, Any]:
    d = asdict(result)
    d.pop("cached")
    d.pop("id")
    return d


def gen_result_from_dict(req_id: str, d: dict[str, Any], *, cached: bool) -> GenResult:
    return GenResult(id=req_id, cached=cached, **d)


def choice_result_from_dict(req_id: str, d: dict[str, Any], *, cached: bool) -> ChoiceResult:
    d = dict(d)
    d["logprobs"] = tuple(d.get("logprobs") or ())
    return ChoiceResult(id=req_id, cached=cached, **d)


def score_result_from_dict(req_id: str, d: dict[str, Any], *, cached: bool) -> ScoreResult:
    return ScoreResult(id=req_id, cached=cached, **d)
