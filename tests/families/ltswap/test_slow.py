"""End to end with the real default model (SmolLM2-135M-Instruct, transformers backend, CPU)."""

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap.funnel import STAGES
from corpusbench.families.ltswap.records import SUBTASKS


@pytest.mark.slow
def test_smollm2_end_to_end_and_cached_rerun(tmp_path, default_corpus, smollm2_dir):
    import torch

    torch.set_num_threads(1)  # the CI box has 2 shared cores
    corpus = tmp_path / "ruth"
    corpus.mkdir()
    lines = (default_corpus / "kjv" / "08-ruth.txt").read_text(encoding="utf-8").splitlines()
    (corpus / "ruth.txt").write_text("\n".join(lines[:50]) + "\n", encoding="utf-8")
    args = [
        "ltswap",
        "build",
        str(corpus),
        "--out",
        str(tmp_path / "lt"),
        "--llm-backend",
        "transformers",
        "--llm-model",
        str(smollm2_dir),
        "--max-per-bin",
        "1",
        "--subtasks",
        "wordswap",  # the vLLM-server tests cover all subtasks; this one the transformers backend
        "--max-tokens",
        "48",
        "--seed",
        "3",
    ]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    out = tmp_path / "lt"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["llm"]["model"] == "smollm2-135m-instruct"
    rep = manifest["llm_report"]
    assert rep["calls"] >= 3 and rep["failures"] == 0 and rep["cache_hits"] == 0
    assert (out / "stats" / "manifest.json").exists()  # stats computed from the corpus
    ws = manifest["funnel"]
    totals = {s: sum(row[s] for row in ws if row["subtask"] == "wordswap") for s in STAGES}
    assert totals["candidates"] >= 3 and totals["generated"] == totals["candidates"]  # every word answered
    for row in ws:
        assert row["candidates"] >= row["confirmed"] >= row["generated"] >= row["parsed"] >= row["checked"]
    frames = {s: pd.read_parquet(out / f"{s}.parquet") for s in SUBTASKS}
    for sub, df in frames.items():
        assert len(df) == manifest["counts"][sub]
        assert list(df.columns)[:6] == ["id", "subtask", "rule", "bin", "w1", "w2"]

    # the same command again: every answer comes from the cache, the output is identical
    r2 = CliRunner().invoke(app, args)
    assert r2.exit_code == 0, r2.output
    manifest2 = json.loads((out / "manifest.json").read_text())
    assert manifest2["llm_report"]["calls"] == 0 and manifest2["llm_report"]["cache_hits"] == rep["calls"]
    assert manifest2["funnel"] == manifest["funnel"]
    for sub in SUBTASKS:
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{sub}.parquet"), frames[sub])
