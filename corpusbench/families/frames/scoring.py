"""Scoring one clustering against a frames folder (SP/SR/F) and, optionally, a gold tagging (MA, PP/PR).

Token unit (default): every middle token of a kept frame occurrence in the test corpus is one item.
A type clustering gives each token its word's cluster (an overlapping one splits it by p(c|w));
a token clustering gives each token its own cluster and annotates the frame with the clusters of its
frame-word tokens (the paper's fix for ambiguous frames such as ``to _ cake``), which needs
``occurrences.parquet``. Type unit: the literal set reading of Eq. 2-3 (see ``frames.metrics``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import pyarrow.parquet as pq

from corpusbench.errors import InputError
from corpusbench.families.frames.clusterings import Clustering, Level
from corpusbench.families.frames.extract import load_sclusters
from corpusbench.families.frames.metrics import (
    UNCLUSTERED,
    GoldScores,
    PairScores,
    Unclustered,
    contingency,
    gold_scores,
    pairwise_table,
    substitutable_pr,
    unclustered_cluster,
    with_unclustered,
    word_distributions,
)
from corpusbench.families.frames.records import BOS, EOS, SCluster

Unit = Literal["token", "type"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterEval:
    """All scores of one clustering under one unclustered-words condition."""

    name: str
    level: Level
    unit: Unit
    unclustered: Unclustered
    n_clusters: int
    n_words: int
    substitutable: PairScores  # precision = SP, recall = SR
    gold: GoldScores | None
    meta: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        s = self.substitutable
        row: dict[str, Any] = {
            "name": self.name,
            "level": self.level,
            "unit": self.unit,
            "unclustered": self.unclustered,
            "n_clusters": self.n_clusters,
            "n_words": self.n_words,
            "sp": s.precision,
            "sr": s.recall,
            "sf": s.f,
            "s_shared_pairs": s.shared_pairs,
            "s_cluster_pairs": s.cluster_pairs,
            "s_scluster_pairs": s.class_pairs,
        }
        if self.gold is not None:
            row.update({f"gold_{k}": v for k, v in asdict(self.gold).items()})
        row["meta"] = self.meta
        return row


def _token_cells(
    frames_dir: str | Path, tokens: dict[str, tuple[str, str]], unclustered: Unclustered
) -> Counter[tuple[Hashable, Hashable]]:
    """((frame, left cluster, right cluster), (word, cluster)) -> middle tokens, from occurrences."""
    path = Path(frames_dir) / "occurrences.parquet"
    if not path.is_file():
        raise InputError(
            f"{frames_dir}: no occurrences.parquet; re-run `corpusbench frames build` with --occurrences"
        )
    t = pq.read_table(path).to_pydict()

    def cluster(doc: str, sent: int, i: int, n: int) -> Hashable:
        if i < 0 or i >= n:
            return BOS if i < 0 else EOS
        hit = tokens.get(f"{doc}#{sent}:{i}")
        return hit[1] if hit else unclustered_cluster("", unclustered)

    cells: Counter[tuple[Hashable, Hashable]] = Counter()
    for fid, doc, sent, i, n, word in zip(
        t["frame_id"], t["doc_id"], t["sent"], t["index"], t["n_tokens"], t["word"], strict=True
    ):
        hit = tokens.get(f"{doc}#{sent}:{i}")
        c = hit[1] if hit else unclustered_cluster(word, unclustered)
        cells[(fid, cluster(doc, sent, i - 1, n), cluster(doc, sent, i + 1, n)), (word, c)] += 1
    return cells


def _score_token_level(
    clustering: Clustering, frames_dir: str | Path, unit: Unit, unclustered: Unclustered
) -> tuple[PairScores, dict[str, dict[Hashable, float]]]:
    cells = _token_cells(frames_dir, clustering.tokens, unclustered)
    per_word: dict[str, Counter[str]] = defaultdict(Counter)
    for w, c in clustering.tokens.values():
        per_word[w][c] += 1
    dist = {w: {c: n / sum(cs.values()) for c, n in cs.items()} for w, cs in per_word.items()}
    if unit == "token":
        table: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
        for (key, (_, c)), n in cells.items():
            table[key, c] += n
        return pairwise_table(table), dist
    sets: dict[Hashable, set[Hashable]] = defaultdict(set)
    for key, item in cells:
        sets[key].add(item)
    model: dict[Hashable, set[Hashable]] = defaultdict(set)
    for w, c in clustering.tokens.values():
        model[c].add((w, c))
    if unclustered == "merge":  # unclustered items form one cluster (split: singletons, no pairs)
        for _, (w, c) in cells:
            if c == UNCLUSTERED:
                model[c].add((w, c))
    return substitutable_pr([sets[k] for k in sorted(sets, key=str)], model), dist


def evaluate(
    clustering: Clustering,
    frames_dir: str | Path,
    *,
    gold: dict[str, dict[str, float]] | None = None,
    unclustered: Unclustered = "split",
    unit: Unit = "token",
    sclusters: Sequence[SCluster] | None = None,
) -> ClusterEval:
    """SP/SR/F against the S-clusters of ``frames_dir``; MA and pairwise P/R when ``gold`` is given.
    ``sclusters``: the folder's S-clusters, when already loaded."""
    if unit not in ("token", "type"):
        raise InputError(f"unknown unit {unit!r} (token or type)")
    if clustering.level == "type":
        scl = list(sclusters) if sclusters is not None else load_sclusters(frames_dir)
        dist = word_distributions(clustering.clusters)
        n_words = len(set().union(*clustering.clusters.values()))
        if unit == "token":
            counts: dict[str, dict[Hashable, float]] = defaultdict(dict)
            for s in scl:
                for w, n in zip(s.words, s.word_counts, strict=True):
                    counts[w][s.id] = float(n)
            subst = pairwise_table(contingency(dist, counts, unclustered))
        else:
            sets = [set(s.words) for s in scl]
            universe = set().union(*sets, gold or ()) if sets else set(gold or ())
            subst = substitutable_pr(sets, with_unclustered(clustering.clusters, universe, unclustered))
    else:
        subst, dist = _score_token_level(clustering, frames_dir, unit, unclustered)
        n_words = len(dist)
    return ClusterEval(
        name=clustering.name,
        level=clustering.level,
        unit=unit,
        unclustered=unclustered,
        n_clusters=clustering.n_clusters,
        n_words=n_words,
        substitutable=subst,
        gold=gold_scores(contingency(dist, gold, unclustered)) if gold else None,
        meta={k: v for k, v in clustering.meta.items() if k != "frames"},
    )
