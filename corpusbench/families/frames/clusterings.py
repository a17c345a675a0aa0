"""Word clusterings to evaluate against S-clusters: loaded from files or built by a baseline.

A ``Clustering`` is either type-level (cluster id -> word types; clusters may overlap, as frequent
frames do) or token-level (token id -> (word, cluster), token ids as in ``occurrences.parquet``:
``<document id>#<sentence>:<token>``). ``corpusbench.families.frames.scoring`` evaluates them.
"""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import InputError
from corpusbench.families.frames.extract import frame_slots, is_word, sentences

Level = Literal["type", "token"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Clustering:
    name: str
    level: Level
    clusters: dict[str, frozenset[str]] = field(default_factory=dict)  # type level
    tokens: dict[str, tuple[str, str]] = field(default_factory=dict)  # token level: id -> (word, cluster)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n_clusters(self) -> int:
        if self.level == "type":
            return len(self.clusters)
        return len({c for _, c in self.tokens.values()})


def load_clustering(path: str | Path) -> Clustering:
    """A clustering file: TSV ``word<TAB>cluster`` (type) or ``token_id<TAB>word<TAB>cluster`` (token),
    JSON ``{word: cluster | [clusters]}`` (type) or ``[{"token_id", "word", "cluster"}, ...]`` (token)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such clustering file")
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
        if isinstance(data, dict):
            pairs = [(w, str(c)) for w, cs in data.items() for c in (cs if isinstance(cs, list) else [cs])]
            return _type_clustering(path.stem, pairs)
        if isinstance(data, list):
            try:
                rows = [(str(r["token_id"]), str(r["word"]), str(r["cluster"])) for r in data]
            except (KeyError, TypeError):
                raise InputError(f"{path}: token rows need token_id, word and cluster") from None
            return _token_clustering(path.stem, rows, str(path))
        raise InputError(f"{path}: expected a JSON object (word -> cluster) or a list of token rows")
    with open(path, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh, delimiter="\t") if r and not r[0].startswith("#")]
    widths = {len(r) for r in rows}
    if widths == {2}:
        return _type_clustering(path.stem, [(w.lower(), c) for w, c in rows])
    if widths == {3}:
        return _token_clustering(path.stem, [(t, w.lower(), c) for t, w, c in rows], str(path))
    raise InputError(
        f"{path}: expected 2 (word, cluster) or 3 (token_id, word, cluster) tab-separated columns"
    )


def _type_clustering(name: str, pairs: Iterable[tuple[str, str]]) -> Clustering:
    clusters: dict[str, set[str]] = defaultdict(set)
    for w, c in pairs:
        clusters[c].add(w.lower())
    if not clusters:
        raise InputError(f"{name}: the clustering is empty")
    return Clustering(name=name, level="type", clusters={c: frozenset(ws) for c, ws in clusters.items()})


def _token_clustering(name: str, rows: list[tuple[str, str, str]], where: str) -> Clustering:
    tokens: dict[str, tuple[str, str]] = {}
    for tid, w, c in rows:
        if tid in tokens and tokens[tid] != (w, c):
            raise InputError(f"{where}: token {tid} is listed twice with different values")
        tokens[tid] = (w, c)
    if not tokens:
        raise InputError(f"{where}: the clustering is empty")
    return Clustering(name=name, level="token", tokens=tokens)


def frequent_frames(spec: CorpusSpec, lang: str = "en", n_frames: int = 45) -> Clustering:
    """Mintz (2003): the ``n_frames`` most frequent frames of a corpus (within sentences, no boundary
    markers); the middle word types of each frame form one (possibly overlapping) cluster."""
    counts: Counter[tuple[str, str]] = Counter()
    for sent in sentences(spec, lang):
        counts.update((left, right) for _, left, _, right in frame_slots(sent, markers=False))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n_frames]
    chosen = {k: set() for k, _ in top}
    for sent in sentences(spec, lang):
        for _, left, mid, right in frame_slots(sent, markers=False):
            if (left, right) in chosen:
                chosen[left, right].add(mid)
    return Clustering(
        name=f"frequent-frames-{n_frames}",
        level="type",
        clusters={f"{a}_{b}": frozenset(ws) for (a, b), ws in chosen.items()},
        meta={"frames": [{"frame": f"{a} _ {b}", "count": n} for (a, b), n in top]},
    )


def gold_counts(
    stats: CorpusStats, level: Literal["pos", "tag"] = "pos", unit: str = "token"
) -> dict[str, dict[str, float]]:
    """n(w, t) from a stats folder (words only); ``unit='type'`` keeps each word's majority tag once."""
    df = stats.counts[["form", level, "count"]]
    gold: dict[str, dict[str, float]] = defaultdict(dict)
    for form, tag, n in _sum(df, level):
        if is_word(form):
            gold[form][tag] = gold[form].get(tag, 0.0) + float(n)
    if unit == "type":
        return {w: {max(sorted(tags), key=lambda t: tags[t]): 1.0} for w, tags in gold.items()}
    return dict(gold)


def _sum(df: Any, level: str) -> Iterable[tuple[str, str, int]]:
    grouped = df.groupby(["form", level], sort=True)["count"].sum()
    for (form, tag), n in grouped.items():
        yield str(form), str(tag), int(n)
