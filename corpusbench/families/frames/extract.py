"""S-clusters from frames: a corpus stream → tokenised sentences → frame occurrences → S-clusters.

A frame is an ordered pair of words with exactly one word between them (``left _ right``); its
S-cluster is the set of middle word types seen in it (Frank, Goldwater & Keller's substitutable
precision/recall). Sentences come from the shared corpus pipeline (``read_corpus`` →
``split_sentences`` → ``tokenize``), lowercased, punctuation-only tokens dropped, with ``<s>``/``</s>``
markers at the sentence ends. Middle words must be in the training vocabulary (a stats folder), and
so must the frame words (our stand-in for "frames found in both the training and the test corpus":
a stats folder has no frames). Only frames seen at least ``min_frame_count`` times are kept.

Two passes over the corpus keep memory at the number of distinct frames: the first counts frames,
the second collects the middle words (and token positions) of the frames that are kept.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpusbench.corpus.readers import CorpusSpec, Fingerprinter, read_corpus
from corpusbench.corpus.store import CorpusStats
from corpusbench.corpus.tokenize import split_sentences, tokenize
from corpusbench.errors import InputError
from corpusbench.families.frames.records import (
    BOS,
    EOS,
    FramesParams,
    FramesReport,
    SCluster,
    TokSentence,
)
from corpusbench.io import atomic_dir, write_json
from corpusbench.provenance import code_version, file_sha256, fingerprint

log = logging.getLogger(__name__)
Progress = Callable[[str, int], None]  # (pass name, sentences done in that pass)
FORMAT_VERSION = 1
OCCURRENCE_SCHEMA = pa.schema(
    [
        ("frame_id", pa.string()),
        ("doc_id", pa.string()),
        ("sent", pa.int32()),
        ("index", pa.int32()),  # position of the middle word in the sentence (markers not counted)
        ("n_tokens", pa.int32()),
        ("word", pa.string()),
    ]
)


def is_word(token: str) -> bool:
    """A token with at least one letter or digit (punctuation-only tokens are not words)."""
    return any(ch.isalnum() for ch in token)


def sentences(spec: CorpusSpec, lang: str, fp: Fingerprinter | None = None) -> Iterator[TokSentence]:
    """Stage: lowercased word tokens of every sentence of the corpus, in corpus order."""
    for doc in read_corpus(spec):
        if fp is not None:
            fp.update(doc)
        for i, sent in enumerate(split_sentences(doc.text, lang)):
            toks = tuple(t.lower() for t in tokenize(sent, lang) if is_word(t))
            if toks:
                yield TokSentence(doc_id=doc.id, index=i, tokens=toks)


def frame_slots(sent: TokSentence, markers: bool = True) -> Iterator[tuple[int, str, str, str]]:
    """(middle index, left, middle, right) for every frame of a sentence."""
    toks = sent.tokens
    n = len(toks)
    padded = (BOS, *toks, EOS) if markers else toks
    off = 1 if markers else 0
    lo, hi = (0, n) if markers else (1, n - 1)
    for i in range(lo, hi):
        j = i + off
        yield i, padded[j - 1], padded[j], padded[j + 1]


class FrameFilter:
    """Verdicts on frame occurrences; the counters are the funnel."""

    def __init__(self, vocab: Iterable[str], params: FramesParams) -> None:
        self.vocab = frozenset(vocab)
        self.params = params
        self.stats: Counter[str] = Counter()

    def keep(self, left: str, middle: str, right: str) -> bool:
        self.stats["frames seen"] += 1
        if self.params.frame_words_in_vocab and not all(
            w in (BOS, EOS) or w in self.vocab for w in (left, right)
        ):
            self.stats["dropped:frame_word_not_in_train_vocab"] += 1
            return False
        if middle not in self.vocab:
            self.stats["dropped:middle_not_in_train_vocab"] += 1
            return False
        self.stats["frame occurrences kept"] += 1
        return True


def train_vocabulary(stats: CorpusStats) -> set[str]:
    """Word forms of the training corpus: its tokens as the shared tokenizer gives them (``counts.parquet``
    forms, lowercased), punctuation-only forms left out."""
    return {f for f in stats.counts["form"].unique().tolist() if is_word(f)}


def collect_sclusters(
    spec: CorpusSpec,
    vocab: Iterable[str],
    params: FramesParams,
    *,
    occurrences: pq.ParquetWriter | None = None,
    progress: Progress | None = None,
) -> tuple[list[SCluster], Counter[str], Fingerprinter]:
    """Both passes: count frames, then build the S-clusters of the frequent ones (sorted by id)."""
    filt = FrameFilter(vocab, params)
    fp = Fingerprinter()
    frame_counts: Counter[tuple[str, str]] = Counter()
    n_sents = n_toks = 0
    for sent in sentences(spec, params.lang, fp):
        n_sents += 1
        n_toks += len(sent.tokens)
        for _, left, mid, right in frame_slots(sent, params.markers):
            if filt.keep(left, mid, right):
                frame_counts[left, right] += 1
        if progress and n_sents % 1000 == 0:
            progress("count", n_sents)
    if n_sents == 0:
        raise InputError(f"{spec.path}: the corpus has no sentences with words")
    kept = {k for k, n in frame_counts.items() if n >= params.min_frame_count}
    funnel: Counter[str] = Counter({"sentences": n_sents, "tokens": n_toks})
    funnel.update(filt.stats)
    funnel["frame types"] = len(frame_counts)
    funnel[f"dropped:frame_seen_fewer_than_{params.min_frame_count}_times"] = len(frame_counts) - len(kept)
    funnel["frame types kept"] = len(kept)
    del frame_counts

    middles: dict[tuple[str, str], Counter[str]] = {k: Counter() for k in kept}
    batch: list[tuple[str, str, int, int, int, str]] = []
    for n, sent in enumerate(sentences(spec, params.lang), 1):
        for i, left, mid, right in frame_slots(sent, params.markers):
            bucket = middles.get((left, right))
            if bucket is None or mid not in filt.vocab:
                continue
            bucket[mid] += 1
            if occurrences is not None:
                batch.append((f"{left}|{right}", sent.doc_id, sent.index, i, len(sent.tokens), mid))
                if len(batch) >= 100_000:
                    _write_batch(occurrences, batch)
        if progress and n % 1000 == 0:
            progress("collect", n)
    if occurrences is not None and batch:
        _write_batch(occurrences, batch)
    clusters = [
        SCluster(
            id=f"{left}|{right}",
            left=left,
            right=right,
            frame_count=sum(c.values()),
            words=tuple(sorted(c)),
            word_counts=tuple(c[w] for w in sorted(c)),
        )
        for (left, right), c in sorted(middles.items())
    ]
    return clusters, funnel, fp


def _write_batch(writer: pq.ParquetWriter, batch: list[tuple[str, str, int, int, int, str]]) -> None:
    cols = list(zip(*batch, strict=True))
    writer.write_table(pa.Table.from_arrays([pa.array(c) for c in cols], schema=OCCURRENCE_SCHEMA))
    batch.clear()


def generate_frames(
    spec: CorpusSpec,
    train_vocab: str | Path,
    out: str | Path,
    params: FramesParams = FramesParams(),
    *,
    with_occurrences: bool = True,
    progress: Progress | None = None,
) -> FramesReport:
    """Write ``sclusters.parquet`` (+ ``occurrences.parquet``) and ``manifest.json`` to ``out`` atomically."""
    if params.min_frame_count < 1:
        raise InputError(f"--min-frame-count must be at least 1 (got {params.min_frame_count})")
    stats = CorpusStats.load(train_vocab)
    vocab = train_vocabulary(stats)
    if not vocab:
        raise InputError(f"{train_vocab}: the training vocabulary has no words")
    vocab_fp = {
        "counts_sha256": file_sha256(Path(train_vocab) / "counts.parquet"),
        "corpus": stats.fingerprint,
        "words": len(vocab),
    }
    with atomic_dir(out) as tmp:
        writer = (
            pq.ParquetWriter(tmp / "occurrences.parquet", OCCURRENCE_SCHEMA) if with_occurrences else None
        )
        try:
            clusters, funnel, fp = collect_sclusters(
                spec, vocab, params, occurrences=writer, progress=progress
            )
        finally:
            if writer is not None:
                writer.close()
        rows = [c.as_row() for c in clusters]
        table = pa.Table.from_pylist(rows, schema=SCLUSTER_SCHEMA)
        pq.write_table(table, tmp / "sclusters.parquet")
        words = {w for c in clusters for w in c.words}
        funnel["S-clusters"] = len(clusters)
        funnel["S-clusters with 2+ words"] = sum(1 for c in clusters if c.size >= 2)
        funnel["words"] = len(words)
        corpus_fp = fp.result().as_dict()
        fprint = fingerprint(corpus_fp, vocab_fp, params.as_dict(), FORMAT_VERSION)
        manifest = {
            "kind": "corpusbench.frames",
            "format_version": FORMAT_VERSION,
            "corpus": {"spec": spec.as_dict(), "fingerprint": corpus_fp},
            "train_vocab": {"path": str(train_vocab), **vocab_fp},
            "parameters": params.as_dict(),
            "funnel": dict(funnel),
            "fingerprint": fprint,
            "code": code_version(),
            "files": {
                "sclusters.parquet": file_sha256(tmp / "sclusters.parquet"),
                **({"occurrences.parquet": file_sha256(tmp / "occurrences.parquet")} if writer else {}),
            },
        }
        write_json(tmp / "manifest.json", manifest)
    log.info("frames: %d S-clusters over %d words", len(clusters), len(words))
    return FramesReport(
        out=str(out), funnel=dict(funnel), n_sclusters=len(clusters), n_words=len(words), fingerprint=fprint
    )


SCLUSTER_SCHEMA = pa.schema(
    [
        ("frame_id", pa.string()),
        ("left", pa.string()),
        ("right", pa.string()),
        ("frame_count", pa.int64()),
        ("n_words", pa.int64()),
        ("words", pa.list_(pa.string())),
        ("word_counts", pa.list_(pa.int64())),
    ]
)


def load_sclusters(folder: str | Path) -> list[SCluster]:
    """The S-clusters of a ``corpusbench frames build`` output folder."""
    path = Path(folder) / "sclusters.parquet"
    if not path.is_file():
        raise InputError(
            f"{folder}: not a frames folder (no sclusters.parquet); run `corpusbench frames build` first"
        )
    return [SCluster.from_row(r) for r in pq.read_table(path).to_pylist()]
