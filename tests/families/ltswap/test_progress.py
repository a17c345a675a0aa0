"""Progress of long LLM work (``corpusbench.progress_llm``): off a terminal, one plain line every
``interval`` seconds and a last one at the end, with no ANSI codes or live-render carriage returns;
``ltswap build`` and ``ltswap judge`` report through it (FakeOpenAI, tests/fake_openai_server.py)."""

from __future__ import annotations

import io
import json
import re

import pytest
from fake_openai_server import FakeOpenAI
from rich.console import Console
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.llm.records import GenResult
from corpusbench.progress_llm import LLMProgress

GARBAGE = re.compile(r"\x1b|\r")  # ANSI escapes (colour, cursor moves) and live-render carriage returns


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_plain_lines_every_interval_and_a_last_one():
    stream, clock = io.StringIO(), Clock()
    console = Console(file=stream, width=160)
    assert not console.is_terminal
    with LLMProgress(console, "ltswap build", interval=30, clock=clock) as p:
        p("round", 1, 8)
        p("generate", 0, 100)
        for i in range(40):  # 40 answers over 40 s: one line at 30 s
            clock.t += 1
            p.answer(GenResult(id=str(i), status="ok", text="x", tokens_out=5))
            p("generate", i + 1, 100)
        p("cells wordswap", 2, 6)
        p("round", 2, 8)
        clock.t += 30
        p("filter", 3, 10)  # a second line, at 70 s
    text = stream.getvalue()
    lines = text.splitlines()
    assert not GARBAGE.search(text), repr(text)
    assert len(lines) == 3, lines
    assert lines[0].startswith("ltswap build 30 s · round 1 (of at most 8) · generate 29/100")
    assert "requests 30 sent · 150 tokens generated · 1.03 req/s · stage ETA 71 s" in lines[0]
    assert "round 2 (of at most 8) · filter 3/10 · cells wordswap 2/6 · requests 40 sent" in lines[1]
    assert lines[2] == "ltswap build: done in 70 s · requests 40 sent · 200 tokens generated · 0.58 req/s"


def test_quiet_when_nothing_was_asked():
    stream = io.StringIO()
    with LLMProgress(Console(file=stream), "ltswap plan", interval=30) as p:
        p("candidates", 5, 10)
    assert stream.getvalue() == ""


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI() as f:
        yield f


def test_ltswap_build_off_a_terminal_logs_progress_lines(fake, slice_stats, tmp_path, monkeypatch):
    monkeypatch.setenv("CORPUSBENCH_PROGRESS_INTERVAL", "0")  # a line at every update
    fake.reset("ok")
    args = [
        "ltswap", "build", "unused", "--stats", slice_stats.path, "--out", tmp_path / "lt",
        "--llm-backend", "openai", "--llm-base-url", fake.url, "--llm-retries", "0", "--per-cell", "1",
        "--max-per-bin", "2", "--subtasks", "wordswap,inflswap",
    ]  # fmt: skip
    r = CliRunner().invoke(app, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    assert not GARBAGE.search(r.output), repr(r.output[:500])
    lines = [x for x in r.output.splitlines() if x.startswith("ltswap build ")]
    assert any("round 1 (of at most 8) · generate " in x for x in lines), lines[:5]
    assert any("cells inflswap " in x and "wordswap " in x for x in lines), lines[-5:]
    done = [x for x in r.output.splitlines() if x.startswith("ltswap build: done in")]
    assert len(done) == 1 and f"requests {fake.requests:,} sent" in done[0], done


def test_ltswap_judge_reports_its_requests(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("CORPUSBENCH_PROGRESS_INTERVAL", "0")
    fake.reset("ok")
    item = {
        "id": "q1", "subtask": "inflswap", "w1": "dog", "w2": "dogs", "s1_good": "A dog barks .",
        "s2_good": "Two dogs bark .", "s1_bad": "A dogs barks .", "s2_bad": "Two dog bark .",
    }  # fmt: skip
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(item) + "\n")
    args = ["ltswap", "judge", items, "--out", tmp_path / "v.jsonl", "--llm-backend", "openai",
            "--llm-base-url", fake.url, "--llm-cache", tmp_path / "c.sqlite"]  # fmt: skip
    r = CliRunner().invoke(app, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    assert not GARBAGE.search(r.output)
    assert "ltswap judge 0 s · judge " in r.output
    assert f"ltswap judge: done in 0 s · requests {fake.requests} sent" in r.output


def test_live_display_on_a_terminal_renders_the_cells():
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=100)
    with LLMProgress(console, "ltswap build", interval=30) as p:
        p("round", 2, 8)
        p("filter", 3, 10)
        p("cells agrswap", 5, 6)
        p.answer(GenResult(id="a", status="ok", text="x", tokens_out=5))
        text = "".join(seg.text for seg in console.render(p.render()))
    assert "round" in text and "filter" in text and "cells agrswap" in text and "5/6" in text
