"""``corpusbench stats``: stream a corpus, tag it in context, count, and write a stats folder.

The main process reads and fingerprints documents and cuts them into chunks; chunks are tagged and
counted in-process (1 worker) or by a pool of spawned workers, each holding its own tagger. Partial
counts merge associatively and context choice is order-independent, so 1 and N workers write
byte-identical files. Memory grows with the vocabulary, not the corpus: at most ``2 * workers``
chunks are in flight. The folder is built in a temporary sibling and renamed at the end.
"""

from __future__ import annotations

import logging
import pickle
import queue
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from corpusbench.corpus.counting import PartialStats
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
        return {
            "lang": self.lang,
            "tagger": self.tagger,
            "spacy_model": self.spacy_model,
            "max_contexts": self.max_contexts,
        }


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


def _count_into(part: PartialStats, tagger: Tagger, texts: list[str]) -> None:
    for sents in tagger.tag_texts(texts):
        part.documents += 1
        for sent in sents:
            part.add_sentence(sent)


def _worker_loop(tasks: Any, results: Any, tagger: str, params: StatsParams) -> None:
    """A long-lived worker: counts every chunk it receives into one partial, returned once at the end."""
    try:
        tg = make_tagger(tagger, params.lang, params.spacy_model, params.fast)
        part = PartialStats(max_contexts=params.max_contexts)
        while (texts := tasks.get()) is not None:
            _count_into(part, tg, texts)
        results.put(("ok", (part, tg.describe())))
    except BaseException as e:  # report every failure to the parent, which re-raises it
        try:
            pickle.dumps(e)
        except Exception:
            e = RuntimeError(f"{type(e).__name__}: {e}")
        results.put(("error", e))


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


class _Workers:
    """N spawned workers fed through a bounded queue (memory stays flat), each returning one partial."""

    def __init__(self, n: int, tagger: str, params: StatsParams) -> None:
        ctx = get_context("spawn")
        self.tasks = ctx.Queue(maxsize=2 * n)
        self.results = ctx.Queue()
        self.procs = [
            ctx.Process(target=_worker_loop, args=(self.tasks, self.results, tagger, params), daemon=True)
            for _ in range(n)
        ]
        for proc in self.procs:
            proc.start()

    def _check(self) -> None:
        try:
            status, payload = self.results.get_nowait()
        except queue.Empty:
            if any(p.exitcode not in (None, 0) for p in self.procs):
                raise RuntimeError("a stats worker process died unexpectedly") from None
            return
        if status == "error":
            raise payload
        raise RuntimeError("a stats worker finished before the corpus was read")

    def put(self, item: list[str] | None) -> None:
        while True:
            try:
                self.tasks.put(item, timeout=1.0)
                return
            except queue.Full:
                self._check()

    def collect(self) -> list[tuple[PartialStats, dict[str, str]]]:
        for _ in self.procs:
            self.put(None)
        parts = []
        while len(parts) < len(self.procs):
            try:
                status, payload = self.results.get(timeout=1.0)
            except queue.Empty:
                if all(p.exitcode is not None for p in self.procs):
                    raise RuntimeError("a stats worker process died unexpectedly") from None
                continue
            if status == "error":
                raise payload
            parts.append(payload)
        return parts

    def close(self) -> None:
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()


def _count_corpus(
    spec: CorpusSpec, params: StatsParams, tagger: str, fp: Fingerprinter, progress: Progress | None
) -> tuple[PartialStats, dict[str, str]]:
    total = PartialStats(max_contexts=params.max_contexts)
    done_bytes = 0
    if params.workers <= 1:
        tg = make_tagger(tagger, params.lang, params.spacy_model, params.fast)
        for texts, size in _chunks(spec, params.chunk_chars, fp):
            _count_into(total, tg, texts)
            done_bytes += size
            if progress:
                progress(fp.n_documents, done_bytes)
        return total, tg.describe()
    # The tagger is loaded only in the workers (a setup error there is re-raised by _Workers).
    workers = _Workers(params.workers, tagger, params)
    try:
        for texts, size in _chunks(spec, params.chunk_chars, fp):
            workers.put(texts)
            done_bytes += size
            if progress:
                progress(fp.n_documents, done_bytes)
        parts = workers.collect()
    finally:
        workers.close()
    for part, _ in parts:
        total.merge(part)
    return total, parts[0][1]


def _write_tables(part: PartialStats, out: Path) -> int:
    keys = sorted(part.counts)
    counts = pa.table(
        {
            "form": [k[0] for k in keys],
            "tag": [k[1] for k in keys],
            "pos": [k[2] for k in keys],
            "lemma": [k[3] for k in keys],
            "morph": [k[4] for k in keys],
            "count": pa.array([part.counts[k] for k in keys], pa.int64()),
        }
    )
    forms = sorted(part.vocab)
    vocab = pa.table({"form": forms, "count": pa.array([part.vocab[f] for f in forms], pa.int64())})
    rows = [(form, tag, ctx) for (form, tag), ctxs in sorted(part.contexts.items()) for ctx in ctxs]
    contexts = pa.table(
        {
            "form": [r[0] for r in rows],
            "tag": [r[1] for r in rows],
            "sentence": [r[2][1] for r in rows],
            "token_index": pa.array([r[2][2] for r in rows], pa.int32()),
            "n_tokens": pa.array([r[2][0] for r in rows], pa.int32()),
        }
    )
    for name, table in (("counts", counts), ("forms", vocab), ("contexts", contexts)):
        pq.write_table(table, out / f"{name}.parquet", compression="zstd", write_statistics=False)
    return len(part.contexts)


def compute_stats(
    spec: CorpusSpec, out: str | Path, params: StatsParams | None = None, progress: Progress | None = None
) -> StatsReport:
    """Tag and count the corpus of ``spec``; write the stats folder ``out`` (see ``corpus.store``)."""
    params = params or StatsParams()
    if params.workers < 1:
        raise ConfigError(f"--workers must be at least 1 (got {params.workers})")
    tagger = check_tagger(params.tagger, params.lang)
    reader = resolve_reader(spec)  # raises for a missing path before anything is written
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: output path exists and is not a directory")
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
            "totals": {
                "documents": part.documents,
                "sentences": part.sentences,
                "tokens": part.tokens,
                "types": len(part.vocab),
                "tagged_types": len(part.counts),
                "context_keys": n_candidates,
            },
            "code": code_version(),
        }
        write_json(tmp / "manifest.json", manifest)
    log.info(
        "counted %d tokens in %.1fs (%.0f words/s)", part.tokens, seconds, part.tokens / max(seconds, 1e-9)
    )
    return StatsReport(
        out=out,
        documents=part.documents,
        sentences=part.sentences,
        tokens=part.tokens,
        types=len(part.vocab),
        candidates=n_candidates,
        seconds=seconds,
        manifest=manifest,
    )
