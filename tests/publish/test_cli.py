"""``corpusbench release build`` through the real entry point: exit codes, one-line errors, overrides."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli, write_spec


def test_build_command_with_overrides(tmp_path: Path) -> None:
    spec = write_spec(tmp_path)
    done = run_cli(
        "release",
        "build",
        str(spec),
        "--out",
        str(tmp_path / "out"),
        "--set",
        "version=1.2.3",
        "--set",
        "families.fixture.params.max_pairs=1",
    )
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "out" / "test-pairs" / "1.2.3"
    manifest = json.loads((folder / "provenance.json").read_text())
    assert manifest["release"]["tag"] == "v1.2.3" and {c["rows"] for c in manifest["configs"]} == {1}
    assert "agreement" in done.stdout and "1/6" in done.stdout  # kept/read column of the funnel


def test_bad_spec_is_one_line_exit_2(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, version="1.0")
    done = run_cli("release", "build", str(spec), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "version '1.0' is not a semantic version" in done.stderr
    assert not (tmp_path / "out").exists()


def test_push_of_a_folder_that_is_not_a_build(tmp_path: Path) -> None:
    done = run_cli("release", "push", str(tmp_path), "--dry-run")
    assert done.returncode == 2 and "not a release build folder" in done.stderr
