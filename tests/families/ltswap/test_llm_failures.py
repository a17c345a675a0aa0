"""A failing LLM is an error, never a result: `ltswap judge` and `ltswap build` against ``FakeOpenAI``
(tests/fake_openai_server.py), which answers 500, garbage, empty choices, no log-probs or slowly."""

from __future__ import annotations

import contextlib
import json
import shutil

import pytest
from fake_openai_server import FakeOpenAI
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap.calibration import CALIBRATION_SET

FAULTS = ["500", "garbage", "no_choices", "no_logprobs"]


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(delay=5.0) as f:
        yield f


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    """Three calibration quadruplets as `ltswap judge` input (labels dropped)."""
    path = tmp_path_factory.mktemp("items") / "items.jsonl"
    rows = [json.loads(line) for line in CALIBRATION_SET.read_text(encoding="utf-8").splitlines()[:3]]
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "keep"}) + "\n" for r in rows))
    return path


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def error_lines(output: str) -> list[str]:
    assert "Traceback" not in output, output
    return [line for line in output.splitlines() if line.startswith("error:")]


def judge(fake, items, out, cache, *extra):
    return invoke(
        "ltswap", "judge", items, "--out", out, "--llm-backend", "openai", "--llm-base-url", fake.url,
        "--llm-cache", cache, "--llm-retries", "0", *extra,
    )  # fmt: skip


def build(fake, stats, out, *extra):
    return invoke(
        "ltswap", "build", "unused", "--stats", stats.path, "--out", out, "--llm-backend", "openai",
        "--llm-base-url", fake.url, "--max-per-bin", "1", "--rules", "SVSHORT", "--llm-retries", "0", *extra,
    )  # fmt: skip


@pytest.mark.parametrize("mode", FAULTS)
def test_judge_on_a_failing_llm_exits_3_with_one_line_and_writes_nothing(fake, items, tmp_path, mode):
    fake.reset(mode)
    r = judge(fake, items, tmp_path / "v.jsonl", tmp_path / "c.sqlite")
    assert r.exit_code == 3, r.output
    [line] = error_lines(r.output)
    assert "LLM call(s) failed, more than the failure budget allows (0 of 12 requests" in line
    assert "--max-llm-failures" in line and "rerun the same command to resume" in line
    assert not (tmp_path / "v.jsonl").exists()


def test_judge_failure_budget_then_resume(fake, items, tmp_path):
    fake.reset("500")
    out, cache = tmp_path / "v.jsonl", tmp_path / "c.sqlite"
    r = judge(fake, items, out, cache, "--max-llm-failures", "100%")
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {x["reason"] for x in rows} == {"filter_llm_error"} and "LLM call(s) failed" in r.output
    assert all(x["filter_rule"] == "pointwise" and "rule" not in x for x in rows)
    fake.reset("ok")  # the server is back: the failures were not cached as answers
    r = judge(fake, items, out, cache)
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert fake.requests > 0 and all(x["margins"] is not None for x in rows)


def test_judge_timeout_option(fake, items, tmp_path):
    fake.reset("slow")  # answers after 5 s
    r = invoke(
        "ltswap", "judge", items, "--out", tmp_path / "v.jsonl", "--llm-backend", "openai", "--llm-base-url",
        fake.url, "--llm-cache", tmp_path / "c.sqlite", "--llm-timeout", "0.5",
    )  # fmt: skip
    assert r.exit_code == 3, r.output
    [line] = error_lines(r.output)
    assert "timed out after 0.5s (tried twice)" in line and "--llm-timeout" in line
    assert max(fake.hits.values()) == 2  # default 3 retries, but a timed-out call is sent once more only


@pytest.mark.parametrize("n", [1, 3])
def test_judge_sends_at_most_llm_concurrency_requests_at_once(items, tmp_path, n):
    with FakeOpenAI(mode="slow", delay=0.2) as own:  # its own server: no request of another test in flight
        r = invoke(
            "ltswap", "judge", items, "--out", tmp_path / "v.jsonl", "--llm-backend", "openai",
            "--llm-base-url", own.url, "--llm-cache", tmp_path / "c.sqlite", "--llm-concurrency", str(n),
            "--llm-retries", "0",
        )  # fmt: skip
        assert r.exit_code == 0, r.output
        assert own.requests > n and own.most_in_flight == n
    bad = invoke("ltswap", "judge", items, "--out", tmp_path / "v.jsonl", "--llm-concurrency", "0")
    assert bad.exit_code == 2
    [line] = error_lines(bad.output)
    assert "--llm-concurrency must be 1 or more (got 0)" in line


