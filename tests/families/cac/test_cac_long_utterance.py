"""`cac build --max-line-bytes N` beyond what spaCy parses (issue #42 item 6): one line, exit 2, nothing
written, instead of spaCy's E088 traceback (raising spaCy's limit is no remedy: its parser took 21 GB of
memory for a 1.26-million-character utterance)."""

from __future__ import annotations

from cac_helpers import chat
from typer.testing import CliRunner

from corpusbench.cli import app


def test_an_utterance_longer_than_spacy_parses_is_refused_in_one_line(tmp_path):
    long = "the dog and a cat " * 60_000  # 1,080,000 characters, under --max-line-bytes 3000000
    path = tmp_path / "long.cha"
    path.write_text(chat("MOT: the dog saw a cat .", "CHI: a dog .", f"MOT: {long}."), encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(
        app, ["cac", "build", str(path), "--out", str(out), "--max-line-bytes", "3000000"]
    )
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "E088" not in res.output
    [line] = [x for x in res.output.splitlines() if x.startswith("error:")]
    assert "long.cha: utterance 3 (MOT) has 1,080,000 characters, more than spaCy parses (1,000,000" in line
    assert not out.exists()
