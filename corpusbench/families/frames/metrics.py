"""Evaluating word clusterings: substitutable precision/recall and the gold-standard measures.

Substitutable precision and recall (Frank, Goldwater & Keller 2009, Eq. 2-3) compare model clusters C
with the S-clusters S (one per frame of a held-out test corpus)::

    SP = sum_s sum_c n_sc(n_sc - 1) / sum_c n_c(n_c - 1)      SR = (same numerator) / sum_s n_s(n_s - 1)

``unit="token"`` (default): n_sc counts the *tokens* in the middle of frame s that the model puts in
cluster c, n_c and n_s are its margins. Every test token is the middle of exactly one frame, so S is
a partition of the evaluated tokens and SP/SR are pairwise precision/recall of the clustering against
that partition: both lie in [0, 1]; SP is tiny because frames are small (as in the paper's tables).
``unit="type"``: the literal set reading (s and c are sets of word types, n_sc = |s ∩ c|,
n_c = |c| over the clustering's whole vocabulary); a pair shared by many frames counts once per frame,
so SP is not bounded by 1. Both come from one function, ``pairwise_table``.

The gold-standard measures score tokens: a clustering is p(c|w) per word type (one-hot for a hard
type clustering; ``∝ |c|`` for overlapping clusters, the paper's rule for frequent frames; the token
shares for a token clustering), crossed with gold tag counts n(w, t): n(c, t) = sum_w n(w, t) p(c|w).
Many-to-one matched accuracy MA = sum_c max_t n(c, t) / N; pairwise PP/PR = ``pairwise_table`` of
n(c, t). Words a clustering leaves out are merged into one cluster or split into one cluster per word
type (the paper's two conditions). Pure functions on plain data; loading lives in the other modules of
``corpusbench.families.frames``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Unclustered = Literal["merge", "split"]
UNCLUSTERED = "<unclustered>"
Table = Mapping[tuple[Hashable, Hashable], float]  # (reference class, model cluster) -> count


@dataclass(frozen=True, slots=True, kw_only=True)
class PairScores:
    """Pairwise precision/recall of model clusters against reference classes."""

    precision: float
    recall: float
    f: float
    shared_pairs: float  # sum n_rc(n_rc - 1): ordered pairs in the same class and the same cluster
    cluster_pairs: float  # sum_c n_c(n_c - 1)
    class_pairs: float  # sum_r n_r(n_r - 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class GoldScores:
    matched_accuracy: float
    pairwise_precision: float
    pairwise_recall: float
    pairwise_f: float
    tokens: float
    n_clusters: int
    n_tags: int


def f_score(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _pairs(n: float) -> float:
    return n * (n - 1)


def pairwise_table(
    table: Table,
    cluster_sizes: Mapping[Hashable, float] | None = None,
    class_sizes: Mapping[Hashable, float] | None = None,
) -> PairScores:
    """Pairwise precision/recall from (class, cluster) -> count cells.

    ``cluster_sizes`` / ``class_sizes`` override the margins (the set reading of SP counts a cluster's
    whole vocabulary, and an item in two overlapping clusters still counts once in its S-cluster).
    """
    by_r: dict[Hashable, float] = defaultdict(float)
    by_c: dict[Hashable, float] = defaultdict(float)
    shared = 0.0
    for (r, c), n in table.items():
        by_r[r] += n
        by_c[c] += n
        shared += _pairs(n)
    c_pairs = sum(_pairs(n) for n in (by_c if cluster_sizes is None else cluster_sizes).values())
    r_pairs = sum(_pairs(n) for n in (by_r if class_sizes is None else class_sizes).values())
    p = shared / c_pairs if c_pairs > 0 else 0.0
    r = shared / r_pairs if r_pairs > 0 else 0.0
    return PairScores(
        precision=p,
        recall=r,
        f=f_score(p, r),
        shared_pairs=shared,
        cluster_pairs=c_pairs,
        class_pairs=r_pairs,
    )


def substitutable_pr(
    sclusters: Iterable[Collection[Hashable]], clusters: Mapping[Hashable, Collection[Hashable]]
) -> PairScores:
    """SP/SR in the set reading: S-clusters and model clusters as sets of items (clusters may overlap;
    an item in no cluster is a singleton). ``precision`` is SP, ``recall`` SR."""
    where: dict[Hashable, list[Hashable]] = defaultdict(list)
    for cid, items in clusters.items():
        for item in set(items):
            where[item].append(cid)
    table: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
    s_sizes: dict[Hashable, float] = {}
    for i, s in enumerate(sclusters):
        members = set(s)
        s_sizes[i] = float(len(members))
        for item in members:
            for c in where.get(item) or [("<single>", item)]:
                table[i, c] += 1
    sizes = {cid: float(len(set(items))) for cid, items in clusters.items()}
    return pairwise_table(table, sizes, s_sizes)


def with_unclustered(
    clusters: Mapping[Hashable, Collection[Hashable]], universe: Iterable[Hashable], mode: Unclustered
) -> dict[Hashable, set[Hashable]]:
    """Add the items of ``universe`` no cluster holds: one extra cluster (merge) or singletons (split)."""
    out = {cid: set(items) for cid, items in clusters.items()}
    if mode == "split":
        return out
    covered = set().union(*out.values()) if out else set()
    rest = {w for w in universe if w not in covered}
    if rest:
        out[UNCLUSTERED] = rest
    return out


def word_distributions(clusters: Mapping[Hashable, Collection[str]]) -> dict[str, dict[Hashable, float]]:
    """p(c|w) of a type clustering; a word in several clusters is shared in proportion to their sizes."""
    sizes = {cid: len(set(items)) for cid, items in clusters.items()}
    member: dict[str, list[Hashable]] = defaultdict(list)
    for cid, items in clusters.items():
        for w in set(items):
            member[w].append(cid)
    out: dict[str, dict[Hashable, float]] = {}
    for w, cids in member.items():
        total = sum(sizes[c] for c in cids)
        out[w] = {c: sizes[c] / total for c in cids}
    return out


def unclustered_cluster(word: str, mode: Unclustered) -> Hashable:
    """The cluster of a word the clustering leaves out: the merged cluster, or the word's own."""
    return UNCLUSTERED if mode == "merge" else ("<word>", word)


