"""``ltswap build --plan``: a pilot on the corpus's words through the run's cache (FakeOpenAI,
tests/fake_openai_server.py), then the estimate table; nothing but the LLM cache is written."""

from __future__ import annotations

import re

import pytest
from fake_openai_server import FakeOpenAI
from typer.testing import CliRunner

from corpusbench.cli import app


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(delay=5.0) as f:
        yield f


def plan(fake, stats, out, *extra):
    args = [
        "ltswap", "build", "unused", "--stats", stats.path, "--out", out, "--llm-backend", "openai",
        "--llm-base-url", fake.url, "--llm-retries", "0", "--plan", *extra,
    ]  # fmt: skip
    return CliRunner().invoke(app, [str(a) for a in args])


def _total(output: str) -> list[int]:
    """The total row's values (the pilot's value of each range): candidates, writer, judge, tokens, kept."""
    [line] = [x for x in output.splitlines() if "│ total" in x]
    return [int(re.match(r"\s*([\d,]+)", c).group(1).replace(",", "")) for c in line.split("│")[2:7]]


def test_plan_runs_a_pilot_and_writes_only_the_cache(fake, slice_stats, tmp_path):
    fake.reset("ok")
    out = tmp_path / "lt"
    r = plan(fake, slice_stats, out, "--per-cell", "10")
    assert r.exit_code == 0, r.output
    assert "LT-Swap plan (--per-cell 10" in r.output and "wordswap" in r.output
    sent = int(re.search(r"pilot on this corpus: [\d,]+ requests \(([\d,]+) sent now", r.output).group(1))
    assert 0 < sent == fake.requests <= 100  # a few dozen calls, no more
    assert "2 generated tokens a sentence" in r.output  # the fake's usage
    assert sorted(p.name for p in out.iterdir()) == ["llm-cache.sqlite"]
    _, writer, judge, tokens, _kept = _total(r.output)
    assert writer > 0 and judge > 0 and tokens >= 2 * writer  # agreement: two sentences
    fake.reset("ok")
    small = plan(fake, slice_stats, tmp_path / "small", "--max-per-bin", "1")
    assert small.exit_code == 0, small.output
    assert "--max-per-bin 1" in small.output
    assert _total(small.output)[1] < writer  # one candidate per group asks for fewer requests


def test_plan_on_a_failing_backend_is_one_line_exit_3(fake, slice_stats, tmp_path):
    fake.reset("500")
    r = plan(fake, slice_stats, tmp_path / "lt", "--per-cell", "2")
    assert r.exit_code == 3, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert "Traceback" not in r.output and len(lines) == 1, r.output
    assert "LLM call(s) failed, more than the failure budget allows" in lines[0], lines
