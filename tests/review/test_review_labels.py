"""The labels file: one fsynced line per answer, undo as a line, resume, refusing another source."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import cli, make_release, read_rows

from corpusbench.errors import ConfigError, InputError
from corpusbench.review.labels import LabelStore, current, labels_path


def test_answers_and_undos_replay_to_the_current_labels(tmp_path: Path) -> None:
    store = LabelStore(tmp_path, "ann", "rel@1")
    store.add("a", "valid", note="fine", picked="good", subtask="wordswap")
    store.add("b", "invalid")
    store.add("a", "marginal")  # answered again: the latest answer counts
    assert {fp: lab.label for fp, lab in store.labels().items()} == {"a": "marginal", "b": "invalid"}
    assert store.undo(["a", "b"]) == "a"  # the last answer given
    assert store.labels()["a"].label == "valid" and store.labels()["a"].note == "fine"
    assert store.undo(["b"]) == "b" and "b" not in store.labels()
    rows = read_rows(tmp_path / "review" / "labels-ann.jsonl")
    assert [r["label"] for r in rows] == ["valid", "invalid", "marginal", "undo", "undo"]
    assert {"fingerprint", "label", "note", "picked", "time", "reviewer", "source"} <= set(rows[0])
    assert (
        rows[0]["reviewer"] == "ann" and rows[0]["source"] == "rel@1" and rows[0]["time"].endswith("+00:00")
    )
    again = LabelStore(tmp_path, "ann", "rel@1")  # reopened: the same state
    assert {fp: lab.label for fp, lab in again.labels().items()} == {"a": "valid"}


def test_picking_the_benchmarks_bad_sentence_counts_as_invalid() -> None:
    labs = current([{"fingerprint": "a", "label": "valid", "picked": "bad"}])
    assert labs["a"].verdict == "invalid"


def test_bad_labels_reviewers_and_sources_are_refused(tmp_path: Path) -> None:
    store = LabelStore(tmp_path, "ann", "rel@1")
    with pytest.raises(InputError, match="label 'great'"):
        store.add("a", "great")
    with pytest.raises(ConfigError, match="--reviewer"):
        labels_path(tmp_path, "../x")
    store.add("a", "valid")
    with pytest.raises(InputError, match=r"labels-ann.jsonl:1: labels of 'rel@1', not of 'other@2'"):
        LabelStore(tmp_path, "ann", "other@2")


def test_a_labels_file_from_another_release_stops_the_page_with_one_line(
    tmp_path: Path, run_dir: Path, release_dir: Path
) -> None:
    other = make_release(tmp_path / "build" / "lt-test" / "0.2.0", run_dir, version="0.2.0")
    LabelStore(other, "ann", "lt-test@0.2.0").add("x", "valid")
    (release_dir / "review").mkdir()
    (release_dir / "review" / "labels-ann.jsonl").write_bytes(
        (other / "review" / "labels-ann.jsonl").read_bytes()
    )
    res = cli("review", str(release_dir), "--reviewer", "ann")
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "not of 'lt-test@0.1.0'" in res.stderr
