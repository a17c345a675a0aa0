"""A reply that is not a well-formed answer is a failed call, never an answer (issue #42 item 2), and a
call is bounded as a whole (item 5): against ``FakeOpenAI`` (tests/fake_openai_server.py) answering
HTTP 200 with the body ``null``, an empty completion, NaN log-probs, an empty ``top_logprobs`` list,
or an answer trickled one byte every 0.5 s."""

from __future__ import annotations

import json
import math
import time

import pytest
from fake_openai_server import FakeOpenAI
from test_cache_disk_full import build
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap.calibration import CALIBRATION_SET
from corpusbench.llm import CachedLLM, ChoiceRequest, GenRequest
from corpusbench.llm.cache import FINAL, ResultCache, TooManyFailures, choice_key, gen_key
from corpusbench.llm.openai_backend import OpenAIBackend
from corpusbench.llm.records import ChoiceResult, FailureBudget, GenResult, result_to_dict

MALFORMED = ["null", "empty", "nan", "empty_top"]


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(model="fake", delay=0.5) as f:
        yield f


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    """Three calibration quadruplets as `ltswap judge` input (labels dropped): 12 yes/no questions."""
    path = tmp_path_factory.mktemp("items") / "items.jsonl"
    rows = [json.loads(line) for line in CALIBRATION_SET.read_text(encoding="utf-8").splitlines()[:3]]
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "keep"}) + "\n" for r in rows))
    return path


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def error_line(output: str) -> str:
    assert "Traceback" not in output, output
    [line] = [x for x in output.splitlines() if x.startswith("error:")]
    return line


def answers(cache) -> int:
    """Rows the cache would serve as answers."""
    counts = ResultCache(cache).counts()
    return sum(n for status, n in counts.items() if status in FINAL)


@pytest.mark.parametrize("mode", MALFORMED)
def test_judge_on_malformed_replies_exits_3_caches_no_answer_and_resumes(fake, items, tmp_path, mode):
    out, cache = tmp_path / "v.jsonl", tmp_path / "c.sqlite"
    fake.reset(mode)
    r = invoke("ltswap", "judge", items, "--out", out, "--llm-backend", "openai", "--llm-base-url", fake.url,
               "--llm-cache", cache, "--llm-retries", "0")  # fmt: skip
    assert r.exit_code == 3, r.output
    line = error_line(r.output)
    assert "LLM call(s) failed, more than the failure budget allows" in line, line
    assert ("not a JSON object" if mode == "null" else "malformed") in line, line
    assert not out.exists() and answers(cache) == 0  # no verdict, and nothing to serve on the rerun
    fake.reset("ok")  # the server is fixed: the rerun sends the calls and completes
    r = invoke("ltswap", "judge", items, "--out", out, "--llm-backend", "openai", "--llm-base-url", fake.url,
               "--llm-cache", cache)  # fmt: skip
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert fake.requests > 0 and len(rows) == 3 and all(x["margins"] for x in rows)


@pytest.mark.parametrize(("op", "mode"), [("generate", "null"), ("generate", "empty"), ("choose", "nan")])
def test_llm_command_on_a_malformed_reply_exits_3_and_resends_it(fake, tmp_path, op, mode):
    cache = tmp_path / "c.sqlite"
    args = ("llm", op, "Is it?", "--llm-backend", "openai", "--llm-base-url", fake.url, "--llm-cache", cache)
    args += ("--options", "yes,no") if op == "choose" else ()
    fake.reset(mode)
    r = invoke(*args)
    assert r.exit_code == 3, r.output
    assert "1 of 1 LLM calls failed" in error_line(r.output) and answers(cache) == 0
    fake.reset("ok")
    r = invoke(*args, "--out", tmp_path / "r.jsonl")
    assert r.exit_code == 0 and fake.requests == 1, r.output
    [row] = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert row["status"] == "ok" and (row["choice"] == "yes" if op == "choose" else row["text"])


