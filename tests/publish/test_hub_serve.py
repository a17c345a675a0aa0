"""`make hub`: the stand-in serves a build folder pushed at start, and the line it prints loads the data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_serve_pushed_build_and_the_printed_line_works(built: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env["HF_HOME"] = str(tmp_path / "hf-home")  # the printed line uses the user's default caches
    serve = subprocess.Popen(
        [sys.executable, "-m", "tests.hubserver", "--push", str(built), "--repo-id", "tester/served"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serve.stdout is not None
        lines = [serve.stdout.readline(), serve.stdout.readline()]
        assert lines[0].startswith("serving tester/served v0.1.0"), lines
        line = lines[1].strip()
        assert line.startswith("HF_ENDPOINT=http://127.0.0.1:") and 'revision="v0.1.0"' in line
        done = subprocess.run(
            line, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert "num_rows" in done.stdout
    finally:
        serve.terminate()
        serve.wait(timeout=30)
