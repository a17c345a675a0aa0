"""The local executor: plain shard functions and ``Foldable`` ones, in-process and in worker processes;
its workers die with a killed ``corpusbench stats``."""

import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from corpusbench.corpus.executors import Foldable, LocalExecutor, bound_workers, make_executor, usable_cpus

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from orphans import ROOT, alive, descendants, kill_and_check, tree_of


def square(x: int) -> int:
    return x * x


@dataclass
class SumFolder:
    total: int = 0
    shards: list[int] = field(default_factory=list)

    def fold(self, x: int) -> tuple[str, int]:
        self.total += x
        self.shards.append(x)
        return ("receipt", x)

    def finish(self) -> tuple[str, int, list[int]]:
        return ("folded", self.total, self.shards)


@dataclass(frozen=True)
class Summer:
    def __call__(self, x: int) -> tuple[str, int]:
        return ("shard", x)

    def folder(self) -> SumFolder:
        return SumFolder()


def test_plain_functions_are_not_foldable_and_map_per_shard():
    assert isinstance(Summer(), Foldable) and not isinstance(square, Foldable)
    for workers in (1, 2):
        with LocalExecutor(workers) as ex:
            assert sorted(ex.map(square, range(10))) == [x * x for x in range(10)]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_each_worker_folds_into_its_own_folder_and_answers_it_once(workers):
    with LocalExecutor(workers) as ex:
        out = list(ex.map(Summer(), range(20)))
    receipts = [o for o in out if o[0] == "receipt"]
    folded = [o for o in out if o[0] == "folded"]
    assert sorted(x for _, x in receipts) == list(range(20))
    assert len(folded) == workers  # one per worker process, after its shards (in-process: one)
    assert out[-workers:] == folded
    assert sorted(x for _, _, xs in folded for x in xs) == list(range(20))
    assert sum(t for _, t, _ in folded) == sum(range(20))
    # a second run starts from empty folders
    with LocalExecutor(workers) as ex:
        again = [o for o in ex.map(Summer(), range(3)) if o[0] == "folded"]
    assert sum(t for _, t, _ in again) == 3


@pytest.mark.parametrize(
    ("sig", "workers"),
    [(signal.SIGKILL, "2"), (signal.SIGTERM, "2"), (signal.SIGTERM, "100000")],
    ids=["SIGKILL", "SIGTERM", "SIGTERM-workers-100000"],
)
def test_killed_stats_run_leaves_no_worker(sig, workers, default_corpus, tmp_path):
    out = tmp_path / "stats"
    cmd = [sys.executable, "-m", "corpusbench", "stats", str(default_corpus), "--workers", workers]
    cmd += ["--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        tree = tree_of(proc, 2, 120, "two stats workers")
        time.sleep(1.0)  # --workers 100000: one worker per CPU, not thousands of forks
        assert len(alive(descendants(proc.pid))) <= max(2, usable_cpus()) + 1
        code = kill_and_check(proc, sig, tree)
    finally:
        proc.kill()
    assert not (out / "manifest.json").exists()
    if sig == signal.SIGTERM:  # an orderly exit: the workers were stopped, not left behind
        output = proc.stdout.read()
        assert code == 128 + signal.SIGTERM, output[-2000:]
        assert workers == "2" or f"--workers {workers}: using" in output


def test_workers_are_bounded_by_cpus_and_shards(caplog):
    assert make_executor("local", 100_000).workers == usable_cpus()  # not 100,000 forked processes
    assert "--workers 100000: using" in caplog.text and "usable CPUs" in caplog.text
    assert bound_workers(3, 8, "usable CPUs") == 3 and bound_workers(5, 0, "shards") == 1
    caplog.clear()
    with LocalExecutor(3) as ex:  # two shards: two processes, the third would only wait
        ex.start(square, shards=2)
        assert ex.workers == 2 and len(ex._procs) == 2
        assert sorted(ex.map(square, [3, 4])) == [9, 16]
    assert "--workers 3: using 2, as many as there are shards (2)" in caplog.text
    with LocalExecutor(4) as ex:  # one shard: in-process
        ex.start(square, shards=1)
        assert (ex.workers, ex.start_method, ex._procs) == (1, "in-process", [])
        assert list(ex.map(square, [5])) == [25]
