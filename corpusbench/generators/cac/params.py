"""The CAC family's parameters, declared once (#40, :mod:`corpusbench.params`).

:class:`CacParams` makes the options of ``corpusbench cac build`` (``--child`` ... ``--max-line-bytes``) and
:data:`CacSpec`, what a release spec's ``cac`` ``params`` may say (the same keys, plus ``config_name``).
The command's run arguments (the ``INPUTS`` and ``--out``) stay with the command; the release's corpus is
the family's ``corpus``. :class:`~corpusbench.generators.cac.config.CacConfig` is the resolved input of one
run (speaker roles, the alternation, the table's columns), made from these by both.
"""

from __future__ import annotations

from dataclasses import dataclass

from corpusbench.corpus.lines import MAX_LINE_BYTES
from corpusbench.params import param, spec_view


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
