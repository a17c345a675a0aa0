"""`baseline train` progress ends on the number of documents `stats` counts (#32 item 7: it showed
7,934 docs where stats counted 9,033, the count at the last 200k-character tick)."""

from __future__ import annotations

import json
from pathlib import Path

from corpusbench.baselines.train import CHUNK_CHARS, TrainParams, train_ngrams
from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.stats import StatsParams, compute_stats

CORPUS = Path(__file__).resolve().parents[1] / "data" / "genesis_40.txt"


def test_progress_ends_on_the_stats_document_count(tmp_path: Path) -> None:
    text = CORPUS.read_text(encoding="utf-8")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text * (CHUNK_CHARS // len(text) + 2), encoding="utf-8")  # one tick, then a tail
    seen: list[int] = []
    train_ngrams(
        CorpusSpec(path=str(corpus)),
        {"word": tmp_path / "word"},
        TrainParams(order=2),
        progress=lambda docs, _size: seen.append(docs),
    )
    compute_stats(CorpusSpec(path=str(corpus)), tmp_path / "stats", StatsParams(lang="en"))
    stats = json.loads((tmp_path / "stats" / "manifest.json").read_text(encoding="utf-8"))
    assert len(seen) >= 2 and seen[0] < seen[-1]
    assert seen[-1] == stats["totals"]["documents"] == stats["corpus"]["fingerprint"]["n_documents"]
