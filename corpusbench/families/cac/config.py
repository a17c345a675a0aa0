"""CAC run parameters (:class:`CacConfig`) and what a run returns (:class:`CacResult`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from corpusbench.corpus.chat import SpeakerRoles, TableColumns
from corpusbench.corpus.lines import MAX_LINE_BYTES
from corpusbench.errors import ConfigError
from corpusbench.families.cac.records import (
    ADULT_TPR_BASELINE,
    Alternation,
    DyadUnit,
    GroupStats,
    Site,
    TestResult,
)
from corpusbench.families.cac.sites import SPACY_MODEL

DYAD_MODES = ("auto", "dir", "file")


@dataclass(frozen=True, slots=True, kw_only=True)
class CacConfig:
    """Everything that determines the output (saved in the manifest)."""

    roles: SpeakerRoles = field(default_factory=SpeakerRoles)
    alternation: Alternation = field(default_factory=Alternation)
    context_utterances: int | None = None  # None: the whole session before the site
    # "auto": a transcript found inside a folder belongs to the dyad of that folder (one folder per child,
    # as CHILDES lays out Manchester), a transcript given on its own is its own dyad; "dir": every
    # transcript belongs to its parent folder's dyad; "file": one dyad per transcript/session
    dyads: str = "auto"
    split_sessions: int = 1  # >1: cut each session into contiguous pseudo-dyads (single-transcript use)
    baseline: float = ADULT_TPR_BASELINE
    alpha: float = 0.05
    zipf_exponent: float = 1.0
    spacy_model: str = SPACY_MODEL
    table: TableColumns = field(default_factory=TableColumns)
    max_line_bytes: int = MAX_LINE_BYTES  # longest input line/utterance (refused, so not in as_dict)

    def __post_init__(self) -> None:
        if self.dyads not in DYAD_MODES:
            raise ConfigError(f"dyads must be one of {', '.join(DYAD_MODES)}, got {self.dyads!r}")
        if self.split_sessions < 1:
            raise ConfigError("split_sessions must be >= 1")
        if not 0 < self.alpha < 1:
            raise ConfigError("alpha must be in (0, 1)")

    def as_dict(self) -> dict[str, Any]:
        d = {
            k: getattr(self, k)
            for k in (
                "context_utterances",
                "dyads",
                "split_sessions",
                "baseline",
                "alpha",
                "zipf_exponent",
                "spacy_model",
            )
        }
        d["roles"] = {"child": list(self.roles.child), "caretakers": list(self.roles.caretakers)}
        d["alternation"] = self.alternation.as_dict()
        d["table_columns"] = asdict(self.table)
        return d


@dataclass(frozen=True, slots=True, kw_only=True)
class CacResult:
    out: Path
    sites: list[Site]
    stats: list[GroupStats]
    tests: list[TestResult]
    counters: dict[str, int]
    pseudo_dyads: bool
    dyad_unit: DyadUnit
    notes: list[str] = field(default_factory=list)
