"""Shared by the benchmarks: the results folder, writing a result, and running one configuration in a
fresh subprocess measured from outside."""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from corpusbench.io import write_json

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
# Memory sampling interval. Reading a process tree's PSS (/proc/PID/smaps) every 50 ms cost the parent
# ~0.2 of a core, taken from the workers when they use every core (2 workers on 2 cores); every 0.5 s
# it is ~0.02 (memory grows with the vocabulary, slowly, so the peak is still caught).
SAMPLE_S = 0.5


def save_result(path: Path, result: dict[str, Any]) -> None:
    """Write a benchmark's result JSON atomically and say where (relative to the repo when inside it)."""
    write_json(path, result)
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}", flush=True)


def run_child(cmd: list[str], cwd: Path, what: str) -> dict[str, Any]:
    """The JSON object the child prints on its last stdout line, plus ``peak_rss_mib`` of the process tree
    (sampled every ``SAMPLE_S``; ``peak_pss_mib`` counts pages shared by forked workers once), ``cpu_s`` of
    the tree (start-up included) and ``wall_s``."""
    import psutil

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, text=True)
    peak = peak_pss = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak, peak_pss
        try:
            p = psutil.Process(proc.pid)
            while not stop.is_set():
                rss = pss = 0
                for q in [p, *p.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        rss += q.memory_info().rss
                    with contextlib.suppress(psutil.Error, AttributeError):
                        pss += q.memory_full_info().pss  # shared pages counted once (forked workers)
                peak, peak_pss = max(peak, rss), max(peak_pss, pss)
                time.sleep(SAMPLE_S)
        except psutil.Error:
            return

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    stdout, _ = proc.communicate()
    stop.set()
    th.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {proc.returncode})")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = json.loads(stdout.strip().splitlines()[-1])
    res["wall_s"] = time.perf_counter() - t0
    res["peak_rss_mib"] = peak / 2**20
    res["peak_pss_mib"] = peak_pss / 2**20
    # CPU seconds of the whole process tree (less sensitive than wall time to a busy shared machine)
    res["cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return res
