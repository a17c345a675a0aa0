"""``ltswap build`` writes ``rejected_drafts.jsonl``: exactly the drafts the judge judged and dropped (not
those that failed the checks, not those left unjudged in a full cell), in the format ``corpusbench
review`` reads, byte-identical when built again from the cache."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap import pipeline
from corpusbench.families.ltswap.filtering import JUDGE_DROPS
from corpusbench.families.ltswap.pipeline import LtswapParams, run_ltswap
from corpusbench.llm import api
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.scripted import ScriptedBackend
from corpusbench.review.items import JUDGE_KEPT, JUDGE_REJECTED, load_source, pair_fingerprint
from tests.families.ltswap.test_pipeline import RuleLLM

FIRST, SECOND, SILENT = 0, 1, 2  # the judge fails the first pair, the second pair, or names no option


def fate(draft_id: str) -> int:
    """What the scripted judge does with a draft: a seeded bucket of its id (3 and 4: keeps it)."""
    return int(hashlib.sha256(draft_id.encode()).hexdigest(), 16) % 5


class Picky(RuleLLM):
    """``RuleLLM``'s writer, and a pointwise judge that, by ``fate`` of the draft, rejects its first
    minimal pair, its second, or answers nothing (no option among the top tokens, nor in the text)."""

    def generate(self, reqs, on_result=None):
        if reqs and all(r.id.startswith("judge:") for r in reqs):  # the fallback of a silent judge
            return ScriptedBackend.generate(self, reqs, on_result)
        return super().generate(reqs, on_result)

    def answer_top_tokens(self, reqs, k, on_item=None):
        for r in reqs:
            if r.id.startswith("lemma:"):
                self.top[r.prompt] = [("yes", -0.1), ("no", -2.3)]
                continue
            assert r.id.startswith("judge:pointwise:"), r.id
            draft, n = r.id.split(":", 2)[2].rsplit(":", 1)
            good = int(n) % 2 == 0  # sentences 0, 2 are good, 1, 3 swapped
            f = fate(draft)
            if f == SILENT:
                self.top.pop(r.prompt, None)
                continue
            if (f == FIRST and int(n) < 2) or (f == SECOND and int(n) >= 2):
                good = not good
            self.top[r.prompt] = [("yes", -0.1), ("no", -2.5)] if good else [("no", -0.1), ("yes", -2.5)]
        return ScriptedBackend.answer_top_tokens(self, reqs, k, on_item)


class Verdicts:
    """Records the judge's verdicts of the run's last pass (``judge_to_fill``'s items and answers)."""

    def __init__(self, monkeypatch):
        self.last = None
        real = pipeline.judge_to_fill

        def recording(llm, items, *args, **kw):
            verdicts = real(llm, items, *args, **kw)
            self.last = list(zip(items, verdicts, strict=True))
            return verdicts

        monkeypatch.setattr(pipeline, "judge_to_fill", recording)


def _build(stats, out, *args):
    r = CliRunner().invoke(
        app,
        ["ltswap", "build", "x", "--stats", str(stats.path), "--out", str(out), "--llm-backend", "scripted",
         "--max-per-bin", "2", "--rules", "SVSHORT,DET", *args],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return out


def _rows(out):
    return [json.loads(line) for line in (out / "rejected_drafts.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def built(slice_stats, tmp_path_factory):
    """``ltswap build`` with the picky judge (the CLI's scripted backend), and its last pass's verdicts."""
    out = tmp_path_factory.mktemp("rejected") / "lt"
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(api.BACKENDS, "scripted", f"{__name__}:Picky")
        verdicts = Verdicts(mp)
        _build(slice_stats, out)
    return out, verdicts.last


def test_the_file_holds_exactly_the_judged_and_dropped_drafts(built):
    out, verdicts = built
    rows = _rows(out)
    # a draft whose good sentence a kept one already holds is not judged (sentence_reused, #37)
    dropped = [(it, v) for it, v in verdicts if not v.keep and v.reason != "sentence_reused"]
    assert dropped and len(dropped) < len(verdicts)
    assert sorted((r["id"], r["s1_good"], r["s2_good"], r["s1_bad"], r["s2_bad"]) for r in rows) == sorted(
        (it.id, it.s1_good, it.s2_good, it.s1_bad, it.s2_bad) for it, _ in dropped
    )
    fates = {fate(r["id"]) for r in rows}
    assert fates == {FIRST, SECOND, SILENT}  # every kind of drop is there
    for r in rows:
        f = fate(r["id"])
        assert r["subtask"] == r["id"].split(":")[0] and r["rule"] == r["id"].split(":")[2]
        assert r["threshold"] == 0.1 and r["filter_rule"] == "pointwise"
        assert isinstance(r["bin"], int) and r["w1"] and r["w2"] and r["rule"]
        if f == SILENT:
            assert r["reason"] == "filter_no_answer" and r["margins"] is None
        else:  # early rejection: a failed first pair is the only one asked
            assert r["reason"] == "filter_below_threshold"
            assert len(r["margins"]) == (1 if f == FIRST else 2) and r["margins"][-1] < 0
            assert f == FIRST or r["margins"][0] > r["threshold"]  # the first pair passed
    # counted once: the rows are the funnel's judge drops of the run, none of them a kept quadruplet
    funnel = json.loads((out / "funnel.json").read_text())
    assert len(rows) == sum(d["count"] for d in funnel["drop_reasons"] if d["reason"] in JUDGE_DROPS)
    kept = {
        (q.s1_good, q.s2_good)
        for sub in ("wordswap", "inflswap", "agrswap")
        for q in pd.read_parquet(out / f"{sub}.parquet").itertuples()
    }
    assert not kept & {(r["s1_good"], r["s2_good"]) for r in rows}
    assert {r["subtask"] for r in rows} == {"wordswap", "inflswap", "agrswap"}
    keys = [(r["subtask"], r["bin"], r["rule"], r["w1"], r["w2"], r["s1_good"]) for r in rows]
    assert keys == sorted(keys)


def test_review_reads_the_rejected_drafts(built):
    out, _ = built
    rows = _rows(out)
    src = load_source(out)
    rejected = {i.fingerprint: i for i in src.items if i.judge == JUDGE_REJECTED}
    kept = {i.fingerprint for i in src.items if i.judge == JUDGE_KEPT}
    want = {}
    for r in rows:  # the pair the judge failed: the second when the first passed, else the first
        k = 2 if fate(r["id"]) == SECOND else 1
        want[pair_fingerprint(r[f"s{k}_good"], r[f"s{k}_bad"])] = r
    want = {fp: r for fp, r in want.items() if fp not in kept}  # a pair also kept counts as kept
    assert set(rejected) == set(want)
    for fp, item in rejected.items():
        assert item.subtask == want[fp]["subtask"] and item.ref.startswith(want[fp]["id"])
        assert item.bin.startswith("[")  # the bin's label
    assert sum(p[JUDGE_REJECTED] for p in src.populations.values()) == len(rejected)


def test_a_rebuild_from_the_cache_gives_the_same_bytes(built, slice_stats, tmp_path):
    out, _ = built

    class Dead(ScriptedBackend):  # any call would fail the build
        def generate(self, reqs, on_result=None):
            raise AssertionError("a writer call left the cache")

        def answer_top_tokens(self, reqs, k, on_item=None):
            raise AssertionError("a judge call left the cache")

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(api.BACKENDS, "scripted", f"{__name__}:Picky")
        mp.setattr(Picky, "generate", Dead.generate)
        mp.setattr(Picky, "answer_top_tokens", Dead.answer_top_tokens)
        again = _build(slice_stats, tmp_path / "again", "--llm-cache", str(out / "llm-cache.sqlite"))
    assert (again / "rejected_drafts.jsonl").read_bytes() == (out / "rejected_drafts.jsonl").read_bytes()
    assert json.loads((again / "manifest.json").read_text())["llm_report"]["calls"] == 0


def test_unjudged_drafts_of_full_cells_are_not_rejected(slice_stats, tmp_path):
    """``--per-cell``: drafts left unjudged once their cell was full are neither kept nor rejected."""
    params = LtswapParams(per_cell=1, subtasks=("inflswap",), seed=0)
    res = run_ltswap(slice_stats, CachedLLM(Picky(), tmp_path / "c.sqlite"), params, tmp_path / "lt")
    full = res.funnel.reason_totals("inflswap").get("cell_full", 0)
    judged = sum(res.funnel.reason_totals("inflswap").get(r, 0) for r in JUDGE_DROPS)
    assert full > 0 and judged > 0
    rows = _rows(tmp_path / "lt")
    assert rows == res.rejected_drafts and len(rows) == judged
    assert all(r["reason"] in JUDGE_DROPS for r in rows)


def test_a_run_without_the_judge_writes_an_empty_file(slice_stats, tmp_path):
    out = tmp_path / "lt"
    out.mkdir()
    (out / "rejected_drafts.jsonl").write_text('{"stale": 1}\n')  # an earlier run's
    params = LtswapParams(max_per_bin=1, subtasks=("inflswap",), llm_filter=False, seed=0)
    run_ltswap(slice_stats, CachedLLM(Picky(), tmp_path / "c.sqlite"), params, out)
    assert (out / "rejected_drafts.jsonl").read_text() == ""
