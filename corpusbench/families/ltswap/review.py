"""How ``review`` reads LT-Swap's items (its ``ReviewKind`` hooks): a release row's subtask and bin, a run
folder's quadruplets (two pairs each) and the judge's rejected drafts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from corpusbench.families.ltswap.bins import ltswap_bin_label
from corpusbench.families.ltswap.records import SUBTASK_ALIASES, SUBTASKS
from corpusbench.io import read_json, read_jsonl
from corpusbench.review.items import JUDGE_KEPT, JUDGE_REJECTED, Item, bin_value, pair_fingerprint

REJECTED_FILES = ("rejected_drafts.jsonl", "rejects.jsonl")  # read in this order; rows need sentences
DRAFT_FIELDS = ("subtask", "s1_good", "s2_good", "s1_bad", "s2_bad")


def _subtask_name(name: str) -> str:
    """A subtask under its run name (the release spells two of them out: ``inflectionswap``)."""
    return SUBTASK_ALIASES.get(name, name)


def subtask(config: str, row: dict[str, Any], roles: dict[str, str]) -> str:
    """A release row's subtask: its config's (``ltswap-inflectionswap``: inflswap)."""
    return _subtask_name(config.rsplit("-", 1)[-1])


def _label(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return ltswap_bin_label(int(value))
    except (ValueError, TypeError, IndexError):
        return str(value)


def bin_label(row: dict[str, Any], roles: dict[str, str]) -> str:
    """A release row's bin label (``[2,4)``): its ``bin_label`` column, else its bin's label."""
    return _label(row.get("bin_label") or bin_value(row, roles))


def _wanted_subtask(sub: str, configs: Sequence[str] | None) -> bool:
    """A subtask asked for by its name or a release config's (``ltswap-inflectionswap``)."""
    if not configs:
        return True
    return sub in {_subtask_name(c.rsplit("-", 1)[-1]) for c in configs}


def run_items(path: Path, configs: Sequence[str] | None) -> tuple[str, list[Item]]:
    """A run folder's kept quadruplets (``SUBTASK.parquet``), two pairs each, and the run's name."""
    import pyarrow.parquet as pq

    manifest = read_json(path / "manifest.json")
    items: list[Item] = []
    for sub in SUBTASKS:
        file = path / f"{sub}.parquet"
        if not file.is_file() or not _wanted_subtask(sub, configs):
            continue
        for q in pq.read_table(file).to_pylist():
            items += _quad_items(q, sub, JUDGE_KEPT, (1, 2))
    fp = manifest.get("corpus", {}).get("fingerprint", "")
    corpus = str(fp.get("sha256", "") if isinstance(fp, dict) else fp)[:12] or path.name
    return f"ltswap run {corpus}", items


def _quad_items(q: dict[str, Any], sub: str, judge: str, pairs: Iterable[int]) -> list[Item]:
    out = []
    for k in pairs:
        good, bad = q[f"s{k}_good"], q[f"s{k}_bad"]
        out.append(
            Item(
                fingerprint=pair_fingerprint(good, bad),
                family="ltswap",
                subtask=sub,
                bin=_label(q.get("bin", "")),
                good=good,
                bad=bad,
                judge=judge,
                ref=f"{q.get('id', '')}-{k}",
            )
        )
    return out


def rejected_items(run: Path, configs: Sequence[str] | None) -> list[Item]:
    """Drafts the judge judged and dropped: rows with the four sentences in ``rejected_drafts.jsonl``
    (``ltswap build`` writes it) or ``rejects.jsonl``. For each, the pair the judge rejected
    (``margins``: the first at or below ``threshold``; else the first pair)."""
    items: list[Item] = []
    for name in REJECTED_FILES:
        file = run / name
        if not file.is_file():
            continue
        for n, row in enumerate(read_jsonl(file)):
            if (
                not all(row.get(f) for f in DRAFT_FIELDS)
                or row.get("reason", "filter_rejected") == "cell_full"
            ):
                continue
            sub = _subtask_name(row["subtask"])
            if not _wanted_subtask(sub, configs):
                continue
            margins, threshold = row.get("margins") or [], float(row.get("threshold", 0.0))
            k = next((i + 1 for i, m in enumerate(margins[:2]) if m is None or m <= threshold), 1)
            items += _quad_items({**row, "id": row.get("id", f"{name}:{n + 1}")}, sub, JUDGE_REJECTED, (k,))
        break
    return items
