"""The ``frames`` release adapter through ``corpusbench release build`` of a small spec."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from corpusbench.cli import app

pytestmark = pytest.mark.slow


def _spec(folder: Path, tiny: dict[str, Path], **params: object) -> Path:
    spec = {
        "name": "frames-test",
        "version": "0.1.0",
        "repo_id": "tester/frames-test",
        "seed": 0,
        "corpora": {
            "train": {"path": str(tiny["train"]), "language": "en"},
            "test": {"path": str(tiny["test"]), "language": "en"},
        },
        "families": [{"name": "frames", "corpus": "test", "params": {"train": "train", **params}}],
    }
    path = folder / "frames-test.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def test_release_build_frames_sclusters(tiny: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    spec = _spec(tmp_path, tiny)
    res = runner.invoke(app, ["release", "build", str(spec), "--out", str(tmp_path / "build")])
    assert res.exit_code == 0, res.output
    build = tmp_path / "build" / "frames-test" / "0.1.0"
    manifest = json.loads((build / "provenance.json").read_text())
    (cfg,) = manifest["configs"]
    assert cfg["name"] == "frames-sclusters" and cfg["task"] == "other" and cfg["rows"] == 2
    funnel = dict(cfg["funnel"])
    assert funnel["S-clusters"] == 2 and funnel["frame types kept"] == 2
    assert "frank2009evaluating" in cfg["citations"][0]
    (data,) = list(build.rglob("*.parquet"))
    rows = pq.read_table(data).to_pylist()
    assert {r["frame_id"]: r["words"] for r in rows} == {"<s>|cat": ["the"], "the|sat": ["cat", "dog"]}

    again = runner.invoke(app, ["release", "build", str(spec), "--out", str(tmp_path / "build2")])
    assert again.exit_code == 0, again.output
    second = json.loads((tmp_path / "build2" / "frames-test" / "0.1.0" / "provenance.json").read_text())
    assert second["configs"][0]["content_fingerprint"] == cfg["content_fingerprint"]


def test_release_spec_errors(tiny: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        app, ["release", "build", str(_spec(tmp_path, tiny, bogus=1)), "--out", str(tmp_path / "b")]
    )
    assert res.exit_code == 2 and "bogus" in res.output
