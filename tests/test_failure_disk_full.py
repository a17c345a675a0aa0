"""A full disk is one line and exit 3, leaves nothing half-written, and the rerun with space completes
(issue 42, item 6). The disk is a small tmpfs this test mounts; skipped where mounting is not allowed."""

from __future__ import annotations

import errno
import json
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cliproc import corpusbench
from tmpfs import grow, small_tmpfs

from corpusbench.errors import DiskFullError, disk_full_error

TESTS = Path(__file__).resolve().parent
CORPUS = TESTS / "data" / "genesis_40.txt"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 KiB tmpfs (two pages); ``grow`` makes it 64 MiB."""
    with small_tmpfs(tmp_path / "disk", "8k") as disk:
        yield disk


def _assert_disk_full(proc: subprocess.CompletedProcess[str], disk: Path) -> None:
    assert proc.returncode == DiskFullError.exit_code == 3, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: disk full"), proc.stderr
    assert "Traceback" not in proc.stderr
    assert list(disk.iterdir()) == []  # no temporary folder, no half-written file


def test_stats_on_a_full_disk(small_disk: Path, tmp_path: Path) -> None:
    out = small_disk / "stats"
    _assert_disk_full(corpusbench("stats", str(CORPUS), "--out", str(out), cwd=tmp_path), small_disk)
    grow(small_disk)
    rerun = corpusbench("stats", str(CORPUS), "--out", str(out), cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert (out / "manifest.json").is_file()


def test_eval_run_on_a_full_disk(small_disk: Path, tmp_path: Path) -> None:
    model = tmp_path / "ngram"
    trained = corpusbench("baseline", "train", str(CORPUS), "--out", str(model), "--order", "2", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    pairs = tmp_path / "pairs.jsonl"
    rows = [
        {"sentence_good": "And God saw the light.", "sentence_bad": "And God see the light.", "UID": "agr"},
        {"sentence_good": "The earth was void.", "sentence_bad": "The earth were void.", "UID": "agr"},
    ]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ("eval", "run", "--dataset", str(pairs), "--model", f"ngram:{model}")
    out = small_disk / "eval"
    _assert_disk_full(corpusbench(*args, "--out", str(out), cwd=tmp_path), small_disk)
    grow(small_disk)
    rerun = corpusbench(*args, "--out", str(out), cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert (out / "results.json").is_file()


def test_disk_full_is_found_in_the_cause_chain() -> None:
    """SQLite says it in words, and a generator's error may wrap it (``release build``)."""
    try:
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.OperationalError as inner:
            raise RuntimeError("generator 'lt' (ltswap) failed") from inner
    except RuntimeError as e:
        error = disk_full_error(e)
    assert isinstance(error, DiskFullError) and "database or disk is full" in str(error)
    assert disk_full_error(OSError(errno.ENOSPC, "No space left on device", "/x/y")) is not None
    assert disk_full_error(OSError(errno.EACCES, "Permission denied")) is None
    assert disk_full_error(KeyError("url")) is None
