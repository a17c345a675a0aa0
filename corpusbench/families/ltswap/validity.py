"""The labelled validity set (#37): kept LT-Swap items read by a linguist, and the valid share they give.

``benchmarks/data/ltswap_validity/*.jsonl`` holds one quadruplet per line: the item as a run or release
kept it (``subtask``, ``rule``, ``bin``, ``w1``, ``w2``, the four sentences, the corpus contexts), where
it came from (``source``: the run and corpus), ``labels`` (one per minimal pair, S1/S1* then S2/S2*:
``valid``, ``marginal`` or ``invalid``, by the criteria of docs/ltswap.md "A valid item"), ``why`` (the
reason for any label that is not ``valid``) and ``keep`` (both pairs valid), so the same file is a
``ltswap judge-check --items`` set. Labels are given blind to the judge's margins.

``validity_report`` gives per source and subtask: pairs, valid pairs, their share with a 95% Wilson
interval, marginal and invalid pairs, and quadruplets valid in both pairs.

``label_filter`` turns label files into the build's human filter (``ltswap build --drop-labelled``): the
minimal pairs any labeller marked marginal or invalid, which the build drops and replaces, and the
quadruplets labellers approved (both pairs valid, none marked otherwise), which ``--labelled-first``
draws, pairs and judges before unlabelled ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError
from corpusbench.families.ltswap.records import Tagged
from corpusbench.intervals import wilson
from corpusbench.io import read_utf8

LABELS = ("valid", "marginal", "invalid")
VALIDITY_DIR = Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "ltswap_validity"
SUBTASK_ORDER = ("wordswap", "inflswap", "agrswap")
ALIASES = {"inflectionswap": "inflswap", "agreementswap": "agrswap"}


def read_labels(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Every labelled quadruplet of ``paths`` (files, or folders of ``*.jsonl``); a bad line is an
    ``InputError`` naming it."""
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files += sorted(p.glob("*.jsonl"))
        elif p.is_file():
            files.append(p)
        else:
            raise InputError(f"{p}: no such labels file or folder")
    rows: list[dict[str, Any]] = []
    for f in files:
        for n, line in enumerate(read_utf8(f, hint="save the labels as UTF-8 JSON lines").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{f}:{n}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{where}: not valid JSON ({e.msg})") from None
            labels = row.get("labels")
            if not isinstance(labels, list) or len(labels) != 2 or any(x not in LABELS for x in labels):
                raise InputError(f"{where}: 'labels' must be two of {', '.join(LABELS)}")
            if row.get("keep") is not all(x == "valid" for x in labels):
                raise InputError(f"{where}: 'keep' must say whether both pairs are valid")
            rows.append({**row, "subtask": ALIASES.get(row["subtask"], row["subtask"]), "_where": where})
    if not rows:
        raise InputError("no labelled items in " + ", ".join(str(p) for p in paths))
    return rows


@dataclass(frozen=True, slots=True)
class LabelFilter:
    """What labellers said about minimal pairs (good, bad sentence): the pairs any of them marked not valid,
    the pairs marked valid by all who saw them, the quadruplets approved (both pairs valid) as (subtask,
    (word 1, tag 1), (word 2, tag 2)) in file order, and the files they came from."""

    not_valid: frozenset[tuple[str, str]]
    files: tuple[dict[str, str], ...]  # {"file": name, "sha256": digest} per label file read
    valid: frozenset[tuple[str, str]] = frozenset()
    approved: tuple[tuple[str, Tagged, Tagged], ...] = ()

    @property
    def digest(self) -> str:
        """sha256 of the sorted not-valid, then valid pairs: what the filter does, whatever the files are
        called."""
        text = "\n".join(f"{g}\t{b}" for g, b in sorted(self.not_valid))
        if self.valid:
            text += "\n+\n" + "\n".join(f"{g}\t{b}" for g, b in sorted(self.valid))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def approves(self, pairs: Iterable[tuple[str, str]]) -> bool:
        """Every one of ``pairs`` (a draft's two minimal pairs) was labelled valid and never otherwise."""
        return all(p in self.valid for p in pairs)

    def words_first(self, subtask: str) -> list[tuple[Tagged, Tagged]]:
        """((word 1, tag 1), (word 2, tag 2)) of ``subtask``'s approved quadruplets, once each, in file
        order: a word approved as a noun says nothing about its verb reading."""
        return list(dict.fromkeys((a, b) for s, a, b in self.approved if s == subtask))

    def describe(self) -> dict[str, object]:
        return {
            "files": list(self.files),
            "pairs_not_valid": len(self.not_valid),
            "pairs_valid": len(self.valid),
            "sha256": self.digest,
        }


def label_filter(paths: Iterable[str | Path]) -> LabelFilter:
    """The build's human filter from label files or folders (``read_labels``): a minimal pair is out
    when *any* labeller marked it marginal or invalid (the card's all-must-agree rule, read backwards), and
    approved when every labeller who saw it marked it valid."""
    paths = [Path(p) for p in paths]
    rows = read_labels(paths)
    said = [
        ((r[f"s{n}_good"], r[f"s{n}_bad"]), label)
        for r in rows
        for n, label in ((1, r["labels"][0]), (2, r["labels"][1]))
    ]
    bad = {pair for pair, label in said if label != "valid"}
    good = {pair for pair, label in said if label == "valid"} - bad
    approved = tuple(
        (r["subtask"], (r["w1"], r.get("tag1", "")), (r["w2"], r.get("tag2", "")))
        for r in rows
        if (r["s1_good"], r["s1_bad"]) in good and (r["s2_good"], r["s2_bad"]) in good
    )
    files = sorted({r["_where"].rsplit(":", 1)[0] for r in rows})
    return LabelFilter(
        frozenset(bad),
        tuple(
            {"file": Path(f).name, "sha256": hashlib.sha256(Path(f).read_bytes()).hexdigest()} for f in files
        ),
        frozenset(good),
        approved,
    )


def _cell(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    labels = [x for r in rows for x in r["labels"]]
    valid = labels.count("valid")
    lo, hi = wilson(valid, len(labels))
    return {
        "quadruplets": len(rows),
        "pairs": len(labels),
        "valid": valid,
        "marginal": labels.count("marginal"),
        "invalid": labels.count("invalid"),
        "valid_share": round(valid / len(labels), 3) if labels else None,
        "ci95": [round(lo, 3), round(hi, 3)],
        "quadruplets_valid": sum(r["keep"] for r in rows),
    }


def validity_report(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per source, then per subtask (and ``all``): valid pair share with its 95% Wilson interval."""
    out: dict[str, Any] = {}
    for source in sorted({r.get("source", "") for r in rows}):
        mine = [r for r in rows if r.get("source", "") == source]
        subs = [s for s in SUBTASK_ORDER if any(r["subtask"] == s for r in mine)]
        out[source] = {s: _cell([r for r in mine if r["subtask"] == s]) for s in subs} | {"all": _cell(mine)}
    return out


def report_lines(report: Mapping[str, Any]) -> list[str]:
    """A plain table: source, subtask, pairs, valid (share, 95% interval), marginal, invalid, quadruplets."""
    lines = [
        "| source | subtask | pairs | valid | share [95% Wilson] | marginal | invalid | quadruplets valid |",
        "|---|---|---:|---:|---|---:|---:|---|",
    ]
    for source, subs in report.items():
        for sub, c in subs.items():
            lines.append(
                f"| {source} | {sub} | {c['pairs']} | {c['valid']} | {c['valid_share']:.2f} "
                f"[{c['ci95'][0]:.2f}, {c['ci95'][1]:.2f}] | {c['marginal']} | {c['invalid']} | "
                f"{c['quadruplets_valid']} of {c['quadruplets']} |"
            )
    return lines


FIELDS = ("subtask", "rule", "bin", "w1", "w2", "tag1", "tag2", "s1_good", "s1_bad", "s2_good", "s2_bad")


def unlabelled_rows(quads: Iterable[Mapping[str, Any]], source: str) -> list[dict[str, Any]]:
    """A run's kept quadruplets as rows to label: the item and its contexts, no judge margin (labels are
    given blind to it); ``id`` from the source and the quadruplet id."""
    out = []
    for q in quads:
        row = {"id": f"{source}:{q['id']}", "source": source, **{k: q[k] for k in FIELDS}}
        row["bin"] = int(row["bin"])
        row |= {"context1": q.get("context1") or "", "context2": q.get("context2") or ""}
        out.append(row)
    return out
