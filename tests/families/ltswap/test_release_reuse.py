"""The release adapter reuses a finished `ltswap build` run (the demo's) and shows its judge; it says
which run it reuses or why not, and never reuses a run whose LLM calls failed."""

import contextlib
import json
import shutil
from types import SimpleNamespace

import pandas as pd
import pytest
from test_pipeline import PARAMS, RuleLLM

from corpusbench.families.ltswap import session
from corpusbench.families.ltswap.pipeline import run_ltswap
from corpusbench.families.ltswap.release import build_configs
from corpusbench.llm.cache import CachedLLM, TooManyFailures
from corpusbench.llm.scripted import Fail
from corpusbench.publish.plugins import GeneratorContext, ResolvedCorpus
from corpusbench.publish.spec import ReleaseSpec


def _ctx(tmp_path, corpus, stats, params, log=lambda _m: None):
    raw = {
        "name": "lt",
        "version": "0.1.0",
        "repo_id": "t/lt",
        "corpora": {"c": {"path": str(corpus), "stats": str(stats.path), "language": "en"}},
        "families": [{"name": "ltswap", "corpus": "c", "params": params}],
        "llm": {"model": "rule-scripted", "backend": "vllm-server"},
    }
    spec = ReleaseSpec.from_dict(raw)
    resolved = ResolvedCorpus(key="c", path=corpus, stats=stats.path, language="en", fingerprint={})
    return GeneratorContext(
        spec=spec,
        generator=spec.families[0],
        corpora={"c": resolved},
        corpus=resolved,
        work_dir=tmp_path / "work",
        seed=0,
        llm=spec.llm,
        base_dir=tmp_path,
        log=log,
    )


def test_release_reuses_the_demo_run_and_carries_its_judge(tmp_path, slice_corpus, slice_stats):
    demo = tmp_path / "demo-ltswap"
    res = run_ltswap(slice_stats, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS, demo)
    params = {"max_per_bin": PARAMS.max_per_bin, "reuse_run": str(demo)}
    configs = {c.name: c for c in build_configs(_ctx(tmp_path, slice_corpus, slice_stats, params))}  # no LLM
    assert set(configs) >= {"ltswap-wordswap", "ltswap-inflectionswap", "ltswap-agreementswap"}
    cfg = configs["ltswap-agreementswap"]
    judge = cfg.parameters["judge"]
    assert cfg.parameters["llm_filter"] is True and judge["rule"] == "pointwise" and judge["prompts"]
    assert judge["figures"] is None and "judge-check" in cfg.card_section  # this model was never measured
    table = cfg.table if isinstance(cfg.table, pd.DataFrame) else cfg.table.to_pandas()
    assert len(table) == 2 * len(res.quadruplets["agrswap"]) and table["filter_margin"].gt(0).all()


class FlakyRuleLLM(RuleLLM):
    """The rule-scripted LLM whose first ``fails`` calls fail (as after a server's HTTP 500)."""

    def __init__(self, fails: int):
        super().__init__()
        self.fails = fails

    def _next(self, prompt):
        if self.fails:
            self.fails -= 1
            return Fail("HTTP 500: engine exploded")
        return super()._next(prompt)


@pytest.fixture()
def scripted_llm(tmp_path, monkeypatch):
    """The adapter's LLM is the rule-scripted one (``backends[0]``, else a fresh ``RuleLLM``);
    ``opened`` holds the arguments of every time the adapter opened it."""
    opened: list[dict] = []
    backends: list[RuleLLM] = []

    @contextlib.contextmanager
    def fake_open(**kwargs):
        opened.append(kwargs)
        backend = backends.pop(0) if backends else RuleLLM()
        yield CachedLLM(backend, kwargs["cache"], kwargs["options"].max_failures)

    monkeypatch.setattr(session, "open_run_llm", fake_open)
    return SimpleNamespace(opened=opened, backends=backends)


def test_release_says_why_it_does_not_reuse_a_run(tmp_path, slice_corpus, slice_stats, scripted_llm):
    demo = tmp_path / "demo-ltswap"
    run_ltswap(slice_stats, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS, demo)
    said: list[str] = []
    params = {"max_per_bin": 2, "reuse_run": str(demo)}
    build_configs(_ctx(tmp_path / "b", slice_corpus, slice_stats, params, said.append))
    assert f"ltswap: not reusing {demo}: max_per_bin differs (spec 2, run 3)" in said, said
    assert len(scripted_llm.opened) == 1  # it generated instead
    said.clear()  # the same build again: its own earlier run is reused, and it says so
    build_configs(_ctx(tmp_path / "b", slice_corpus, slice_stats, params, said.append))
    assert any(s.startswith("ltswap: reusing ") for s in said) and len(scripted_llm.opened) == 1, said


def test_a_run_with_failed_llm_calls_is_never_reused(tmp_path, slice_corpus, slice_stats, scripted_llm):
    demo = tmp_path / "demo-ltswap"
    run_ltswap(slice_stats, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS, demo)
    failed = tmp_path / "failed-ltswap"
    shutil.copytree(demo, failed)
    m = json.loads((failed / "manifest.json").read_text())
    m["llm_report"]["failures"] = 11  # a run that went through under a failure budget
    (failed / "manifest.json").write_text(json.dumps(m))
    said: list[str] = []
    params = {"max_per_bin": PARAMS.max_per_bin, "reuse_run": str(failed), "max_llm_failures": "5%"}
    build_configs(_ctx(tmp_path / "b", slice_corpus, slice_stats, params, said.append))
    assert (
        f"ltswap: not reusing {failed}: 11 of its LLM calls failed (a run with failures is never reused)"
        in said
    )
    [opened] = scripted_llm.opened
    assert opened["options"].max_failures.describe() == "5%"


def test_a_build_s_own_run_with_failures_is_run_again(tmp_path, slice_corpus, slice_stats, scripted_llm):
    """A brief outage within the failure budget must not shrink the release for good."""
    said: list[str] = []
    params = {"max_per_bin": PARAMS.max_per_bin, "max_llm_failures": 3}
    scripted_llm.backends.append(FlakyRuleLLM(fails=3))
    build_configs(_ctx(tmp_path, slice_corpus, slice_stats, params, said.append))
    run_dir = tmp_path / "work" / "run"
    assert json.loads((run_dir / "manifest.json").read_text())["llm_report"]["failures"] == 3
    build_configs(_ctx(tmp_path, slice_corpus, slice_stats, params, said.append))
    why = "3 of its LLM calls failed (a run with failures is never reused)"
    assert f"ltswap: not reusing {run_dir} (this build's earlier run): {why}" in said, said
    assert len(scripted_llm.opened) == 2
    assert json.loads((run_dir / "manifest.json").read_text())["llm_report"]["failures"] == 0
    scripted_llm.backends.append(FlakyRuleLLM(fails=4))  # over the budget: an error, no manifest
    with pytest.raises(TooManyFailures):
        build_configs(_ctx(tmp_path / "c", slice_corpus, slice_stats, params, said.append))
    assert not (tmp_path / "c" / "work" / "run" / "manifest.json").exists()
