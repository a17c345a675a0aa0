"""A reviewer's labels: ``<folder>/review/labels-<reviewer>.jsonl``, one JSON line per answer, appended
and fsynced before the page moves on, so closing the tab (or killing the server) loses nothing.

An undo is a line of its own (``"label": "undo"``) that withdraws the latest answer on that item;
the current label of an item is what is left after replaying the file. Each line names its source
(release or run); a file that names another source is refused.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import ConfigError, InputError
from corpusbench.io import ensure_dir, read_jsonl

LABELS = ("valid", "marginal", "invalid", "skip")
UNDO = "undo"
REVIEWER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def review_dir(folder: Path) -> Path:
    return Path(folder) / "review"


def labels_path(folder: Path, reviewer: str) -> Path:
    if not REVIEWER.match(reviewer):
        raise ConfigError(
            f"--reviewer {reviewer!r}: use letters, digits, '.', '_' or '-' "
            "(up to 64; it names the labels file)"
        )
    return review_dir(folder) / f"labels-{reviewer}.jsonl"


def label_files(folder: Path) -> list[Path]:
    return sorted(review_dir(folder).glob("labels-*.jsonl"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Label:
    fingerprint: str
    label: str  # valid | marginal | invalid | skip
    picked: str | None  # the sentence the reviewer called correct: good | bad | None (not said)
    note: str
    time: str
    reviewer: str
    row: dict[str, Any]

    @property
    def verdict(self) -> str:
        """The label, with a pick of the benchmark's *bad* sentence counting as invalid."""
        return "invalid" if self.picked == "bad" and self.label in ("valid", "marginal") else self.label


def current(rows: Iterable[dict[str, Any]]) -> dict[str, Label]:
    """Item fingerprint -> its label after every undo, in the order first answered."""
    stacks: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        fp = row.get("fingerprint")
        if not isinstance(fp, str):
            continue
        if row.get("label") == UNDO:
            if stacks.get(fp):
                stacks[fp].pop()
        elif row.get("label") in LABELS:
            stacks.setdefault(fp, []).append(row)
    return {
        fp: Label(
            fingerprint=fp,
            label=r["label"],
            picked=r.get("picked"),
            note=r.get("note", ""),
            time=r.get("time", ""),
            reviewer=r.get("reviewer", ""),
            row=r,
        )
        for fp, s in stacks.items()
        if s
        for r in (s[-1],)
    }


def read_labels(path: Path, source: str | None = None) -> list[dict[str, Any]]:
    """The rows of a labels file; with ``source``, a row naming another source is an ``InputError``."""
    if not path.is_file():
        return []
    rows = list(read_jsonl(path))
    if source is not None:
        for n, row in enumerate(rows, 1):
            if row.get("source") != source:
                raise InputError(
                    f"{path}:{n}: labels of {row.get('source')!r}, not of {source!r}; "
                    "move the file away to start afresh here"
                )
    return rows


class LabelStore:
    """One reviewer's labels file: thread-safe appends (fsynced), replayed on open."""

    def __init__(self, folder: Path, reviewer: str, source: str):
        self.path = labels_path(folder, reviewer)
        self.reviewer, self.source = reviewer, source
        self.rows = read_labels(self.path, source)
        self._lock = threading.Lock()

    def labels(self) -> dict[str, Label]:
        with self._lock:
            return current(self.rows)

    def add(
        self, fingerprint: str, label: str, *, note: str = "", picked: str | None = None, **extra: Any
    ) -> None:
        if label not in LABELS:
            raise InputError(f"label {label!r}: one of {', '.join(LABELS)}")
        if picked not in (None, "good", "bad"):
            raise InputError(f"picked {picked!r}: good, bad or none")
        self._append(
            {"fingerprint": fingerprint, "label": label, "picked": picked, "note": note[:2000], **extra}
        )

    def undo(self, order: Sequence[str]) -> str | None:
        """Withdraw the answer given last among ``order``'s items; returns its fingerprint (None: nothing)."""
        with self._lock:
            now = current(self.rows)
        wanted = set(order)
        last = max(
            (lab for fp, lab in now.items() if fp in wanted),
            key=lambda lab: self.rows.index(lab.row),
            default=None,
        )
        if last is None:
            return None
        self._append({"fingerprint": last.fingerprint, "label": UNDO})
        return last.fingerprint

    def _append(self, row: dict[str, Any]) -> None:
        row = {
            **row,
            "reviewer": self.reviewer,
            "source": self.source,
            "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        line = json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            ensure_dir(self.path.parent)
            # an append, not io.atomic_write: each answer must reach the disk on its own, at once
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
            self.rows.append(row)


def _previous_build(folder: Path, manifest: dict[str, Any]) -> Path | None:
    """The finished build this temporary one replaces (``io.atomic_dir``: ``.<version>.*.tmp``)."""
    version = str(manifest.get("release", {}).get("version", ""))
    if version and folder.name.startswith(f".{version}.") and folder.name.endswith(".tmp"):
        old = folder.parent / version
        return old if old.is_dir() else None
    return None


def carry_over(folder: Path, manifest: dict[str, Any]) -> None:
    """Copy the previous build's ``review/`` folder into a build being written (once: not when the
    build already has one)."""
    folder = Path(folder)
    old = _previous_build(folder, manifest)
    if old is not None and review_dir(old).is_dir() and not review_dir(folder).exists():
        shutil.copytree(review_dir(old), review_dir(folder))
