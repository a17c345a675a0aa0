"""A SIGTERMed ``corpusbench llm generate --llm-backend vllm-engine`` stops in order (exit 143, finished
calls cached) and leaves nothing of its in-process engine: no process of the worker's tree and no
/dev/shm/psm_* segment. One engine start."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from orphans import ROOT, kill_and_check, leaked_segments, mapped_segments, psm_segments, tree_of, wait_until

pytestmark = pytest.mark.slow


def cached(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            return con.execute("SELECT COUNT(*) FROM results WHERE status = 'ok'").fetchone()[0]
    except sqlite3.Error:  # not created yet
        return 0


def test_sigtermed_engine_run_stops_in_order_and_leaves_nothing(model_dir, vllm_py, tmp_path) -> None:
    prompts, db, out = tmp_path / "prompts.jsonl", tmp_path / "cache.sqlite", tmp_path / "out.jsonl"
    lines = (json.dumps({"id": f"q{i}", "prompt": f"Count from {i} to {i + 40}."}) for i in range(1024))
    prompts.write_text("\n".join(lines) + "\n")
    before = psm_segments()
    cmd = [sys.executable, "-m", "corpusbench", "llm", "generate", "--llm-backend", "vllm-engine"]
    cmd += ["--llm-model", str(model_dir), "--vllm-python", str(vllm_py), "--prompts", str(prompts)]
    cmd += ["--llm-cache", str(db), "--out", str(out), "--max-tokens", "16"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(lambda: cached(db) > 0, 600, "the first answers", proc)  # mid-run
        tree = tree_of(proc, 2, 60, "the engine's processes")  # worker, engine core (+ guard)
        mapped = mapped_segments(tree)
        code = kill_and_check(proc, signal.SIGTERM, tree)
    finally:
        proc.kill()
    assert code == 128 + signal.SIGTERM, proc.stdout.read()[-2000:]
    assert 0 < cached(db) < 1024 and not out.exists()  # finished calls kept, nothing half-written
    assert not mapped & psm_segments(), "the engine's shared memory was left behind"
    assert not leaked_segments(before), "new /dev/shm/psm_* segments that no process maps"
