"""Helpers of the kill tests: start a parent, take its process tree, kill it, wait for the tree to go.

Independent of ``corpusbench.procs`` (psutil and /dev/shm only), so they check what it promises.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psutil

SHM = Path("/dev/shm")
ROOT = Path(__file__).resolve().parents[1]


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def alive(procs: list[psutil.Process]) -> list[str]:
    """``pid name`` of each process still running (zombies count as gone)."""
    out = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
        except psutil.NoSuchProcess:
            pass
    return out


def psm_segments() -> set[str]:
    return {p.name for p in SHM.glob("psm_*")} if SHM.is_dir() else set()


def mapped_segments(procs: list[psutil.Process]) -> set[str]:
    """The /dev/shm/psm_* segments that ``procs`` have mapped."""
    names = set()
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            names |= {Path(m.path).name for m in p.memory_maps() if m.path.startswith(f"{SHM}/psm_")}
    return names


def leaked_segments(before: set[str]) -> set[str]:
    """/dev/shm/psm_* segments made since ``before`` that no running process maps (left behind)."""
    new = psm_segments() - before
    return new - mapped_segments(list(psutil.process_iter())) if new else set()


def wait_until(check: Callable[[], object], timeout: float, what: str, proc: subprocess.Popen | None = None):
    """Poll ``check`` until it is true; fails naming ``what`` (and the parent's output if it ended)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        if proc is not None and proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            raise AssertionError(f"the parent ended ({proc.returncode}) before {what}: {out[-3000:]}")
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def tree_of(proc: subprocess.Popen, at_least: int, timeout: float, what: str) -> list[psutil.Process]:
    """The parent's descendants once there are ``at_least`` of them."""

    def check() -> list[psutil.Process] | None:
        tree = descendants(proc.pid)
        return tree if len(alive(tree)) >= at_least else None

    return wait_until(check, timeout, what, proc)


def kill_and_check(proc: subprocess.Popen, sig: int, tree: list[psutil.Process], timeout: float = 60.0):
    """Send ``sig`` to the parent only; then every process of ``tree`` must be gone within ``timeout``."""
    os.kill(proc.pid, sig)
    code = proc.wait(timeout)
    deadline = time.monotonic() + timeout
    while alive(tree) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = alive(tree)
    for p in tree:  # never leave them to the next test
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    assert not left, f"{signal.Signals(sig).name} of the parent left {len(left)} processes: {left}"
    return code
