"""``--help`` at COLUMNS=60 shows every option name whole; a wide terminal keeps rich's panels."""

from __future__ import annotations

import os
import subprocess
import sys

NAMES = (
    "--llm-model",
    "--llm-base-url",
    "--max-llm-failures",
    "--confirm-inflections",
    "--no-confirm-inflections",
)


def _help(columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    cmd = [sys.executable, "-m", "corpusbench", "ltswap", "build", "--help"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=True)
    return r.stdout


def test_narrow_help_cuts_no_option_name():
    text = _help(60)
    assert "…" not in text
    assert all(n in text for n in NAMES)
    assert max(len(line) for line in text.splitlines()) <= 60


def test_wide_help_keeps_the_rich_panels():
    text = _help(120)
    assert "╭─ Options" in text and all(n in text for n in NAMES)


def test_writer_prompt_help_lists_every_writer_prompt():
    from typer.testing import CliRunner

    from corpusbench.cli import app
    from corpusbench.families.ltswap.prompting import WRITERS

    text = " ".join(
        CliRunner().invoke(app, ["ltswap", "build", "--help"], env={"COLUMNS": "400"}).output.split()
    )
    assert "v4 (word_sentence_system.v4 + word_sentence.v3, with corpus sentences)" in text
    assert all(f"{v} (" in text for v in WRITERS)
