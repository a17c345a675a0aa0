"""Records of the eval runner: minimal pairs in, scores out; determiner sites.

All are frozen, slotted, keyword-only dataclasses. Character spans are ``(start, end)`` offsets into
the sentence they belong to, end exclusive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Arch = Literal["causal", "mlm", "seq2seq"]
Span = tuple[int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenScore:
    """Log-probability (natural log) of one scored token; ``start``/``end`` are character offsets."""

    token: str
    logprob: float
    start: int
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MinimalPair:
    """One BLiMP-style pair. ``config`` is the release config (or ``default``); ``group``/``bin``
    drive per-group and per-bin accuracy; spans restrict scoring to a critical region."""

    id: str
    good: str
    bad: str
    config: str = "default"
    group: str | None = None
    bin: int | None = None
    good_span: Span | None = None
    bad_span: Span | None = None
    good_prefix: str | None = None  # context put before the sentence and not scored (a prefix variant)
    bad_prefix: str | None = None
    meta: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PairScore:
    """Scores of both members of a pair (summed log-probs; over the span when one is given)."""

    id: str
    config: str
    logprob_good: float
    logprob_bad: float
    n_tokens_good: int
    n_tokens_bad: int
    group: str | None = None
    bin: int | None = None

    @property
    def correct(self) -> bool:
        """Ties count as errors."""
        return self.logprob_good > self.logprob_bad

    @property
    def delta(self) -> float:
        """ΔP: log P(good) - log P(bad) (natural log)."""
        return self.logprob_good - self.logprob_bad


@dataclass(frozen=True, slots=True, kw_only=True)
class DeterminerSite:
    """A determiner site as the scorer sees it: the text around one determiner slot.

    The candidate utterance for form ``f`` is ``left + f + right``; ``left`` holds the whole
    discourse context (earlier lines joined by ``\\n``) and the target line up to the slot.
    """

    id: str
    left: str
    right: str
    candidates: tuple[str, ...] = ("a", "an", "the")

    @classmethod
    def from_discourse(
        cls,
        id: str,
        context: Sequence[tuple[str, str]],
        speaker: str,
        text: str,
        span: Span,
        candidates: tuple[str, ...] = ("a", "an", "the"),
    ) -> DeterminerSite:
        """CHAT-style input: earlier ``(speaker, text)`` lines as ``*SPK: text``, then the target line."""
        lines = "".join(f"*{spk}: {utt}\n" for spk, utt in context)
        s, e = span
        return cls(id=id, left=f"{lines}*{speaker}: {text[:s]}", right=text[e:], candidates=candidates)

    @classmethod
    def from_span(
        cls, id: str, text: str, span: Span, candidates: tuple[str, ...] = ("a", "an", "the")
    ) -> DeterminerSite:
        s, e = span
        return cls(id=id, left=text[:s], right=text[e:], candidates=candidates)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeterminerChoice:
    """Per-candidate log-scores, the merged a/an vs the distribution, and truncation facts."""

    id: str
    logprobs: dict[str, float] = field(default_factory=dict)
    p_the: float = 0.5
    n_context_tokens: int = 0
    truncated: bool = False
    context_lines: int = 0  # earlier lines (utterances) kept in the window after truncation

    def in_window(self, lines_back: int) -> bool:
        """Whether the utterance ``lines_back`` lines before the target line was in the model's context."""
        return 1 <= lines_back <= self.context_lines

    @property
    def p_a(self) -> float:
        return 1.0 - self.p_the
