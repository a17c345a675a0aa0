"""`corpusbench llm generate|choose`: a failed call is an error (exit 3, one line); answers are kept."""

from __future__ import annotations

import json

import pytest
from fake_openai_server import FakeOpenAI
from typer.testing import CliRunner

from corpusbench.cli import app


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(model="flaky") as f:
        yield f


@pytest.mark.parametrize("op", ["generate", "choose"])
def test_failed_call_exits_3_and_keeps_the_answers(fake, tmp_path, op) -> None:
    fake.reset()
    fake.script = {"broken": ["garbage"]}
    out = tmp_path / "answers.jsonl"
    args = [
        "llm",
        op,
        "fine",
        "broken",
        "--llm-backend",
        "openai",
        "--llm-base-url",
        fake.url,
        "--llm-model",
        "flaky",
    ]
    res = CliRunner().invoke(app, [*args, "--out", str(out), "--llm-cache", str(tmp_path / "cache.sqlite")])
    assert res.exit_code == 3, res.output
    assert "1 of 2 LLM calls failed" in res.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in rows] == ["ok", "error"]
    fake.reset()  # the server is fixed: the rerun sends only the failed call
    res = CliRunner().invoke(app, [*args, "--out", str(out), "--llm-cache", str(tmp_path / "cache.sqlite")])
    assert res.exit_code == 0, res.output
    assert fake.requests == 1
