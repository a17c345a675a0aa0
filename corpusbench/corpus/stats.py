"""``corpusbench stats``: stream a corpus, tag it in context, count, and write a stats folder.

The main process reads and fingerprints documents and cuts them into chunks; chunks are tagged and
counted in-process (1 worker) or by a pool of spawned workers, each holding its own tagger. Partial
counts merge associatively and context choice is order-independent, so 1 and N workers write
byte-identical files. Memory grows with the vocabulary, not the corpus: at most ``2 * workers``
chunks are in flight. The folder is built in a temporary sibling and renamed at the end.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from corpusbench.corpus.counting import PartialStats, count_tagged
from corpusbench.corpus.readers import CorpusSpec, Fingerprinter, read_corpus, resolve_reader
from corpusbench.corpus.taggers import Tagger, check_tagger, make_tagger
from corpusbench.errors import ConfigError, InputError
from corpusbench.io import atomic_dir, write_json
from corpusbench.provenance import code_version

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]  # (documents done, bytes done)


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsParams:
    lang: str = "en"
    tagger: str | None = None  # default per language: en nltk, fr spacy, de hanta
    spacy_model: str | None = None
    workers: int = 1
    max_contexts: int = 2
    chunk_chars: int = 200_000
    fast: bool = True  # nltk tagger: corpusbench's fast exact re-implementation (False: plain NLTK)

    def as_dict(self) -> dict[str, Any]:
        return {"lang": self.lang, "tagger": self.tagger, "spacy_model": self.spacy_model,
                "max_contexts": self.max_contexts}


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsReport:
    out: Path
    documents: int
    sentences: int
    tokens: int
    types: int
    candidates: int
    seconds: float
    manifest: dict[str, Any]

    @property
    def words_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


_WORKER_TAGGER: Tagger | None = None


def _init_worker(tagger: str, lang: str, spacy_model: str | None, fast: bool) -> None:
    global _WORKER_TAGGER
    _WORKER_TAGGER = make_tagger(tagger, lang, spacy_model, fast)


def _count_chunk(texts: list[str], max_contexts: int) -> PartialStats:
    assert _WORKER_TAGGER is not None
    return count_tagged(_WORKER_TAGGER.tag_texts(texts), max_contexts)


def _chunks(spec: CorpusSpec, chunk_chars: int, fp: Fingerprinter) -> Iterator[tuple[list[str], int]]:
    buf: list[str] = []
    size = 0
    for doc in read_corpus(spec):
        fp.update(doc)
        buf.append(doc.text)
        size += len(doc.text)
        if size >= chunk_chars:
            yield buf, size
            buf, size = [], 0
    if buf:
        yield buf, size


def _count_corpus(spec: CorpusSpec, params: StatsParams, tagger: str, fp: Fingerprinter,
                  progress: Progress | None) -> tuple[PartialStats, dict[str, str]]:
    total = PartialStats(max_contexts=params.max_contexts)
    done_bytes = 0
    if params.workers <= 1:
        _init_worker(tagger, params.lang, params.spacy_model, params.fast)
        assert _WORKER_TAGGER is not None
        describe = _WORKER_TAGGER.describe()
        for texts, size in _chunks(spec, params.chunk_chars, fp):
            total.merge(_count_chunk(texts, params.max_contexts))
            done_bytes += size
            if progress:
                progress(fp.n_documents, done_bytes)
        return total, describe
    describe = make_tagger(tagger, params.lang, params.spacy_model, params.fast).describe()  # fail fast
    ctx = get_context("spawn")
    with ProcessPoolExecutor(params.workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(tagger, params.lang, params.spacy_model, params.fast)) as pool:
        pending: list[tuple[Future[PartialStats], int]] = []
        for texts, size in _chunks(spec, params.chunk_chars, fp):
            pending.append((pool.submit(_count_chunk, texts, params.max_contexts), size))
            while len(pending) >= 2 * params.workers:
                fut, sz = pending.pop(0)
                total.merge(fut.result())
                done_bytes += sz
                if progress:
                    progress(fp.n_documents, done_bytes)
        for fut, sz in pending:
            total.merge(fut.result())
            done_bytes += sz
            if progress:
                progress(fp.n_documents, done_bytes)
    return total, describe


def _write_tables(part: PartialStats, out: Path) -> int:
    keys = sorted(part.counts)
    counts = pa.table({
        "form": [k[0] for k in keys], "tag": [k[1] for k in keys], "pos": [k[2] for k in keys],
        "lemma": [k[3] for k in keys], "morph": [k[4] for k in keys],
        "count": pa.array([part.counts[k] for k in keys], pa.int64()),
    })
    forms = sorted(part.vocab)
    vocab = pa.table({"form": forms, "count": pa.array([part.vocab[f] for f in forms], pa.int64())})
    rows = [(form, tag, ctx) for (form, tag), ctxs in sorted(part.contexts.items()) for ctx in ctxs]
    contexts = pa.table({
        "form": [r[0] for r in rows], "tag": [r[1] for r in rows], "sentence": [r[2][1] for r in rows],
        "token_index": pa.array([r[2][2] for r in rows], pa.int32()),
        "n_tokens": pa.array([r[2][0] for r in rows], pa.int32()),
    })
    for name, table in (("counts", counts), ("forms", vocab), ("contexts", contexts)):
        pq.write_table(table, out / f"{name}.parquet", compression="zstd", write_statistics=False)
    return len(part.contexts)


def compute_stats(spec: CorpusSpec, out: str | Path, params: StatsParams | None = None,
                  progress: Progress | None = None) -> StatsReport:
    """Tag and count the corpus of ``spec``; write the stats folder ``out`` (see ``corpus.store``)."""
    params = params or StatsParams()
    if params.workers < 1:
        raise ConfigError(f"--workers must be at least 1 (got {params.workers})")
    tagger = check_tagger(params.tagger, params.lang)
    reader = resolve_reader(spec)  # raises for a missing path before anything is written
    out = Path(out)
    start = time.perf_counter()
    fp = Fingerprinter()
    part, describe = _count_corpus(spec, params, tagger, fp, progress)
    if part.tokens == 0:
        raise InputError(f"{spec.path}: corpus is empty (no tokens in {fp.n_documents} documents)")
    seconds = time.perf_counter() - start
    fingerprint = fp.result()
    with atomic_dir(out) as tmp:
        n_candidates = _write_tables(part, tmp)
        manifest = {
            "kind": "corpusbench.stats",
            "format_version": 1,
            "language": params.lang,
            "corpus": {"spec": spec.as_dict(), "reader": reader, "fingerprint": fingerprint.as_dict()},
            "tagger": describe,
            "parameters": params.as_dict(),
            "totals": {"documents": part.documents, "sentences": part.sentences, "tokens": part.tokens,
                       "types": len(part.vocab), "tagged_types": len(part.counts),
                       "context_keys": n_candidates},
            "code": code_version(),
        }
        write_json(tmp / "manifest.json", manifest)
    log.info("counted %d tokens in %.1fs (%.0f words/s)", part.tokens, seconds, part.tokens / max(seconds, 1e-9))
    return StatsReport(out=out, documents=part.documents, sentences=part.sentences, tokens=part.tokens,
                       types=len(part.vocab), candidates=n_candidates, seconds=seconds, manifest=manifest)
