"""``corpusbench stats --executor ray``: shards, identical output, a killed worker, bad input, the CLI."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.corpus.executors import RayExecutor
from corpusbench.corpus.readers import CorpusSpec, read_corpus
from corpusbench.corpus.shards import plan_shards, shard_texts
from corpusbench.corpus.stats import ShardCounter, StatsParams, compute_stats, merge_in_order
from corpusbench.errors import InputError

FILES = ("counts.parquet", "forms.parquet", "contexts.parquet", "manifest.json")
SHARD = 40_000  # bytes: the slice's large files are cut into byte ranges


def digest(folder: Path) -> dict[str, str]:
    return {f: hashlib.sha256((folder / f).read_bytes()).hexdigest() for f in FILES}


@pytest.fixture(scope="module")
def corpus_slice(tmp_path_factory, default_corpus) -> Path:
    """Two KJV books and two plays (~25k words): small files, and files larger than a shard."""
    d = tmp_path_factory.mktemp("slice")
    for sub, names in (("kjv", ("08-ruth.txt", "32-jonah.txt")), ("shakespeare", ("macbeth.txt",))):
        (d / sub).mkdir()
        for n in names:
            shutil.copy(default_corpus / sub / n, d / sub / n)
    return d


@pytest.fixture(scope="module")
def local_digest(corpus_slice, tmp_path_factory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("local") / "st"
    compute_stats(CorpusSpec(path=str(corpus_slice)), out, StatsParams(workers=1))
    return digest(out)


def test_byte_ranges_partition_the_lines_exactly(corpus_slice, tmp_path):
    """Whatever the cut points, the shards hold every document once, in stream order."""
    odd = tmp_path / "odd.txt"  # CRLF, blank lines, a line without a final newline
    odd.write_bytes(b"first line\r\n\r\n  second  \nthird\n\n\nfourth" + "é".encode() * 40)
    for path in (corpus_slice, odd):
        spec = CorpusSpec(path=str(path))
        want = [d.text for d in read_corpus(spec)]
        for size in (7, 1000, 37_001, 10**9):
            shards = list(plan_shards(spec, size))
            assert [s.id for s in shards] == list(range(len(shards)))
            got = [t for s in shards for t in shard_texts(spec, s)]
            assert got == want, (path.name, size)
    cut = list(plan_shards(CorpusSpec(path=str(corpus_slice)), SHARD))
    assert any(p.end is not None for s in cut for p in s.pieces)  # ranges really happen


def test_saved_dataset_is_cut_into_row_ranges(tmp_path):
    import datasets

    rows = [f"Line {i} of the dataset." if i % 7 else "   " for i in range(500)] + [None]
    datasets.Dataset.from_dict({"text": rows}).save_to_disk(str(tmp_path / "ds"))
    spec = CorpusSpec(path=str(tmp_path / "ds"))
    want = [d.text for d in read_corpus(spec)]
    shards = list(plan_shards(spec, 1000))
    assert len(shards) > 3 and all(p.reader == "hf-disk" for s in shards for p in s.pieces)
    assert [t for s in shards for t in shard_texts(spec, s)] == want


def test_merge_is_by_shard_id_whatever_the_arrival_order(corpus_slice):
    spec = CorpusSpec(path=str(corpus_slice))
    count = ShardCounter(spec, "nltk", StatsParams())
    results = [count(s) for s in plan_shards(spec, SHARD)]
    assert len(results) >= 4
    a, _ = merge_in_order(results, lambda: len(results), 2, None)
    b, _ = merge_in_order(results[::-1], lambda: len(results), 2, None)
    assert (a.counts, a.vocab, a.contexts, a.tokens) == (b.counts, b.vocab, b.contexts, b.tokens)
    with pytest.raises(RuntimeError, match="counted twice"):
        merge_in_order([*results, results[1]], lambda: len(results), 2, None)
    with pytest.raises(RuntimeError, match="missing"):
        merge_in_order(results[1:], lambda: len(results), 2, None)


@pytest.mark.slow
def test_ray_executor_writes_the_local_files(ray_local, corpus_slice, local_digest, tmp_path):
    with RayExecutor(workers=2) as ex:
        rep = compute_stats(
            CorpusSpec(path=str(corpus_slice)), tmp_path / "ray", StatsParams(shard_bytes=SHARD), executor=ex
        )
    assert rep.executor == "ray" and rep.workers == 2 and rep.tokens > 20_000
    assert digest(tmp_path / "ray") == local_digest
    assert ray_local.is_initialized()  # a joined instance is left to its owner


class KillOnce:
    """Counts a shard, but the first attempt at shard 1 kills its own worker process (SIGKILL)."""

    def __init__(self, fn, marker: str):
        self.fn, self.marker = fn, marker

    def __call__(self, shard):
        if shard.id == 1 and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return self.fn(shard)


class FlakyRay(RayExecutor):
    def __init__(self, marker: Path):
        super().__init__(workers=2)
        self.marker = str(marker)

    def map(self, fn, shards):
        return super().map(KillOnce(fn, self.marker), shards)


@pytest.mark.slow
def test_a_killed_worker_still_gives_identical_files(ray_local, corpus_slice, local_digest, tmp_path):
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this file
    marker = tmp_path / "killed"
    with FlakyRay(marker) as ex:
        compute_stats(
            CorpusSpec(path=str(corpus_slice)), tmp_path / "ray", StatsParams(shard_bytes=SHARD), executor=ex
        )
    assert marker.exists() and int(marker.read_text()) != os.getpid()  # a Ray worker really died
    assert digest(tmp_path / "ray") == local_digest


@pytest.mark.slow
def test_bad_bytes_in_a_shard_stop_the_run_with_one_clear_line(ray_local, tmp_path):
    d = tmp_path / "c"
    d.mkdir()
    (d / "a.txt").write_text("The cat sat on the mat.\n" * 50)
    (d / "b.txt").write_bytes(b"A fine line.\nBad \xff byte here.\n")
    with RayExecutor(workers=2) as ex, pytest.raises(InputError, match=r"b\.txt.*not valid utf-8"):
        compute_stats(CorpusSpec(path=str(d)), tmp_path / "o", StatsParams(shard_bytes=500), executor=ex)
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_cli_executor_ray(ray_local, corpus_slice, local_digest, tmp_path):
    out = tmp_path / "cli"
    res = CliRunner().invoke(
        app, ["stats", str(corpus_slice), "--out", str(out), "--executor", "ray", "--shard-mb", "0.1"]
    )
    assert res.exit_code == 0, res.output
    assert "ray worker(s)" in res.output
    assert digest(out) == local_digest