def test_judge_input_errors_are_one_line(items, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(items.read_bytes() + b'{"id": "caf\xe9"}\n')
    r = invoke("ltswap", "judge", bad, "--out", tmp_path / "v.jsonl", "--llm-backend", "scripted")
    assert r.exit_code == 2
    [line] = error_lines(r.output)
    assert f"{bad}:4: not UTF-8 text (byte 0xe9 at offset" in line
    r = invoke("ltswap", "judge", items, "--out", tmp_path / "v.jsonl", "--max-llm-failures", "lots")
    assert r.exit_code == 2 and "--max-llm-failures 'lots'" in r.output


def test_build_on_a_failing_llm_exits_3_keeps_answers_and_leaves_no_run(fake, slice_stats, tmp_path):
    out = tmp_path / "lt"
    fake.reset("ok")
    fake.mode = "500"
    r = build(fake, slice_stats, out)
    assert r.exit_code == 3, r.output
    [line] = error_lines(r.output)
    assert "LLM call(s) failed" in line and str(out / "llm-cache.sqlite") in line
    assert not (out / "manifest.json").exists() and (out / "llm-cache.sqlite").exists()
    fake.reset("ok")  # fixed: the rerun asks again (nothing failed was cached as an answer)
    r = build(fake, slice_stats, out)
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["llm_report"]["failures"] == 0 and m["llm_report"]["calls"] == fake.requests > 0
    assert m["llm"]["max_failures"] == "0" and m["llm"]["timeout_s"] == 180.0


def test_build_failure_budget_is_recorded(fake, slice_stats, tmp_path):
    out = tmp_path / "lt"
    fake.reset("no_logprobs")
    r = build(fake, slice_stats, out, "--max-llm-failures", "1.0", "--subtasks", "inflswap,agrswap")
    assert r.exit_code == 3, r.output  # "1.0" is a count of one
    r = build(
        fake, slice_stats, out, "--max-llm-failures", "100%", "--subtasks", "inflswap,agrswap",
        "--llm-timeout", "30",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["llm"]["max_failures"] == "100%" and m["llm"]["timeout_s"] == 30.0
    assert m["llm_report"]["failures"] > 0 and "allowed by --max-llm-failures 100%" in r.output
    reasons = {d["reason"] for d in m["drop_reasons"]}
    assert "confirm_llm_error" in reasons and "confirm_no_answer" not in reasons
    assert "wordswap" not in r.output  # a subtask not asked for is not reported as empty


def test_corrupt_stats_leave_no_cache_in_out(fake, slice_stats, tmp_path):
    stats = tmp_path / "stats"
    shutil.copytree(slice_stats.path, stats)
    for f in stats.glob("*.parquet"):
        f.write_bytes(b"not a parquet file")
    out = tmp_path / "lt"
    r = invoke(
        "ltswap", "build", "unused", "--stats", stats, "--out", out, "--llm-backend", "openai",
        "--llm-base-url", fake.url,
    )  # fmt: skip
    assert r.exit_code != 0
    assert not out.exists()  # nothing half-written: the stats were read before the LLM cache was made


def test_dead_server_hint_names_the_build_s_own_server(slice_stats, tmp_path, monkeypatch):
    """A server the build started itself: the error points to its log, not to `make llm-server`."""
    import corpusbench.llm.server as server

    @contextlib.contextmanager
    def fake_vllm(spec, log):
        with FakeOpenAI(model=spec.name, mode="drop", port=spec.port):
            yield

    monkeypatch.setattr(server, "VLLMServer", fake_vllm)
    out = tmp_path / "lt"
    r = invoke(
        "ltswap", "build", "unused", "--stats", slice_stats.path, "--out", out, "--llm-model", "fake-model",
        "--max-per-bin", "1", "--rules", "SVSHORT", "--subtasks", "agrswap", "--llm-retries", "0",
    )  # fmt: skip
    assert r.exit_code == 3, r.output
    [line] = error_lines(r.output)
    assert "results so far are saved" in line and str(out / "vllm-server.log") in line
    assert "make llm-server" not in line
