"""The release adapter reuses a finished `ltswap build` run (the demo's) and shows its judge."""

import pandas as pd
import pytest
from test_pipeline import PARAMS, RuleLLM

from corpusbench.errors import ConfigError
from corpusbench.generators.ltswap.pipeline import run_ltswap
from corpusbench.llm.cache import CachedLLM
from corpusbench.publish.adapters.ltswap import build_configs
from corpusbench.publish.plugins import GeneratorContext, ResolvedCorpus
from corpusbench.publish.spec import ReleaseSpec


def _ctx(tmp_path, corpus, stats, params, log=lambda _m: None):
    raw = {
        "name": "lt",
        "version": "0.1.0",
        "repo_id": "t/lt",
        "corpora": {"c": {"path": str(corpus), "stats": str(stats.path), "language": "en"}},
        "generators": [{"name": "ltswap", "corpus": "c", "params": params}],
        "llm": {"model": "rule-scripted", "backend": "vllm-server"},
    }
    spec = ReleaseSpec.from_dict(raw)
    resolved = ResolvedCorpus(key="c", path=corpus, stats=stats.path, language="en", fingerprint={})
    return GeneratorContext(
        spec=spec,
        generator=spec.generators[0],
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
    # other parameters: no reuse, the adapter would have to generate (and says why it did not reuse)
    said: list[str] = []
    ctx = _ctx(tmp_path / "b", slice_corpus, slice_stats, {**params, "max_per_bin": 2}, said.append)
    with pytest.raises(
        ConfigError
    ):  # generating needs the judge model or a server; the reuse check came first
        build_configs(ctx)
    assert any("is not a finished run with this build's parameters" in s for s in said), said
