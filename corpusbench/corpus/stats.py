"""``corpusbench stats``: stream a corpus, tag it in context, count, and write a stats folder.

The corpus is cut into shards (``corpus.shards``: groups of files, byte ranges of large files, or
inline chunks of a stream) and an executor (``corpus.executors``: in-process, spawned processes, or
Ray tasks) counts each shard into a ``PartialStats`` with a tagger loaded once per worker process
(a local worker process folds all its shards into one, its ``ShardFolder``, and sends it once).
The driver merges the partials in shard-id order, each exactly once, and fingerprints the document
stream itself; partial counts merge associatively and context choice is order-independent, so every
executor and worker count writes byte-identical files. Memory grows with the vocabulary, not the
corpus. The folder is built in a temporary sibling and renamed at the end.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from corpusbench.corpus.counting import PartialStats
from corpusbench.corpus.executors import Executor, make_executor, usable_cpus
from corpusbench.corpus.readers import (
    CorpusSpec,
    Fingerprinter,
    choose_doc_unit,
    read_corpus,
    resolve_reader,
)
from corpusbench.corpus.shards import Shard, plan_shards, shard_texts, splittable
from corpusbench.corpus.taggers import Tagger, check_tagger, make_tagger, tag_in_chunks
from corpusbench.errors import ConfigError, InputError
from corpusbench.io import atomic_dir, write_json
from corpusbench.provenance import code_version

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]  # (documents done, bytes done)
Total = Callable[[int, int], None]  # (corpus bytes, shards): called once the plan is known


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsParams:
    lang: str = "en"
    tagger: str | None = None  # default per language: en nltk, fr spacy, de hanta
    spacy_model: str | None = None
    # shards counted at once; 0 with the ray executor: every CPU of the cluster; "auto": see choose_workers
    workers: int | str = 1
    max_contexts: int = 2
    chunk_chars: int = 200_000  # documents tagged per tagger call
    shard_bytes: int = 1_000_000  # corpus bytes per shard (the unit of work of an executor)
    fast: bool = True  # nltk tagger: corpusbench's fast exact re-implementation (False: plain NLTK)
    executor: str = "local"  # local | ray
    ray_address: str | None = None  # ray: None starts a local Ray; "auto" or HOST:PORT joins a cluster

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
    executor: str = "local"
    workers: int = 1

    @property
    def words_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ShardResult:
    id: int
    nbytes: int
    part: PartialStats | None  # None: a receipt; a local worker folded the counts into its own (``fold``)
    tagger: dict[str, str]
    documents: int = 0


@dataclass(frozen=True, slots=True)
class FoldedStats:
    """What one local worker folded together from the shards it counted (sent once, after them)."""

    part: PartialStats


@functools.lru_cache(maxsize=4)
def _tagger(name: str, lang: str, spacy_model: str | None, fast: bool) -> Tagger:
    """One tagger per (settings, process): loaded by the first shard a worker counts."""
    return make_tagger(name, lang, spacy_model, fast)


@dataclass(frozen=True, slots=True)
class ShardCounter:
    """Counts one shard (picklable: the executor ships it to its workers). ``Foldable``: a local
    worker process counts its shards into its own ``folder()`` instead."""

    spec: CorpusSpec
    tagger: str
    params: StatsParams

    def warm(self) -> None:
        """Load the tagger in this process (forked workers inherit it) and fail early if it cannot."""
        p = self.params
        _tagger(self.tagger, p.lang, p.spacy_model, p.fast).tag_texts(["A."])

    def _count(self, shard: Shard, part: PartialStats) -> tuple[int, dict[str, str]]:
        p = self.params
        tg = _tagger(self.tagger, p.lang, p.spacy_model, p.fast)
        docs = 0
        for sents in tag_in_chunks(tg, shard_texts(self.spec, shard), p.chunk_chars):
            docs += 1
            for sent in sents:
                part.add_sentence(sent)
        part.documents += docs
        return docs, tg.describe()

    def __call__(self, shard: Shard) -> ShardResult:
        part = PartialStats(max_contexts=self.params.max_contexts)
        docs, describe = self._count(shard, part)
        return ShardResult(id=shard.id, nbytes=shard.nbytes, part=part, tagger=describe, documents=docs)

    def folder(self) -> ShardFolder:
        """A new, empty running count for one worker process (the executor makes one per process
        and run, before its first shard)."""
        return ShardFolder(self, PartialStats(max_contexts=self.params.max_contexts))


@dataclass(slots=True)
class ShardFolder:
    """One worker process's running counts of a run: ``fold`` counts a shard into them and returns
    a receipt, ``finish`` (after the process's last shard) returns them, so nobody builds, pickles
    and merges one partial per shard (counts and context choice do not depend on how sentences are
    grouped)."""

    counter: ShardCounter
    part: PartialStats

    def fold(self, shard: Shard) -> ShardResult:
        docs, describe = self.counter._count(shard, self.part)
        return ShardResult(id=shard.id, nbytes=shard.nbytes, part=None, tagger=describe, documents=docs)

    def finish(self) -> FoldedStats:
        return FoldedStats(self.part)


class _Planned:
    """Counts the shards handed to the executor, so the merge can check that none is missing."""

    def __init__(self, shards: Iterable[Shard]) -> None:
        self.shards = shards
        self.n = 0

    def __iter__(self) -> Iterator[Shard]:
        for shard in self.shards:
            self.n += 1
            yield shard


def merge_in_order(
    results: Iterable[ShardResult | FoldedStats],
    n_shards: Callable[[], int],
    max_contexts: int,
    progress: Progress | None,
) -> tuple[PartialStats, dict[str, str]]:
    """Merge shard results in shard-id order, whatever order they arrive in; each id exactly once.
    Receipts (``part`` None) only check the id; their counts arrive folded (``FoldedStats``)."""
    total = PartialStats(max_contexts=max_contexts)
    waiting: dict[int, ShardResult] = {}
    next_id = 0
    done_bytes = done_docs = 0
    describe: dict[str, str] = {}
    for res in results:
        if isinstance(res, FoldedStats):  # the first is taken as it is: one worker's merge is free
            total = total.merge(res.part) if total.counts or total.documents else res.part
            continue
        if res.id < next_id or res.id in waiting:
            raise RuntimeError(f"shard {res.id} was counted twice")
        waiting[res.id] = res
        while next_id in waiting:
            r = waiting.pop(next_id)
            if r.part is not None:
                total.merge(r.part)
            describe = describe or r.tagger
            done_bytes += r.nbytes
            done_docs += r.documents
            next_id += 1
        if progress:
            progress(done_docs, done_bytes)
    if waiting or next_id != n_shards():
        raise RuntimeError(f"merged {next_id} of {n_shards()} shards; results missing")
    return total, describe


class _StreamFingerprint(threading.Thread):
    """Fingerprints the document stream in the driver while the workers count (file shards)."""

    def __init__(self, spec: CorpusSpec, fp: Fingerprinter) -> None:
        super().__init__(name="corpusbench-fingerprint", daemon=True)
        self.spec, self.fp = spec, fp
        self.error: BaseException | None = None
        self.stop = False

    def run(self) -> None:
        try:
            for doc in read_corpus(self.spec):
                if self.stop:
                    return
                self.fp.update(doc)
        except BaseException as e:
            self.error = e


def _count_corpus(
    spec: CorpusSpec,
    params: StatsParams,
    tagger: str,
    fp: Fingerprinter,
    executor: Executor,
    progress: Progress | None,
    on_total: Total | None = None,
) -> tuple[PartialStats, dict[str, str]]:
    counter = ShardCounter(spec, tagger, params)
    if not splittable(spec):  # inline shards: the planner reads and fingerprints the stream
        executor.start(counter)  # before any thread of ours starts: local workers may be forked
        planned = _Planned(plan_shards(spec, params.shard_bytes, fp))
        results = executor.map(counter, planned)
        return merge_in_order(results, lambda: planned.n, params.max_contexts, progress)
    shards = list(plan_shards(spec, params.shard_bytes))
    executor.start(counter, len(shards))  # no more workers than shards; forked before our thread starts
    thread = _StreamFingerprint(spec, fp)
    thread.start()
    ok = False
    try:
        if on_total:
            on_total(sum(s.nbytes for s in shards), len(shards))
        results = _watch(executor.map(counter, shards), thread)
        result = merge_in_order(results, lambda: len(shards), params.max_contexts, progress)
        ok = True
    finally:
        thread.stop = not ok
        thread.join()
    if thread.error is not None:
        raise thread.error
    return result


def _watch(
    results: Iterable[ShardResult | FoldedStats], thread: _StreamFingerprint
) -> Iterator[ShardResult | FoldedStats]:
    """Stop early when the fingerprint pass finds bad input."""
    for res in results:
        if thread.error is not None:
            raise thread.error
        yield res


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


# Corpus bytes from which a second local worker pays for itself on 2 cores (measured with
# benchmarks/bench_stats.py: forked workers inherit the loaded tagger, so what a worker costs is
# its cold caches and the driver's merging; docs/scaling.md has the figures).
# With the start-up cut (no PyTorch under spaCy, no SciPy under NLTK), two spaCy workers on 0.6 MB
# (0.3 MB each) took 8.3 s against 11.8 s for one, and two HanTa workers on 1.2 MB 11.2 s against
# 16.2 s, though each HanTa worker repeats the memoised per-word analyses (idle run of 2026-11-26).
MIN_BYTES_PER_WORKER = {"nltk": 4_000_000, "spacy": 300_000, "hanta": 600_000}


def choose_workers(spec: CorpusSpec, executor: str, tagger: str, shard_bytes: int) -> tuple[int, str]:
    """``--workers auto``: every CPU of a Ray cluster; locally one worker per CPU as long as each gets
    at least ``MIN_BYTES_PER_WORKER`` of the corpus and a shard of its own, else fewer (1 in-process)."""
    if executor == "ray":
        return 0, "every CPU of the Ray cluster"
    cpus = usable_cpus()
    if not splittable(spec):
        return cpus, f"{cpus} CPUs; streamed corpus of unknown size"
    shards = list(plan_shards(spec, shard_bytes))
    total, n_shards = sum(s.nbytes for s in shards), len(shards)
    n = max(1, min(cpus, n_shards, total // MIN_BYTES_PER_WORKER[tagger]))
    why = (
        f"{cpus} CPUs, {total / 1e6:.1f} MB in {n_shards} shards, "
        f"{MIN_BYTES_PER_WORKER[tagger] / 1e6:g} MB per worker at least for {tagger}"
    )
    return n, why


def compute_stats(
    spec: CorpusSpec,
    out: str | Path,
    params: StatsParams | None = None,
    progress: Progress | None = None,
    executor: Executor | None = None,
    on_total: Total | None = None,
) -> StatsReport:
    """Tag and count the corpus of ``spec``; write the stats folder ``out`` (see ``corpus.store``).
    ``executor``: run the shards on this one (default: made from ``params``, closed at the end).
    ``progress`` gets (documents, bytes) after each merged shard; ``on_total`` (bytes, shards) once
    the shards are planned (local files only: a streamed corpus has no known size)."""
    params = params or StatsParams()
    if params.shard_bytes < 1 or params.chunk_chars < 1:
        raise ConfigError("shard and chunk sizes must be positive")
    tagger = check_tagger(params.tagger, params.lang)
    reader = resolve_reader(spec)  # raises for a missing path before anything is written
    unit = choose_doc_unit(spec)
    spec = replace(spec, doc_unit=unit.unit)
    if reader in ("text", "files"):
        log.info("documents: one per %s (%s: %s)", unit.unit, unit.chosen_by, unit.reason)
    if params.workers == "auto":
        n, why = choose_workers(spec, params.executor, tagger, params.shard_bytes)
        log.info("--workers auto: %d (%s)", n, why)
        params = replace(params, workers=n)
    if not isinstance(params.workers, int) or params.workers < (0 if params.executor == "ray" else 1):
        raise ConfigError(f"--workers must be 'auto' or at least 1 (got {params.workers})")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: output path exists and is not a directory")
    start = time.perf_counter()
    fp = Fingerprinter()
    own = executor is None
    ex = executor or make_executor(params.executor, params.workers or None, params.ray_address)
    try:
        part, describe = _count_corpus(spec, params, tagger, fp, ex, progress, on_total)
    finally:
        if own:
            ex.close()
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
            "corpus": {
                "spec": spec.as_dict(),
                "reader": reader,
                "doc_unit": unit.as_dict(),
                "fingerprint": fingerprint.as_dict(),
            },
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
        executor=ex.name,
        workers=ex.workers,
    )
