"""Labels made outside a release folder, brought into its ``review/`` folder by ``release build``.

A release spec's ``review.labels`` names label files, e.g. a family's labelled validity set (read by
the family's ``labels`` hook: one item per line, one label per minimal pair, by the criteria the
family documents). ``read_set`` reads one before any generator runs
(a missing or malformed file stops the build with one line); ``bring`` runs once the release's
parquet files are written: it turns every labelled pair into one line of the review labels format
(``labels.py``: the format ``review open`` writes and ``review report`` and the card read), in
``review/labels-<reviewer>.jsonl``, for the pairs that are items of this release, matched by content
(the pair's fingerprint, a hash of its two sentences; never by position). A labelled pair that is not
an item of the release is left out and counted as unmatched; ``review/imported.json`` records, per
file, its sha256, who labelled it and by which criteria, and how many pairs matched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError
from corpusbench.io import read_json, write_json, write_jsonl
from corpusbench.provenance import file_sha256
from corpusbench.review.items import pair_fingerprint, release_items
from corpusbench.review.labels import carry_over, labels_path, review_dir

IMPORTED_FILE = "imported.json"
SHOWN_UNMATCHED = 10  # unmatched pairs named in imported.json (all are counted)


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelSet:
    """One label file of a spec, read: its labelled pairs in file order."""

    path: Path  # resolved
    shown: str  # the path as the spec gives it (relative to the spec)
    reviewer: str  # names review/labels-<reviewer>.jsonl
    by: str = ""  # who labelled, how
    criteria: str = ""  # where the criteria are written
    sha256: str = ""
    pairs: tuple[dict[str, Any], ...] = field(default=())


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The labelled items of ``path``, read by the first family whose ``labels`` reader takes it (family
    order); none takes it: the first reader's ``InputError``."""
    from corpusbench.family import families, load

    readers = [f.labels for f in families.all() if f.labels is not None]
    if not readers:
        raise InputError(f"{path}: no family reads label files")
    first: InputError | None = None
    for reader in readers:
        try:
            return load(reader)([path])  # type: ignore[no-any-return]
        except InputError as e:
            first = first or e
    assert first is not None
    raise first


def read_set(
    path: Path, *, shown: str, reviewer: str, by: str = "", criteria: str = "", where: str
) -> LabelSet:
    """Read a labelled validity file (``where`` names the spec field in errors): a missing file, a
    line that is not a labelled quadruplet, or a file with none is one ``InputError``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{where}: {shown!r} is not a file (paths are relative to the spec)")
    try:
        rows = read_rows(path)
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    pairs = []
    for row in rows:
        for k, label in enumerate(row["labels"], 1):
            good, bad = row.get(f"s{k}_good"), row.get(f"s{k}_bad")
            if not isinstance(good, str) or not isinstance(bad, str):
                raise InputError(f"{where}: {row['_where']}: s{k}_good and s{k}_bad must be sentences")
            pairs.append(
                {
                    "fingerprint": pair_fingerprint(good, bad),
                    "label": label,
                    "note": "" if label == "valid" else str(row.get("why", "")),
                    "good": good,
                    "bad": bad,
                    "imported_from": f"{path.name}:{row['_where'].rsplit(':', 1)[-1]} pair {k}",
                    "item": str(row.get("id", "")),
                }
            )
    return LabelSet(
        path=path,
        shown=shown,
        reviewer=reviewer,
        by=by.strip(),
        criteria=criteria.strip(),
        sha256=file_sha256(path),
        pairs=tuple(pairs),
    )


def bring(folder: Path, manifest: dict[str, Any], sets: list[LabelSet]) -> list[str]:
    """Write ``sets`` into ``folder/review`` as review labels of this release (see the module doc);
    labels brought by a previous build and no longer named are removed. Returns one note per set."""

    folder = Path(folder)
    carry_over(folder, manifest)  # the previous build's page labels stay; its imported ones are redone
    rdir = review_dir(folder)
    old = rdir / IMPORTED_FILE
    if old.is_file():
        for s in read_json(old).get("sets", []):
            (rdir / s["labels_file"]).unlink(missing_ok=True)
        old.unlink()
    if not sets:
        return []
    source = f"{manifest['release']['name']}@{manifest['release']['version']}"
    items = {it.fingerprint: it for it in release_items(folder, manifest)}
    records, notes = [], []
    for s in sets:
        target = labels_path(folder, s.reviewer)
        if target.exists():
            raise InputError(
                f"review.labels: reviewer {s.reviewer!r} already has labels in {target} (made on the review "
                "page); give the label file another `reviewer:`"
            )
        lines, unmatched = [], []
        for p in s.pairs:
            it = items.get(p["fingerprint"])
            if it is None:
                unmatched.append(p["imported_from"])
                continue
            lines.append(
                {
                    "fingerprint": p["fingerprint"],
                    "label": p["label"],
                    "picked": None,
                    "note": p["note"],
                    "reviewer": s.reviewer,
                    "source": source,
                    "time": "",
                    "subtask": it.subtask,
                    "bin": it.bin,
                    "judge": it.judge,
                    "good": it.good,
                    "bad": it.bad,
                    "ref": it.ref,
                    "good_shown": None,
                    "imported_from": p["imported_from"],
                }
            )
        if lines:
            write_jsonl(target, lines)
        records.append(
            {
                "reviewer": s.reviewer,
                "file": s.shown.replace(os.sep, "/"),
                "sha256": s.sha256,
                "by": s.by,
                "criteria": s.criteria,
                "labels_file": target.name,
                "pairs": len(s.pairs),
                "matched": len(lines),
                "unmatched": len(unmatched),
                "unmatched_first": unmatched[:SHOWN_UNMATCHED],
            }
        )
        left = ""
        if unmatched:
            left = f" (left out: {', '.join(unmatched[:3])}{' ...' if len(unmatched) > 3 else ''})"
        notes.append(
            f"review labels {s.shown}: {len(s.pairs)} labelled pair(s), {len(lines)} matched to this "
            f"release's items, {len(unmatched)} unmatched{left}"
        )
    write_json(old, {"sets": records})
    return notes


def imported_sets(folder: Path) -> list[dict[str, Any]]:
    """What ``bring`` recorded in ``folder/review/imported.json`` (none: [])."""
    path = review_dir(folder) / IMPORTED_FILE
    return list(read_json(path).get("sets", [])) if path.is_file() else []
