"""The ``fitclams`` release adapter over the real FIT-CLAMS generator, on a slice of the default corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from corpusbench.families.fitclams.records import PARADIGMS
from corpusbench.publish.build import build_release
from corpusbench.publish.spec import ReleaseSpec

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spec_path(default_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fitclams-release")
    lines: list[str] = []
    for play in sorted((default_corpus / "shakespeare").glob("*.txt")):
        lines += [ln.strip() for ln in play.read_text(encoding="utf-8").splitlines() if ln.strip()]
        if len(lines) >= 1500:
            break
    (folder / "plays.txt").write_text("\n".join(lines[:1500]) + "\n", encoding="utf-8")
    spec = {
        "name": "fitclams-test",
        "version": "1.0.0",
        "repo_id": "tester/fitclams-test",
        "seed": 1,
        "corpora": {"plays": {"path": "plays.txt", "language": "en"}},
        "families": [
            {
                "name": "fitclams",
                "corpus": "plays",
                "params": {
                    "selection": {"n_nouns": 3, "n_verbs": 3, "n_bins": 3, "n_objects": 1, "fill_empty": True}
                },
            }
        ],
    }
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def test_fitclams_configs_and_cached_rebuild(spec_path: Path, tmp_path: Path) -> None:
    events: list[str] = []
    spec = ReleaseSpec.load(spec_path)
    first = build_release(spec, tmp_path / "build", work_root=tmp_path / "work", on_event=events.append)
    manifest = json.loads((first.path / "provenance.json").read_text())
    names = [c["name"] for c in manifest["configs"]]
    assert names == [f"fitclams-plays-{p}" for p in PARADIGMS]
    for cfg in manifest["configs"]:
        assert cfg["rows"] > 0 and cfg["task"] == "minimal_pairs"
        assert cfg["roles"]["good_start"] == "good_start" and cfg["roles"]["group"] == "paradigm"
        assert dict(cfg["funnel"])["noun kept"] > 0 and cfg["bins"]
        assert "padovani2025childdirected" in cfg["citations"][0]
    assert not any("reusing" in e for e in events)

    events.clear()
    again = build_release(spec, tmp_path / "build2", work_root=tmp_path / "work", on_event=events.append)
    assert any("fitclams: reusing" in e for e in events)
    second = json.loads((again.path / "provenance.json").read_text())
    assert [c["content_fingerprint"] for c in second["configs"]] == [
        c["content_fingerprint"] for c in manifest["configs"]
    ]
