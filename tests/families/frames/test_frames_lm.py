"""LM-derived clusterings: k-means over SmolLM2's input and contextual embeddings (real model, CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.frames.embed import contextual_embeddings, input_embeddings, kmeans_clustering
from corpusbench.families.frames.records import TokSentence

pytestmark = pytest.mark.slow
WORDS = [
    "he",
    "she",
    "they",
    "king",
    "queen",
    "lord",
    "sword",
    "went",
    "came",
    "said",
    "spake",
    "good",
    "evil",
]


def test_input_embeddings_kmeans_is_seeded(smollm2_dir: Path) -> None:
    vecs = input_embeddings(smollm2_dir, WORDS)
    assert vecs.shape[0] == len(WORDS) and np.isfinite(vecs).all()
    assert not np.allclose(vecs[0], vecs[1])  # different words, different vectors
    a = kmeans_clustering("m", WORDS, vecs, 4, seed=3)
    b = kmeans_clustering("m", WORDS, vecs, 4, seed=3)
    assert a.clusters == b.clusters and len(a.clusters) == 4
    assert set().union(*a.clusters.values()) == set(WORDS)


def test_contextual_embeddings_average_occurrences(smollm2_dir: Path) -> None:
    sents = [
        TokSentence(doc_id="d", index=0, tokens=("the", "king", "went", "home")),
        TokSentence(doc_id="d", index=1, tokens=("the", "queen", "went", "away")),
    ]
    vecs, seen = contextual_embeddings(smollm2_dir, sents, ["king", "queen", "went", "absent"], batch_size=1)
    assert seen == ["king", "queen", "went"] and vecs.shape[0] == 3
    one, _ = contextual_embeddings(smollm2_dir, sents[:1], ["went"])
    two, _ = contextual_embeddings(smollm2_dir, sents[1:], ["went"])
    # "went" occurs once per sentence: its vector is the mean over both (batching does not change it)
    assert np.allclose(vecs[2], (one[0] + two[0]) / 2, atol=1e-4)


def test_eval_cli_lm_sweep(tiny: dict[str, Path], smollm2_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    frames = tmp_path / "frames"
    res = runner.invoke(
        app, ["frames", "build", str(tiny["test"]), "--stats", str(tiny["stats"]), "--out", str(frames)]
    )
    assert res.exit_code == 0, res.output
    args = [
        "eval",
        "clusters",
        "--frames",
        str(frames),
        "--model",
        str(smollm2_dir),
        "--gold",
        str(tiny["stats"]),
    ]
    args += ["-k", "2", "-k", "3", "-k", "4", "--unclustered", "split", "--out", str(tmp_path / "ev")]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert [r["n_clusters"] for r in out["rows"]] == [2, 3, 4]
    assert all(0.0 <= r["sp"] <= 1.0 and 0.0 <= r["sr"] <= 1.0 for r in out["rows"])
    assert set(out["correlations"]) <= {
        "split: sp ~ gold_pairwise_precision",
        "split: sr ~ gold_pairwise_recall",
        "split: sp ~ gold_matched_accuracy",
    }
    assert all(-1.0 <= c["rho"] <= 1.0 and c["n"] == 3 for c in out["correlations"].values())
