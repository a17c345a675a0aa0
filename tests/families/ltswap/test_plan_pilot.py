"""``--plan``'s pilot: a few dozen writer and judge calls on the corpus's own words, through the run's cache,
so the real run sends none of them again; its shares give the estimate as a range."""

from __future__ import annotations

import json
import re

import pytest
from fake_openai_server import FakeOpenAI
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap import sizing
from corpusbench.families.ltswap.pipeline import LtswapParams, plan_ltswap, run_ltswap
from corpusbench.llm.cache import CachedLLM
from tests.families.ltswap.test_pipeline import RuleLLM

PARAMS = LtswapParams(per_cell=2, max_per_bin=4, rules=("SVSHORT", "DET"), agreement_samples=1, seed=0)


def test_the_real_run_sends_nothing_the_pilot_sent_judge_included(slice_stats, tmp_path):
    plan = plan_ltswap(slice_stats, PARAMS)
    pilot_backend = RuleLLM()
    priced = sizing.price(plan, CachedLLM(pilot_backend, tmp_path / "c.sqlite"), PARAMS)
    p = priced.pilot
    asked = set(pilot_backend.calls)
    assert 20 <= p.sent == len(pilot_backend.calls) <= 100  # a few dozen calls
    assert 0 < p.kept <= p.judged  # drafts were judged: the judge's calls are among the pilot's
    assert all(n > 0 for _, n in p.sentences.values()) and priced.timing.writer_s >= 0

    run_backend = RuleLLM()  # the real run on the pilot's cache
    run_ltswap(slice_stats, CachedLLM(run_backend, tmp_path / "c.sqlite"), PARAMS, tmp_path / "lt")
    assert not asked & set(run_backend.calls)
    fresh = RuleLLM()  # the same run on an empty cache: it needs what the pilot asked (the reuse is real)
    run_ltswap(slice_stats, CachedLLM(fresh, tmp_path / "fresh.sqlite"), PARAMS, tmp_path / "lt2")
    needed = asked & set(fresh.calls)
    assert {q for op, q in asked if op == "generate"} <= {q for _, q in needed}  # every sentence it wrote
    assert len(needed) >= 0.8 * len(asked)  # and most judge prompts (a draft may pair differently)


def test_the_range_brackets_the_pilots_value(slice_stats, tmp_path):
    plan = plan_ltswap(slice_stats, PARAMS)
    priced = sizing.price(plan, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS)
    total = {end: sum(r.writer + r.judge for r in rows) for end, rows in priced.rows.items()}
    assert min(total.values()) <= total["mid"] <= max(total.values())
    lo, mid, hi = (priced.pilot.rates(e) for e in sizing.ENDS)
    for s in PARAMS.subtasks:
        assert lo.sentence[s] <= mid.sentence[s] <= hi.sentence[s]


def test_the_pilot_drops_what_the_runs_human_filter_drops(slice_stats, tmp_path, monkeypatch):
    """With ``--drop-labelled`` the pilot's drafts go through the same human filter as the run's: a kept
    quadruplet whose pair a labeller marked not valid is dropped before the judge, not judged."""
    from corpusbench.families.ltswap import pipeline
    from corpusbench.families.ltswap.validity import label_filter

    seen = []
    real = pipeline._attempt
    monkeypatch.setattr(pipeline, "_attempt", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    plan = plan_ltswap(slice_stats, PARAMS)
    first = sizing.price(plan, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS).pilot
    q = next(q for qs in seen[-1].quads.values() for q in qs)
    row = {"subtask": q.subtask, "w1": q.w1, "w2": q.w2, "s1_good": q.s1_good, "s1_bad": q.s1_bad}
    row |= {"s2_good": q.s2_good, "s2_bad": q.s2_bad, "labels": ["invalid", "valid"], "keep": False}
    (tmp_path / "labels.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    labelled = label_filter([tmp_path / "labels.jsonl"])
    again = sizing.price(plan, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS, labelled=labelled).pilot
    funnel = seen[-1].funnel
    assert sum(n for (_s, _b, r), n in funnel.drops.items() if r == "labelled_not_valid") == 1
    assert q not in [x for qs in seen[-1].quads.values() for x in qs]
    assert again.judged == first.judged - 1 and again.kept == first.kept - 1


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI() as f:
        yield f


def test_cli_plan_then_build_sends_no_pilot_request_again(fake, slice_stats, tmp_path):
    common = [
        "ltswap", "build", "unused", "--stats", slice_stats.path, "--llm-backend", "openai",
        "--llm-base-url", fake.url, "--llm-retries", "0", "--per-cell", "1", "--max-per-bin", "2",
    ]  # fmt: skip
    fake.reset("ok")
    r = CliRunner().invoke(app, [str(a) for a in [*common, "--out", tmp_path / "lt", "--plan"]])
    assert r.exit_code == 0, r.output
    assert re.search(r"pilot on this corpus: \d+ requests \(\d+ sent now", r.output)
    assert "Sentences passing the checks: wordswap 0/" in r.output  # the fake echoes: nothing passes
    pilot = set(fake.hits)
    assert pilot
    fake.reset("ok")
    r = CliRunner().invoke(app, [str(a) for a in [*common, "--out", tmp_path / "lt"]])
    assert r.exit_code == 0, r.output
    assert not pilot & set(fake.hits)  # the run found every pilot answer in its cache
    fake.reset("ok")
    r = CliRunner().invoke(app, [str(a) for a in [*common, "--out", tmp_path / "fresh"]])
    assert r.exit_code == 0, r.output
    assert pilot <= set(fake.hits)  # and it needed every one of them
