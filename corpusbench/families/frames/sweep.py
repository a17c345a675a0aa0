"""``eval clusters``: score clusterings (files, frequent frames, LM k-means over K), correlate the measures.

One ``ClusterEvalSpec`` names the frames folder, the clusterings to build or load, the gold stats and the
unclustered-words conditions; ``run_eval`` scores each (clustering, condition) and, over three or more
rows, reports Spearman's rho between SP and pairwise precision, SR and pairwise recall, SP and matched
accuracy (the paper's Table 2). Results go to ``results.json`` (with provenance) and a plot, atomically.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import ConfigError
from corpusbench.families.frames.clusterings import (
    Clustering,
    frequent_frames,
    gold_counts,
    load_clustering,
)
from corpusbench.families.frames.extract import is_word, load_sclusters, sentences
from corpusbench.families.frames.metrics import Unclustered, spearman
from corpusbench.families.frames.scoring import ClusterEval, Unit, evaluate
from corpusbench.io import atomic_dir, read_json, write_json
from corpusbench.provenance import code_version, file_sha256

log = logging.getLogger(__name__)
Progress = Callable[[str], None]
CORRELATIONS = (
    ("sp", "gold_pairwise_precision"),
    ("sr", "gold_pairwise_recall"),
    ("sp", "gold_matched_accuracy"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterEvalSpec:
    """What `eval clusters` scores (frames); a model eval run is :class:`corpusbench.eval.spec.EvalSpec`."""

    frames: Path
    clusterings: tuple[Path, ...] = ()
    frequent_frames_corpus: str | None = None  # training corpus for the Mintz baseline
    n_frames: int = 45
    model: Path | None = None
    clusters: tuple[int, ...] = ()
    embeddings: Literal["input", "contextual"] = "input"
    embed_corpus: str | None = None  # sentences for contextual embeddings
    max_sentences: int = 2000
    layer: int = -1
    words_from: Path | None = None  # stats folder: words the LM clusters (default: the frames' train vocab)
    max_words: int | None = None  # None: every word of the vocabulary (count >= min_count)
    min_count: int = 1
    gold: Path | None = None
    gold_level: Literal["pos", "tag"] = "pos"
    gold_unit: Literal["token", "type"] = "token"
    unclustered: tuple[Unclustered, ...] = ("merge", "split")
    unit: Unit = "token"
    lang: str = "en"
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in _fields(self).items()}


def _fields(obj: Any) -> dict[str, Any]:
    from dataclasses import fields

    return {f.name: getattr(obj, f.name) for f in fields(obj)}


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalReport:
    rows: list[ClusterEval]
    correlations: dict[str, dict[str, float]] = field(default_factory=dict)
    out: Path | None = None


def lm_words(stats: CorpusStats, max_words: int | None, min_count: int) -> list[str]:
    """The ``max_words`` (None: all) most frequent word forms (count >= ``min_count``), ties alphabetical."""
    df = stats.counts.groupby("form", sort=True)["count"].sum()
    ranked = sorted(
        ((f, int(n)) for f, n in df.items() if is_word(f) and n >= min_count), key=lambda x: (-x[1], x[0])
    )
    return [f for f, _ in ranked[:max_words]]


def lm_clusterings(
    spec: ClusterEvalSpec, words: list[str], progress: Progress | None = None
) -> list[Clustering]:
    """One k-means clustering per K over the model's input or contextual embeddings."""
    from corpusbench.families.frames.embed import contextual_embeddings, input_embeddings, kmeans_clustering

    assert spec.model is not None
    if spec.embeddings == "input":
        vecs, used = input_embeddings(spec.model, words), words
    else:
        if not spec.embed_corpus:
            raise ConfigError(
                "--embeddings contextual needs --embed-corpus (the sentences to run the model on)"
            )
        sents = islice(sentences(CorpusSpec(path=spec.embed_corpus), spec.lang), spec.max_sentences)
        vecs, used = contextual_embeddings(spec.model, sents, words, layer=spec.layer)
    meta = {"model": spec.model.name, "embeddings": spec.embeddings, "words": len(used)}
    out = []
    for k in spec.clusters:
        if progress:
            progress(f"k-means K={k}")
        out.append(
            kmeans_clustering(f"{spec.model.name}-{spec.embeddings}-K{k}", used, vecs, k, spec.seed, meta)
        )
    return out


def run_eval(spec: ClusterEvalSpec, out: Path | None = None, progress: Progress | None = None) -> EvalReport:
    manifest = read_json(spec.frames / "manifest.json") if (spec.frames / "manifest.json").is_file() else {}
    gold = gold_counts(CorpusStats.load(spec.gold), spec.gold_level, spec.gold_unit) if spec.gold else None
    clusterings = [load_clustering(p) for p in spec.clusterings]
    if spec.frequent_frames_corpus:
        if progress:
            progress("frequent frames")
        clusterings.append(
            frequent_frames(CorpusSpec(path=spec.frequent_frames_corpus), spec.lang, spec.n_frames)
        )
    if spec.model is not None and spec.clusters:
        words_from = spec.words_from or Path(manifest.get("train_vocab", {}).get("path", ""))
        if not words_from or not words_from.exists():
            raise ConfigError("LM clusterings need --words-from STATS (the vocabulary to cluster)")
        words = lm_words(CorpusStats.load(words_from), spec.max_words, spec.min_count)
        clusterings += lm_clusterings(spec, words, progress)
    if not clusterings:
        raise ConfigError(
            "nothing to evaluate: give --clustering FILE, --frequent-frames CORPUS or --model with --clusters"
        )
    sclusters = load_sclusters(spec.frames)
    rows = []
    for c in clusterings:
        for mode in spec.unclustered:
            if progress:
                progress(f"scoring {c.name} ({mode})")
            rows.append(
                evaluate(c, spec.frames, gold=gold, unclustered=mode, unit=spec.unit, sclusters=sclusters)
            )
    correlations = correlate([r.as_dict() for r in rows], spec.unclustered)
    report = EvalReport(rows=rows, correlations=correlations, out=out)
    if out is not None:
        _write(report, spec, manifest, out)
    return report


def correlate(rows: list[dict[str, Any]], conditions: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Spearman's rho (and p) between SP/SR and the gold measures, per unclustered condition (N >= 3)."""
    out: dict[str, dict[str, float]] = {}
    for mode in conditions:
        sub = [r for r in rows if r["unclustered"] == mode and "gold_pairwise_precision" in r]
        if len(sub) < 3:
            continue
        for a, b in CORRELATIONS:
            rho, p = spearman([r[a] for r in sub], [r[b] for r in sub])
            if rho == rho:  # undefined (a constant measure) is left out
                out[f"{mode}: {a} ~ {b}"] = {"rho": rho, "p": p, "n": len(sub)}
    return out


def _write(report: EvalReport, spec: ClusterEvalSpec, manifest: dict[str, Any], out: Path) -> None:
    from corpusbench.families.frames.plots import plot_sp_pp

    with atomic_dir(out) as tmp:
        write_json(
            tmp / "results.json",
            {
                "kind": "corpusbench.frames.eval",
                "spec": spec.as_dict(),
                "frames_fingerprint": manifest.get("fingerprint"),
                "sclusters_sha256": file_sha256(spec.frames / "sclusters.parquet"),
                "rows": [r.as_dict() for r in report.rows],
                "correlations": report.correlations,
                "code": code_version(),
            },
        )
        if any(r.gold for r in report.rows):
            plot_sp_pp([r.as_dict() for r in report.rows], tmp / "sp_vs_pp.png")
