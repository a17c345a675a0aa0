"""Records of the CAC generator: the alternation, D×N sites, model choices, statistics and tests."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from corpusbench.errors import ConfigError, InputError

ADULT_TPR_BASELINE = 0.2155  # pooled adult-to-adult TPR over 1,615 CHILDES cases (paper §4 prints 0.215)
DEGENERATE_BIAS = 0.98  # paper Appendix D: bias >= 0.98 means a (near-)constant choice
UNIVERSAL_BIAS = 0.82  # paper §2/§4: determiner bias of adult English (COCA); the §4 one-sample bias test


@dataclass(frozen=True, slots=True, kw_only=True)
class Alternation:
    """A closed grammatical choice: labelled alternatives, each with its surface forms.

    The default is the paper's: ``the`` vs ``a`` (``an`` merged into ``a``). ``finder`` picks how
    sites are found: ``noun_chunk`` (spaCy noun chunk starting with a form, head a common noun,
    at most ``max_gap`` words between) or ``token`` (any token with a form; key = its head's lemma).
    """

    choices: tuple[tuple[str, tuple[str, ...]], ...] = (("the", ("the",)), ("a", ("a", "an")))
    finder: str = "noun_chunk"
    max_gap: int = 1
    singular_head: bool = True

    def __post_init__(self) -> None:
        if len(self.choices) < 2:
            raise ConfigError("an alternation needs at least two alternatives")
        forms = [f for _, fs in self.choices for f in fs]
        if len(set(forms)) != len(forms) or any(not f or f != f.lower() for f in forms):
            raise ConfigError(f"alternation forms must be distinct lower-case words: {forms}")
        if self.finder not in {"noun_chunk", "token"}:
            raise ConfigError(f"unknown site finder {self.finder!r} (noun_chunk or token)")
        if self.max_gap < 0:
            raise ConfigError("max_gap must be >= 0")

    @classmethod
    def parse(cls, spec: str, **kw: Any) -> Alternation:
        """``"the,a|an"``: comma-separated alternatives, ``|``-separated forms (the first is the label)."""
        parts = [p.strip() for p in spec.split(",") if p.strip()]
        choices = tuple(
            (fs[0], tuple(fs))
            for fs in ([f.strip().lower() for f in p.split("|") if f.strip()] for p in parts)
            if fs
        )
        return cls(choices=choices, **kw)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.choices)

    @property
    def is_binary(self) -> bool:
        return len(self.choices) == 2

    def label_of(self, form: str) -> str | None:
        form = form.lower()
        return next((label for label, fs in self.choices if form in fs), None)

    def describe(self) -> str:
        """Human-readable: ``the vs a/an``."""
        return " vs ".join("/".join(fs) for _, fs in self.choices)

    def spec(self) -> str:
        return ",".join("|".join(fs) for _, fs in self.choices)

    def as_dict(self) -> dict[str, Any]:
        return {
            "alternatives": self.spec(),
            "finder": self.finder,
            "max_gap": self.max_gap,
            "singular_head": self.singular_head,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class DyadUnit:
    """The unit of analysis: what one dyad (one value in the across-dyad tests) is.

    ``unit`` is ``folder`` (a dyad = the folder holding a child's session files, the paper's
    mother-child dyad), ``file`` (a dyad = one transcript or table session) or ``mixed``;
    ``parts`` > 1 when each dyad is cut into contiguous pseudo-dyads (``--split-sessions``).
    """

    mode: str  # the requested --dyads mode (auto, folder, file)
    unit: str
    n_dyads: int
    n_sessions: int
    parts: int = 1

    @property
    def pseudo(self) -> bool:
        return self.parts > 1

    def describe(self) -> str:
        """One line, e.g. ``dyad = a child's folder of session files (2 dyads, 4 sessions)``."""
        what = {
            "folder": "a child's folder of session files",
            "file": "one transcript / session",
            "mixed": "a child's folder, or a transcript given on its own",
        }.get(self.unit, self.unit)
        text = f"dyad = {what} ({self.n_dyads} dyad(s), {self.n_sessions} session(s))"
        if self.pseudo:
            text += f"; each session cut into {self.parts} contiguous parts (pseudo-dyads)"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "unit": self.unit,
            "n_dyads": self.n_dyads,
            "n_sessions": self.n_sessions,
            "parts": self.parts,
            "description": self.describe(),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Site:
    """One attested choice site (e.g. a D×N pair) in a dialogue utterance.

    ``id`` is ``"<file>:<utterance index>:<token offset>"`` (stable across runs and input order).
    ``position`` is the utterance's 0-based place among the session's kept utterances; the
    discourse context of the site is the session's utterances ``context_start .. position-1``.
    ``prev_*`` describe the most recent earlier site with the same key by a dyad speaker (child
    or caretaker); ``tpr_case`` is true when that speaker was the other party.
    """

    id: str
    file: str
    dyad: str
    utterance_index: int
    position: int
    speaker: str
    role: str
    text: str
    choice: str
    form: str
    key: str
    head_text: str
    char_start: int
    char_end: int
    token: int
    head_token: int
    context_start: int = 0
    imitation: bool = False
    prev_site_id: str | None = None
    prev_choice: str | None = None
    prev_speaker: str | None = None
    prev_role: str | None = None
    prev_distance: int | None = None
    tpr_case: bool = False

    def with_choice(self, form: str) -> str:
        """The utterance with ``form`` spliced in at the site (``"___"`` for a blank)."""
        return self.text[: self.char_start] + form + self.text[self.char_end :]

    def as_row(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class SiteChoice:
    """A model's choice distribution at one site: the input of the model-side metrics.

    Produced by the eval runner, one per scored site: ``SiteChoice.from_probs("eve.cha:29:0",
    {"the": 0.31, "a": 0.69})`` (probabilities over the alternation's labels, ``an`` already merged
    into ``a``). ``antecedent_in_context`` says whether the TPR antecedent utterance was inside the
    model's (truncated) context window; ``None`` if unknown.
    """

    site_id: str
    probs: tuple[tuple[str, float], ...]
    antecedent_in_context: bool | None = None

    def __post_init__(self) -> None:
        values = [p for _, p in self.probs]
        if any(not math.isfinite(p) or p < 0 for p in values) or abs(sum(values) - 1.0) > 1e-4:
            raise InputError(
                f"site {self.site_id}: choice probabilities must be >= 0 and sum to 1, got {values}"
            )

    @classmethod
    def from_probs(
        cls,
        site_id: str,
        probs: Mapping[str, float],
        *,
        renormalise: bool = False,
        antecedent_in_context: bool | None = None,
    ) -> SiteChoice:
        items = sorted((str(k), float(v)) for k, v in probs.items())
        if renormalise:
            total = sum(v for _, v in items)
            if not total > 0:
                raise InputError(f"site {site_id}: probabilities sum to {total}")
            items = [(k, v / total) for k, v in items]
        return cls(site_id=site_id, probs=tuple(items), antecedent_in_context=antecedent_in_context)

    @classmethod
    def binary(cls, site_id: str, p_the: float, *, antecedent_in_context: bool | None = None) -> SiteChoice:
        """The default alternation: ``P(the)`` given, ``P(a) = 1 - P(the)``."""
        return cls.from_probs(
            site_id, {"the": p_the, "a": 1.0 - p_the}, antecedent_in_context=antecedent_in_context
        )

    def p(self, label: str) -> float:
        for k, v in self.probs:
            if k == label:
                return v
        raise InputError(
            f"site {self.site_id}: no probability for {label!r} (has {[k for k, _ in self.probs]})"
        )

    def argmax(self, order: tuple[str, ...]) -> str:
        """Most probable label; ties go to the label listed first in ``order``."""
        return max(order, key=lambda lab: (self.p(lab), -order.index(lab)))


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupStats:
    """Statistics of one speaker group (dyad × role) for humans or a model.

    ``overlap`` is the empirical overlap (Eq 9) for humans, the expected overlap (Eq 2) for models;
    ``bias`` is Eq 1 (humans) or Eq 3 / E[max] (models); ``predicted_overlap`` is Yang's (Eq 8)
    with Zipf exponent 1 and b = ``bias``. Overlap values are NaN for non-binary alternations.
    """

    source: str  # "human" or a model name
    dyad: str
    role: str
    n_types: int  # N
    n_tokens: int  # S
    bias: float
    overlap: float
    predicted_overlap: float
    n_tpr: int
    tpr: float
    accuracy: float = math.nan  # models only: argmax agreement with the human choice

    def as_row(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class TestResult:
    """One significance test across dyads. ``passed``: p > alpha (no significant deviation)."""

    name: str
    test: str  # "paired t" | "one-sample t"
    role: str
    n: int
    statistic: float = math.nan
    p_value: float = math.nan
    mean_a: float = math.nan
    mean_b: float = math.nan
    passed: bool | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def as_row(self) -> dict[str, Any]:
        row = asdict(self)
        row.pop("extra")
        row.update(self.extra)
        return row
