"""CAC sites as one flat table (a release config) and back, with the discourse context stored once.

One row per site, sorted by session, utterance position and token. A row's ``context_new`` holds the
speaker-labelled lines (``*MOT: text``) of the session's utterances that come after the previous row's
utterance and before this one (its own utterance included for later rows); the context of a site is
therefore the concatenation of ``context_new`` over the session's rows up to it, and each utterance is
stored once per session instead of once per later site. :func:`session_lines` rebuilds it;
:func:`site_left_right` gives the scorer's ``(left, right)`` strings, the same strings
:func:`corpusbench.families.cac.io.site_prompt` builds from a CAC folder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from corpusbench.corpus.records import Utterance
from corpusbench.errors import InputError
from corpusbench.families.cac.records import Site

if TYPE_CHECKING:
    import pandas as pd

#: Site field -> release column (fields not listed keep their name).
COLUMN_OF = {
    "id": "site_id",
    "file": "session",
    "text": "utterance",
    "form": "determiner",
    "char_start": "det_start",
    "char_end": "det_end",
    "key": "noun",
    "head_text": "noun_text",
}
FIELD_OF = {v: k for k, v in COLUMN_OF.items()}
CONTEXT_COLUMN = "context_new"
ALTERNATION_COLUMN = "alternation"  # the alternation's spec (``the,a|an``), the same on every row
#: Eval roles of a CAC config (role -> column).
ROLES = {
    "id": "site_id",
    "group": "dyad",
    "context": CONTEXT_COLUMN,
    "text": "utterance",
    "choice": "choice",
}
REQUIRED = ("site_id", "session", "speaker", "role", "utterance", "determiner", "choice", "noun")


def line_of(u: Utterance) -> str:
    """An utterance as a context line: ``*SPK: text`` (the CHAT label the scorer sees)."""
    return f"*{u.speaker}: {u.text}"


def sites_table(
    sites: Sequence[Site], sessions: Mapping[str, Sequence[Utterance]], alternation: str
) -> pd.DataFrame:
    """The release table of ``sites`` (all roles), with each session's context stored incrementally;
    ``alternation`` (``the,a|an``) is repeated on every row so a row says what the choice was between."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    covered: dict[str, int] = {}
    for s in sorted(sites, key=lambda s: (s.file, s.position, s.token)):
        if s.file not in sessions:
            raise InputError(f"site {s.id}: no utterances for session {s.file!r}")
        start = covered.get(s.file, 0)
        row = {COLUMN_OF.get(k, k): v for k, v in s.as_row().items()}
        row[ALTERNATION_COLUMN] = alternation
        row[CONTEXT_COLUMN] = [line_of(u) for u in sessions[s.file][start : s.position]]
        covered[s.file] = max(start, s.position)
        rows.append(row)
    df = pd.DataFrame(rows)
    df["prev_distance"] = df["prev_distance"].astype("Int64")
    return df


def table_sites(table: pd.DataFrame | Iterable[Mapping[str, Any]]) -> tuple[list[Site], dict[str, list[str]]]:
    """Sites and each session's context lines (index = utterance position) from a release table."""
    import math

    import pandas as pd

    records = table.to_dict("records") if hasattr(table, "to_dict") else list(table)
    if records:
        missing = [c for c in (*REQUIRED, CONTEXT_COLUMN) if c not in records[0]]
        if missing:
            raise InputError(f"CAC table: missing column(s) {', '.join(missing)}")
    sites: list[Site] = []
    lines: dict[str, list[str]] = {}
    fields = set(Site.__dataclass_fields__)
    for r in records:
        kw: dict[str, Any] = {}
        for col, v in r.items():
            name = FIELD_OF.get(col, col)
            if name not in fields:
                continue
            if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
                v = None
            elif hasattr(v, "item"):
                v = v.item()
            kw[name] = v
        if kw.get("prev_distance") is not None:
            kw["prev_distance"] = int(kw["prev_distance"])
        site = Site(**kw)
        got = lines.setdefault(site.file, [])
        got.extend(str(x) for x in r[CONTEXT_COLUMN])
        if len(got) < site.position:
            raise InputError(
                f"CAC table, site {site.id}: context holds {len(got)} lines before utterance "
                f"{site.position}; rows must be in session order"
            )
        sites.append(site)
    return sites, lines


def session_lines(sessions: Mapping[str, Sequence[Utterance]]) -> dict[str, list[str]]:
    """Each session's utterances as context lines (a CAC folder's ``utterances.parquet`` view)."""
    return {f: [line_of(u) for u in us] for f, us in sessions.items()}


def site_left_right(site: Site, lines: Sequence[str], max_utterances: int | None = None) -> tuple[str, str]:
    """``(left, right)`` around the slot: context lines + ``*SPK: words before the determiner``, and
    the rest of the utterance. Equal to :func:`~corpusbench.families.cac.io.site_prompt`."""
    start = site.context_start
    if max_utterances is not None:
        start = max(start, site.position - max_utterances)
    target = f"*{site.speaker}: {site.text[: site.char_start]}"
    return "\n".join([*lines[start : site.position], target]), site.text[site.char_end :]
