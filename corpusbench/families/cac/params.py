"""The CAC family's parameters, declared once (#40, :mod:`corpusbench.params`).

:class:`CacParams` makes the options of ``corpusbench cac build`` (``--child`` ... ``--max-line-bytes``) and
:data:`CacSpec`, what a release spec's ``cac`` ``params`` may say (the same keys, plus ``config_name``).
The command's run arguments (the ``INPUTS`` and ``--out``) stay with the command; the release's corpus is
the family's ``corpus``. :class:`~corpusbench.families.cac.config.CacConfig` is the resolved input of one
run (speaker roles, the alternation, the table's columns), made from these by both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from corpusbench.corpus.lines import MAX_LINE_BYTES
from corpusbench.errors import ConfigError, ParamError
from corpusbench.params import param, spec_view

if TYPE_CHECKING:
    from corpusbench.families.cac.pipeline import CacConfig


@dataclass(frozen=True, slots=True, kw_only=True)
class CacParams:
    """The CAC family's parameters: the options of ``cac build`` and the release spec's ``params`` are
    generated from these fields (in this order on the command line)."""

    child: str = param("CHI", help="Speaker code(s) of the target speaker (comma-separated).")
    caretakers: str = param("MOT", help="Interlocutor speaker codes, e.g. MOT,FAT.")
    context_utterances: int | None = param(
        None,
        help="Context = the N preceding utterances (default: the whole session before the site).",
        doc_default="whole session",
    )
    alternatives: str = param(
        "the,a|an",
        help="Alternation: comma-separated choices, '|'-separated forms (first = label), e.g. 'this,that'.",
    )
    finder: str = param("noun_chunk", help="noun_chunk (D×N sites) or token.")
    dyads: str = param(
        "auto",
        help="Dyad = 'auto' (a child's folder; a transcript given on its own is one dyad), "
        "'file' (one per transcript) or 'dir' (parent folder).",
    )
    split_sessions: int = param(
        1,
        help="Cut each session into K contiguous "
        "pseudo-dyads (to run the across-dyad tests on one transcript).",
    )
    baseline: float | None = param(None, help="Adult TPR baseline (default 0.2155).", doc_default="0.2155")
    alpha: float = param(0.05, help="Significance level: pass = p > alpha.")
    # a dialogue table (.jsonl/.csv/.tsv/.parquet) as the corpus: its column names
    session_col: str = param("session", help="Dialogue tables: session column.")
    speaker_col: str = param("speaker", help="Dialogue tables: speaker column.")
    text_col: str = param("utterance", help="Dialogue tables: utterance text column.")
    order_col: str | None = param(None, help="Dialogue tables: sort column within a session.")
    max_line_bytes: int = param(MAX_LINE_BYTES, help="Longest accepted line or utterance (as `stats`).")
    config_name: str | None = param(
        None,
        help="Name of the release config; `cac build` writes files, not a config.",
        cli=False,
        doc_default="`cac-` + the labels (`cac-the-a`)",
    )


#: What a release spec's cac ``params`` may say (every field above), generated.
CacSpec = spec_view(CacParams)


@dataclass(frozen=True, slots=True, kw_only=True)
class CacRunOptions:
    """The CAC family's options of ``eval run`` (``EvalKind.run_options``): how much context a site gets."""

    context_utterances: int | None = param(
        None,
        help="CAC: at most this many earlier utterances as context (default: the whole session).",
        spec=False,
    )
    context_step: int | None = param(
        None,
        help="CAC, causal models: when a context must be cut to the window, cut this many tokens deeper "
        "and keep the cut for the next sites (KV cache reuse on long dialogues); 0 = exact cut per site "
        "(default; 500 with the quick --limit window).",
        spec=False,
    )
    context_tokens: int | None = param(
        None,
        help="CAC: cut each context to this many tokens (0 = the model's whole window, the paper's setting). "
        "Default: the whole window, or 1024 with --limit (a quick run, measured in docs/evaluation.md).",
        spec=False,
    )

    def __post_init__(self) -> None:
        if self.context_utterances is not None and self.context_utterances < 1:
            raise ConfigError(f"--context-utterances must be at least 1, got {self.context_utterances}")


def _codes(name: str, value: str) -> tuple[str, ...]:
    codes = tuple(c.strip() for c in str(value).split(",") if c.strip())
    if not codes:
        raise ParamError(name, ": give at least one speaker code")
    return codes


def run_config(p: Any) -> CacConfig:
    """The resolved input of one run from :class:`CacParams` or a :data:`CacSpec` (the one place both
    ``cac build`` and the release make it); a bad value raises :class:`~corpusbench.errors.ParamError`."""
    from corpusbench.corpus.chat import SpeakerRoles, TableColumns
    from corpusbench.families.cac.pipeline import CacConfig
    from corpusbench.families.cac.records import ADULT_TPR_BASELINE, Alternation

    return CacConfig(
        roles=SpeakerRoles(child=_codes("child", p.child), caretakers=_codes("caretakers", p.caretakers)),
        alternation=Alternation.parse(p.alternatives, finder=p.finder),
        context_utterances=p.context_utterances,
        dyads=p.dyads,
        split_sessions=p.split_sessions,
        baseline=ADULT_TPR_BASELINE if p.baseline is None else p.baseline,
        alpha=p.alpha,
        table=TableColumns(session=p.session_col, speaker=p.speaker_col, text=p.text_col, order=p.order_col),
        max_line_bytes=p.max_line_bytes,
    )
