"""Resume and faults against the real vLLM CPU server: a killed server, a SIGKILLed client run,
unknown models, the CLI."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm import CachedLLM, GenRequest, SamplingParams
from corpusbench.llm.openai_backend import OpenAIBackend
from corpusbench.llm.server import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def reqs(n: int, max_tokens: int = 24) -> list[GenRequest]:
    return [
        GenRequest(
            id=f"q{i}",
            prompt=f"Write one short sentence that mentions the number {i}.",
            params=SamplingParams(max_tokens=max_tokens),
        )
        for i in range(n)
    ]


def rows(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        try:
            return con.execute("SELECT COUNT(*) FROM results WHERE status = 'ok'").fetchone()[0]
        except sqlite3.OperationalError:  # table not created yet
            return 0


def test_unknown_model_on_real_server(vllm_server) -> None:
    with pytest.raises(
        ConfigError, match=rf"unknown model 'meta-llama/Llama-3.1-8B-Instruct'.*{vllm_server.model}"
    ):
        OpenAIBackend(vllm_server.url, "meta-llama/Llama-3.1-8B-Instruct")


def test_sigkilled_run_resumes_without_repeating_calls(vllm_server, tmp_path) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"id": r.id, "prompt": r.prompt}) + "\n" for r in reqs(30)))
    db, out, report = tmp_path / "cache.sqlite", tmp_path / "out.jsonl", tmp_path / "report.json"
    cmd = [
        sys.executable,
        "-m",
        "corpusbench",
        "llm",
        "generate",
        "--prompts",
        str(prompts),
        "--llm-base-url",
        vllm_server.url,
        "--llm-cache",
        str(db),
        "--out",
        str(out),
        "--report",
        str(report),
        "--max-tokens",
        "24",
        "--concurrency",
        "2",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while rows(db) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, f"run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = rows(db)
    assert 5 <= done < 30 and not out.exists()  # finished calls are saved, no half-written output
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rep = json.loads(report.read_text())["report"]
    assert (rep["cache_hits"], rep["calls"], rep["ok"]) == (done, 30 - done, 30)
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in results] == [f"q{i}" for i in range(30)] and all(
        r["status"] == "ok" for r in results
    )


def test_server_killed_mid_run_then_resume_after_restart(vllm_server, tmp_path) -> None:
    db = tmp_path / "cache.sqlite"
    backend = OpenAIBackend(vllm_server.url, concurrency=2, max_retries=2, backoff=0.2)
    killed: list[int] = []

    def kill_after_six(done: int, total: int) -> None:
        if done >= 6 and not killed:
            killed.append(done)
            vllm_server.kill()

    llm = CachedLLM(backend, db)
    try:
        with pytest.raises(BackendError) as e:
            llm.generate(reqs(24), progress=kill_after_six)
        msg = str(e.value)
        assert vllm_server.url in msg and "stopped answering" in msg and "rerun" in msg
        saved = rows(db)
        assert saved >= 6 and llm.last.failures == 0  # nothing recorded as a per-item failure
    finally:
        vllm_server.restart()
    with CachedLLM(OpenAIBackend(vllm_server.url, concurrency=4), db) as llm:
        out = llm.generate(reqs(24))
        assert all(r.ok for r in out)
        assert (llm.last.cache_hits, llm.last.calls) == (saved, 24 - saved)


def test_cli_choose_writes_results_and_report(vllm_server, tmp_path) -> None:
    out, report = tmp_path / "out.jsonl", tmp_path / "report.json"
    args = [
        "llm",
        "choose",
        "Is water wet? Answer yes or no.",
        "Is fire cold? Answer yes or no.",
        "--options",
        "yes,no",
        "--llm-base-url",
        vllm_server.url,
        "--llm-cache",
        str(tmp_path / "c.sqlite"),
        "--out",
        str(out),
        "--report",
        str(report),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rows_ = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["choice"] in ("yes", "no") and r["path"] == "logprobs" for r in rows_] == [True, True]
    data = json.loads(report.read_text())
    assert data["report"]["calls"] == 2 and data["llm"]["model"] == vllm_server.model
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and json.loads(report.read_text())["report"]["cache_hits"] == 2


def test_cli_unreachable_server_exits_3_with_hint(tmp_path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    proc = subprocess.run(
        [sys.executable, "-m", "corpusbench", "llm", "ping", "--llm-base-url", url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 3
    err = " ".join(proc.stderr.split())
    assert url in err and "make llm-server" in err
