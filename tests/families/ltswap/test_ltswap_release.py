"""LT-Swap through `corpusbench release build` (real vLLM CPU server, default model), then the prefix
config through `corpusbench eval` (SmolLM2): per-bin accuracy on corpus-specific rare-word pairs."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.eval.runner import EvalSpec, run_eval


def _spec(path, default_corpus, stats, model_dir, server, **params):
    spec = {
        "name": "lt-e2e",
        "version": "0.1.0",
        "repo_id": "test/lt-e2e",
        "corpora": {"default": {"path": str(default_corpus), "stats": str(stats.path), "language": "en"}},
        "llm": {"model": str(model_dir), "backend": "vllm-server"},
        "families": [
            {
                "name": "ltswap",
                "corpus": "default",
                "params": {
                    "base_url": server.base_url,
                    "max_per_bin": 3,
                    "subtasks": ["wordswap"],
                    "max_tokens": 48,
                    **params,
                },
            }
        ],
    }
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


@pytest.mark.slow
def test_release_build_then_eval_prefix_config(
    tmp_path, default_corpus, default_stats, smollm2_dir, ltswap_vllm
):
    import torch

    torch.set_num_threads(1)
    builds = tmp_path / "build"
    # the LLM filter off: SmolLM2-135M cannot judge (see the next build), the checks still apply
    spec = _spec(
        tmp_path / "lt.yaml", default_corpus, default_stats, smollm2_dir, ltswap_vllm, llm_filter=False
    )
    r = CliRunner().invoke(app, ["release", "build", str(spec), "--out", str(builds)])
    assert r.exit_code == 0, r.output
    rel = builds / "lt-e2e" / "0.1.0"
    prov = json.loads((rel / "provenance.json").read_text())
    configs = {c["name"]: c for c in prov["configs"]}
    assert set(configs) == {"ltswap-wordswap", "ltswap-wordswap-prefix"}
    run = builds / ".work" / "lt-e2e" / "ltswap" / "run"
    quads = pd.read_parquet(run / "wordswap.parquet")
    plain = pd.read_parquet(rel / "data" / "ltswap-wordswap" / "test-00000-of-00001.parquet")
    prefix = pd.read_parquet(rel / "data" / "ltswap-wordswap-prefix" / "test-00000-of-00001.parquet")
    assert len(plain) == 2 * len(quads) > 0  # (S1, S1*) and (S2, S2*) per quadruplet
    cfg = configs["ltswap-wordswap"]
    funnel = dict(cfg["funnel"])
    assert funnel["kept"] == len(quads) and funnel["pairs"] == len(plain)
    assert funnel["candidates"] >= funnel["checked"] >= funnel["paired"] >= funnel["kept"]
    assert sum(n for _, n in cfg["bins"]) == len(plain)
    assert cfg["model"] == {"model": "smollm2-135m-instruct", "backend": "vllm-server"}
    assert (
        "ltswap/judge_yes_no_sense.v1" in cfg["prompt_hashes"]
        and cfg["parameters"]["ltswap"]["llm_filter"] is False
    )
    assert any("filter was OFF" in line for line in cfg["limitations"])
    for row in plain.to_dict("records"):
        assert row["sentence_good"] != row["sentence_bad"] and row["bin"] >= 1
        assert row["word_good"] in row["sentence_good"].lower() or row["word_good"] in row["sentence_good"]
    for row in prefix.to_dict("records"):  # each sentence follows a corpus sentence holding its own word
        assert (
            row["word_good"] in row["prefix_good"].lower().split() or row["word_good"] in row["prefix_good"]
        )
        assert row["word_bad"] in row["prefix_bad"].lower().split() or row["word_bad"] in row["prefix_bad"]
    assert set(prefix["pair_id"]) <= set(plain["pair_id"])

    # a second build of the same version is refused without --force, and with it reuses the LT-Swap run
    stamp = (run / "manifest.json").stat().st_mtime_ns
    r = CliRunner().invoke(app, ["release", "build", str(spec), "--out", str(builds)])
    assert r.exit_code != 0 and "--force" in r.output
    r = CliRunner().invoke(app, ["release", "build", str(spec), "--out", str(builds), "--force"])
    assert r.exit_code == 0, r.output
    assert (run / "manifest.json").stat().st_mtime_ns == stamp

    # the prefix config through the eval runner: per-bin accuracy, prefixes unscored
    report = run_eval(
        EvalSpec(
            dataset=str(rel / "data"),
            model=str(smollm2_dir),
            out=tmp_path / "eval",
            configs=("ltswap-wordswap-prefix",),
        )
    )
    results = json.loads((tmp_path / "eval" / "results.json").read_text())
    by_bin = results["configs"]["ltswap-wordswap-prefix"]["by_bin"]  # LT-Swap scores: results["benchmarks"]
    assert report.n_pairs == len(prefix)
    assert set(by_bin) == {str(b) for b in prefix["bin"]}
    assert all(0.0 <= c["accuracy"] <= 1.0 for c in by_bin.values())

    # with the paper's strict filter on, SmolLM2-135M (always "A") passes no quadruplet: the build fails
    # naming stage and reasons
    spec = _spec(
        tmp_path / "lt-f.yaml", default_corpus, default_stats, smollm2_dir, ltswap_vllm, filter_rule="strict"
    )
    r = CliRunner().invoke(app, ["release", "build", str(spec), "--out", str(builds), "--force"])  # cached
    said = " ".join(r.output.split())
    if r.exit_code == 0:  # a model that can judge: the kept quadruplets passed all four prompts
        assert "filter was OFF" not in (rel / "README.md").read_text()
        prov = json.loads((rel / "provenance.json").read_text())
        judge = prov["configs"][0]["parameters"]["judge"]
        assert judge["llm_filter"] is True and judge["rule"] == "strict" and judge["prompts"]
    else:
        assert r.exit_code == 2, r.output
        assert "every subtask is empty" in said and "WordSwap has no quadruplet" in said, said
        assert "paired, 0 kept" in said and "filter_rejected" in said, said