def contingency(
    dist: Mapping[str, Mapping[Hashable, float]],
    counts: Mapping[str, Mapping[Hashable, float]],
    unclustered: Unclustered = "split",
) -> dict[tuple[Hashable, Hashable], float]:
    """(class, cluster) -> sum_w n(w, class) p(cluster|w), unclustered words merged or split."""
    table: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for w, classes in counts.items():
        pcw = dist.get(w) or {unclustered_cluster(w, unclustered): 1.0}
        for c, p in pcw.items():
            for r, n in classes.items():
                table[r, c] += n * p
    return dict(table)


def gold_scores(table: Table) -> GoldScores:
    """Many-to-one matched accuracy and pairwise precision/recall from a (tag, cluster) -> n table."""
    best: dict[Hashable, float] = defaultdict(float)
    tags = set()
    for (t, c), n in table.items():
        best[c] = max(best[c], n)
        tags.add(t)
    total = sum(table.values())
    pw = pairwise_table(table)
    return GoldScores(
        matched_accuracy=sum(best.values()) / total if total else 0.0,
        pairwise_precision=pw.precision,
        pairwise_recall=pw.recall,
        pairwise_f=pw.f,
        tokens=total,
        n_clusters=len(best),
        n_tags=len(tags),
    )


def spearman(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Spearman's rho and its p-value (scipy), e.g. between SP and PP over a range of K;
    (nan, nan) when either side is constant (rho is undefined)."""
    from scipy.stats import spearmanr

    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return float("nan"), float("nan")
    res = spearmanr(xs, ys)
    return float(res.statistic), float(res.pvalue)