def test_nan_and_empty_top_logprobs_are_failures_not_verdicts(fake, tmp_path) -> None:
    backend = OpenAIBackend(fake.url, timeout=5, max_retries=0)
    llm = CachedLLM(backend, tmp_path / "c.sqlite")
    for mode, why in (("nan", "log-prob nan"), ("empty_top", "empty top_logprobs")):
        fake.reset(mode)
        [r] = llm.choose([ChoiceRequest(id=mode, prompt=f"q {mode}", options=("yes", "no"))])
        assert (r.status, r.choice, llm.last.failures, llm.last.rejects) == ("error", None, 1, 0)
        assert why in r.error
    assert llm.cache.counts() == {"error": 2}


def test_an_older_cache_with_malformed_answers_is_asked_again(fake, tmp_path) -> None:
    """Rows an older version stored (an empty ``ok`` generation, an ``ok`` choice read from NaN log-probs,
    a reject of an empty reply) are misses, never served."""
    fake.reset("ok")
    backend = OpenAIBackend(fake.url, timeout=5, max_retries=0)
    gen = GenRequest(id="g", prompt="say something")
    lp = ChoiceRequest(id="c", prompt="yes or no?", options=("yes", "no"))
    rej = ChoiceRequest(id="r", prompt="yes or no, again?", options=("yes", "no"), method="generation")
    cache = ResultCache(tmp_path / "c.sqlite")
    poison = [
        (gen_key("fake", gen), "generate", GenResult(id="g", status="ok", text="")),
        (
            choice_key("fake", lp),
            "choose",
            ChoiceResult(id="c", status="ok", choice="yes", path="logprobs", logprobs=(-math.inf, -math.inf)),
        ),
        (choice_key("fake", rej), "choose", ChoiceResult(id="r", status="reject", path="generation")),
    ]
    for key, op, res in poison:
        cache.put(key, op, "fake", res.status, result_to_dict(res))
    llm = CachedLLM(backend, cache)
    [g] = llm.generate([gen])
    c, r = llm.choose([lp, rej])
    assert fake.requests == 3 and llm.report.cache_hits == 0
    assert g.text == "echo say something" and c.choice == "yes" and r.status == "reject" and r.text
    llm.generate([gen])  # the well-formed answers replaced the old rows
    assert llm.last.cache_hits == 1 and fake.requests == 3


def test_a_trickling_server_is_cut_at_the_timeout(fake, tmp_path) -> None:
    """One byte every 0.5 s never trips a timeout between bytes; the deadline covers the whole call."""
    fake.reset("trickle")
    backend = OpenAIBackend(fake.url, timeout=1.5, max_retries=0)
    llm = CachedLLM(backend, tmp_path / "c.sqlite", FailureBudget())
    t0 = time.monotonic()
    with pytest.raises(TooManyFailures, match=r"timed out after 1\.5s"):
        llm.generate([GenRequest(id="t", prompt="slowly")])
    assert time.monotonic() - t0 < 5  # the whole answer would take over 100 s
    assert llm.cache.counts() == {"error": 1}


def test_judge_on_a_trickling_server_exits_3_within_seconds(fake, items, tmp_path) -> None:
    fake.reset("trickle")
    t0 = time.monotonic()
    r = invoke("ltswap", "judge", items, "--out", tmp_path / "v.jsonl", "--llm-backend", "openai",
               "--llm-base-url", fake.url, "--llm-cache", tmp_path / "c.sqlite",
               "--llm-timeout", "1.5")  # fmt: skip
    assert r.exit_code == 3, r.output
    assert "timed out after 1.5s (tried twice)" in error_line(r.output)
    assert time.monotonic() - t0 < 15


def test_build_on_empty_replies_exits_3_and_the_rerun_completes(fake, ruth_stats, tmp_path) -> None:
    """`ltswap build` used to store every empty reply as an `ok` answer (and `release build` then failed
    on "every subtask is empty", however healthy the server became)."""
    out, cache = tmp_path / "lt", tmp_path / "lt.sqlite"
    fake.reset("empty")
    r = build(fake, ruth_stats, out, cache, tmp_path)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "malformed answer: empty answer" in error_line(r.stderr)
    assert not (out / "manifest.json").exists() and answers(cache) == 0
    fake.reset("ok")
    r = build(fake, ruth_stats, out, cache, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads((out / "manifest.json").read_text())["llm_report"]
    assert report["failures"] == 0 and report["calls"] == fake.requests > 0
