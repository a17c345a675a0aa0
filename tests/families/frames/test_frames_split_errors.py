"""`frames split` on bad input: one line, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(3):
        (corpus / f"{i}.txt").write_text(f"Line {i}.\n")
    return corpus


@pytest.mark.parametrize("case", ["symlink-loop", "out-is-a-file", "out-under-a-file"])
def test_split_errors_are_one_line(tmp_path: Path, case: str) -> None:
    corpus = _corpus(tmp_path)
    out = tmp_path / "split"
    if case == "symlink-loop":
        (corpus / "x.txt").symlink_to(corpus / "y.txt")
        (corpus / "y.txt").symlink_to(corpus / "x.txt")
        expected = "x.txt: cannot read (Too many levels of symbolic links)"
    else:
        (tmp_path / "taken").write_text("a file")
        out = tmp_path / "taken" if case == "out-is-a-file" else tmp_path / "taken" / "split"
        expected = "taken: is a file, not a folder"
    res = CliRunner().invoke(app, ["frames", "split", str(corpus), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert expected in res.output and "Traceback" not in res.output
    assert not (tmp_path / "split").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["corpus", *(["taken"] if "out" in case else [])]
    )
