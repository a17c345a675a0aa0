"""A release spec's ``review.labels``: label files made outside the build (the labelled LT-Swap validity
set's format) reach the card's "Human validation" section, matched to the release's pairs by their
sentences; a labelled pair the release lacks is counted as unmatched and reported; a missing file stops
the build with one line and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import PAIRS, run_cli, write_spec

from corpusbench.io import read_json
from corpusbench.publish.build import build_release
from corpusbench.publish.spec import ReleaseSpec
from corpusbench.review.labels import LabelStore, label_files
from corpusbench.review.report import build_report


def _pairs() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["sentence_good"], r["sentence_bad"]) for r in rows]


def _quad(n: int, p1: tuple[str, str], p2: tuple[str, str], labels: list[str]) -> dict[str, Any]:
    return {
        "id": f"q{n}",
        "source": "test",
        "subtask": "wordswap",
        "bin": 1,
        "s1_good": p1[0],
        "s1_bad": p1[1],
        "s2_good": p2[0],
        "s2_bad": p2[1],
        "labels": labels,
        "keep": labels == ["valid", "valid"],
        "why": "" if labels == ["valid", "valid"] else "a reason",
    }


def _labels_file(folder: Path) -> Path:
    """9 pairs of the release (7 valid, 1 marginal, 1 invalid) and 1 pair it lacks, in reverse file order."""
    p = [_pairs()[i] for i in (0, 1, 2, 3, 6, 7, 8, 10, 11)]  # the fixture's distinct, well-formed pairs
    quads = [
        _quad(1, p[0], p[1], ["valid", "valid"]),
        _quad(2, p[2], p[3], ["valid", "marginal"]),
        _quad(3, p[4], p[5], ["invalid", "valid"]),
        _quad(4, p[6], p[7], ["valid", "valid"]),
        _quad(5, ("The hill sleeps.", "The hill sleep."), p[8], ["invalid", "valid"]),
    ]
    path = folder / "labels" / "set37.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(q) for q in reversed(quads)]  # matched by content, not by position
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


REVIEW = {
    "labels": [
        {
            "path": "labels/set37.jsonl",
            "by": "one careful reader, blind to the judge's margins",
            "criteria": 'docs/ltswap.md, "A valid item"',
        }
    ]
}


def test_labels_reach_the_card_and_an_unmatched_label_is_reported(tmp_path: Path) -> None:
    _labels_file(tmp_path)
    spec = ReleaseSpec.load(write_spec(tmp_path, review=REVIEW))
    said: list[str] = []
    res = build_release(spec, tmp_path / "build", on_event=said.append)
    out = res.path
    card = (out / "README.md").read_text(encoding="utf-8")
    section = card[card.index("## Human validation") : card.index("## Citation")]
    assert "No human check was made" not in section
    assert "9 items labelled by set37 (9 labels, from `set37.jsonl`)" in section
    assert "Labelled by one careful reader, blind to the judge's margins." in section
    assert 'Criteria: docs/ltswap.md, "A valid item".' in section
    assert "1 of the file's 10 labelled pairs are not items of this release and are left out" in section
    assert "set37.jsonl:1 pair 1" in section  # the unmatched pair, named (quadruplet 5 is the file's line 1)
    assert (
        "Valid share of the labelled benchmark items: **0.78** [0.45, 0.94] (7 of 9; 95% Wilson interval)."
        in section
    )
    assert any(line.endswith("| 9 | 0.78 [0.45, 0.94] (7/9) | 1 | 1 |") for line in section.splitlines())
    assert "judge precision" not in section  # no judge in this release
    limits = card[card.index("## Limitations") :]
    assert "no person\n  has validated every row. A labelled sample is reported" in limits
    assert (
        "9 of the 10 rows of `agreement`, `anaphora`, `determiners`" in limits
        and "0.78 [0.45, 0.94] of them valid" in limits
    )

    assert any("1 unmatched (left out: set37.jsonl:1 pair 1)" in note for note in said)
    imported = read_json(out / "review" / "imported.json")["sets"]
    assert [(s["reviewer"], s["pairs"], s["matched"], s["unmatched"]) for s in imported] == [
        ("set37", 10, 9, 1)
    ]
    human = read_json(out / "provenance.json")["human_validation"]
    assert human["valid"]["k"] == 7 and human["imported"][0]["unmatched"] == 1
    assert read_json(out / "provenance.json")["spec"]["review"]["labels"][0]["path"] == "labels/set37.jsonl"
    # one format: the labels are review labels of this release, which `review report` reads as it is
    rep = build_report(out)
    assert rep["items"] == 9 and rep["source"] == "test-pairs@0.1.0" and rep["stale"] == 0


def test_the_card_reports_agreement_only_for_label_sets_that_share_pairs(tmp_path: Path) -> None:
    """A second labeller on two of the first set's quadruplets: a table row with their agreement and κ; a
    third set on another of them: its row says κ is undefined (every label the same); the second and third
    sets share no pair, so they get no row."""
    _labels_file(tmp_path)
    p = [_pairs()[i] for i in (0, 1, 2, 3, 6, 7, 8, 10, 11)]
    second = [_quad(1, p[0], p[1], ["valid", "marginal"]), _quad(2, p[2], p[3], ["valid", "marginal"])]
    (tmp_path / "labels" / "second.jsonl").write_text("".join(json.dumps(q) + "\n" for q in second))
    other = _quad(9, p[6], p[7], ["valid", "valid"])
    (tmp_path / "labels" / "other.jsonl").write_text(json.dumps(other) + "\n")
    one = REVIEW["labels"][0]
    review = {"labels": [one, {**one, "path": "labels/second.jsonl"}, {**one, "path": "labels/other.jsonl"}]}
    out = build_release(ReleaseSpec.load(write_spec(tmp_path, review=review)), tmp_path / "build").path
    card = (out / "README.md").read_text(encoding="utf-8")
    section = card[card.index("## Human validation") : card.index("## Citation")]
    names = ("| other /", "| second /", "| set37 /")
    rows = [line for line in section.splitlines() if line.startswith(names)]
    # 4 shared pairs: set37 says valid, valid, valid, marginal; second says valid, marginal, valid, marginal
    assert rows == [
        "| other / set37 | 2 | 2 / 2 / 2 | 1.00 (2/2) | – (every label the same) |",
        "| second / set37 | 4 | 2 / 3 / 2 | 0.75 (3/4) | 0.50 |",
    ], section
    # the pair labelled valid by one and marginal by the other counts as not valid (all labels must say valid)
    assert "(6 of 9; 95% Wilson interval)" in section
    # per subtask, over every pair labelled twice or more: 6 such pairs, 5 with one label from all
    pooled = read_json(out / "provenance.json")["human_validation"]["agreement"]
    assert sum(a["n"] for a in pooled.values()) == 6 and sum(a["same"] for a in pooled.values()) == 5
    assert "| pairs labelled twice or more | same label from all | Fleiss' κ |" in section
    assert "A pair labelled more than once is valid only when every label says so." in section
    kappas = read_json(out / "provenance.json")["human_validation"]["reviewer_kappa"]
    assert [(k["a"], k["b"], k["n"], k["agreement"]) for k in kappas] == [
        ("other", "set37", 2, 1.0),
        ("second", "set37", 4, 0.75),
    ]


def test_one_label_set_says_agreement_is_not_measured(tmp_path: Path) -> None:
    _labels_file(tmp_path)
    out = build_release(ReleaseSpec.load(write_spec(tmp_path, review=REVIEW)), tmp_path / "build").path
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "No item carries labels from two label sets: agreement between labellers is not measured." in card
    assert "labelled more than once" not in card


def test_a_rebuild_keeps_page_labels_and_redoes_imported_ones(tmp_path: Path) -> None:
    _labels_file(tmp_path)
    spec = ReleaseSpec.load(write_spec(tmp_path, review=REVIEW))
    out = build_release(spec, tmp_path / "build").path
    from corpusbench.review.items import load_source

    src = load_source(out)
    LabelStore(out, "ann", src.name).add(src.items[0].fingerprint, "invalid", subtask=src.items[0].subtask)
    out = build_release(spec, tmp_path / "build", force=True).path
    assert [f.name for f in label_files(out)] == ["labels-ann.jsonl", "labels-set37.jsonl"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "Labels of ann: made on the `corpusbench review` page" in card
    # without the review key, the imported labels go and the page labels stay
    bare = ReleaseSpec.load(write_spec(tmp_path / "bare"))
    out = build_release(bare, tmp_path / "build", force=True).path
    assert [f.name for f in label_files(out)] == ["labels-ann.jsonl"]
    assert not (out / "review" / "imported.json").exists()
    assert "review" not in read_json(out / "provenance.json")["spec"]  # a spec without it: as before


def test_a_spec_naming_a_missing_label_file_fails_with_one_line(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, review={"labels": ["labels/nowhere.jsonl"]})
    done = run_cli("release", "build", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "review.labels[0].path: 'labels/nowhere.jsonl' is not a file" in done.stderr
    assert str(spec) in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_malformed_label_file_fails_naming_its_line(tmp_path: Path) -> None:
    path = _labels_file(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + '{"labels": ["valid"]}\n', encoding="utf-8")
    spec = write_spec(tmp_path, review=REVIEW)
    done = run_cli("release", "build", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode != 0 and done.stderr.strip().count("\n") == 0, done.stderr
    assert "review.labels[0].path:" in done.stderr and "set37.jsonl:6" in done.stderr
    assert not (tmp_path / "out").exists()
