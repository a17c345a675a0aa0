"""The local executor: plain shard functions and ``Foldable`` ones, in-process and in worker processes;
its workers die with a killed ``corpusbench stats``."""

import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from corpusbench.corpus.executors import Foldable, LocalExecutor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from orphans import ROOT, kill_and_check, tree_of


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


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_stats_run_leaves_no_worker(sig, default_corpus, tmp_path):
    out = tmp_path / "stats"
    cmd = [sys.executable, "-m", "corpusbench", "stats", str(default_corpus), "--workers", "2"]
    cmd += ["--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        tree = tree_of(proc, 2, 120, "two stats workers")
        code = kill_and_check(proc, sig, tree)
    finally:
        proc.kill()
    assert not (out / "manifest.json").exists()
    if sig == signal.SIGTERM:  # an orderly exit: the workers were stopped, not left behind
        assert code == 128 + signal.SIGTERM, proc.stdout.read()[-2000:]
