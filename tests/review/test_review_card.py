"""``release build`` writes the card's "Human validation" section: that no check was made, or what the
labels of a review say (kept across a rebuild of the same version; their fingerprint in provenance)."""

from __future__ import annotations

from pathlib import Path

import yaml

from corpusbench.io import read_json
from corpusbench.publish.build import build_release
from corpusbench.publish.spec import ReleaseSpec
from corpusbench.review.items import load_source
from corpusbench.review.labels import LabelStore

DATA = Path(__file__).resolve().parents[1] / "data"


def _spec(folder: Path) -> Path:
    spec = {
        "name": "review-pairs",
        "version": "0.1.0",
        "repo_id": "tester/review-pairs",
        "description": "Pairs for the review tests.",
        "license": "cc-by-4.0",
        "language": ["en"],
        "corpora": {"genesis": {"path": str(DATA / "genesis_40.txt"), "language": "en"}},
        "families": [
            {
                "name": "minimal-pairs",
                "id": "fixture",
                "corpus": "genesis",
                "params": {"path": str(DATA / "publish" / "pairs.jsonl"), "group_column": "UID"},
            }
        ],
    }
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def test_the_card_says_no_human_check_then_reports_the_labels_after_a_rebuild(tmp_path: Path) -> None:
    spec = ReleaseSpec.load(_spec(tmp_path))
    out = build_release(spec, tmp_path / "build").path
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "## Human validation\n\nNo human check was made" in card
    assert "human_validation" not in read_json(out / "provenance.json")

    src = load_source(out)
    store = LabelStore(out, "ann", src.name)
    for n, it in enumerate(src.items[:10]):
        store.add(
            it.fingerprint, "valid" if n < 7 else "invalid", subtask=it.subtask, bin=it.bin, judge=it.judge
        )
    store.add("0" * 16, "invalid", subtask="x", bin="", judge="none")  # an item this release lacks
    out = build_release(spec, tmp_path / "build", force=True).path
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "No human check was made" not in card
    assert "10 items labelled by ann (11 labels)" in card
    assert "Left out: 1 labelled item(s) this build no longer has." in card
    assert "Valid share of the labelled benchmark items: **0.70** [0.40, 0.89] (7 of 10" in card
    human = read_json(out / "provenance.json")["human_validation"]
    assert human["valid"]["k"] == 7 and len(human["labels_fingerprint"]) == 64
    assert human["labels_fingerprint"][:16] in card
    assert (out / "review" / "labels-ann.jsonl").is_file()  # carried over from the previous build
