"""``eval run`` as a process ends without the interpreter's teardown once its files are written (#39)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def test_eval_run_process_exits_fast_with_everything_written_and_flushed(tiny_dir, tmp_path):
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(
        json.dumps({"sentence_good": "The cat is here.", "sentence_bad": "The cat are here."}) + "\n"
    )
    cmd = [sys.executable, "-m", "corpusbench", "eval", "run", "--dataset", str(pairs)]
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    done = subprocess.run(
        [*cmd, "--model", str(tiny_dir["gpt2"]), "--out", str(tmp_path / "o")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and "time:" in done.stdout  # flushed before the process ended
    assert json.loads((tmp_path / "o" / "results.json").read_text())["n_pairs"] == 1
    bad = subprocess.run(
        [*cmd, "--model", str(tmp_path / "nope"), "--out", str(tmp_path / "o2")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "error:" in bad.stderr and not (tmp_path / "o2").exists()


def test_eval_run_under_cprofile_keeps_the_teardown_so_the_profile_is_written(tiny_dir, tmp_path):
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(
        json.dumps({"sentence_good": "The cat is here.", "sentence_bad": "The cat are here."}) + "\n"
    )
    prof = tmp_path / "run.prof"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "corpusbench", "eval", "run"]
    cmd += ["--dataset", str(pairs), "--model", str(tiny_dir["gpt2"]), "--out", str(tmp_path / "o")]
    done = subprocess.run(cmd, env=dict(os.environ, HF_HUB_OFFLINE="1"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert prof.is_file() and prof.stat().st_size > 0  # written at teardown, which fast exit would skip
