"""``corpusbench.procs``: a guarded tree (a child, its grandchild, a mapped /dev/shm/psm_* segment and
a named semaphore) dies with its parent, however the parent ends; the guard passes its command's exit
code on and reaps what its command left."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
from orphans import ROOT, SHM, kill_and_check, tree_of, wait_until  # noqa: E402

from corpusbench.procs import GuardedProcess  # noqa: E402

pytestmark = pytest.mark.skipif(not SHM.is_dir(), reason="needs Linux /dev/shm")

# The guarded command: ignores SIGTERM (so the guard must escalate) and starts a grandchild that
# maps a shared-memory segment and then also ignores SIGTERM, like vLLM's engine core.
GRANDCHILD = textwrap.dedent(
    """
    import _multiprocessing, mmap, os, signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    lock = _multiprocessing.SemLock(1, 1, 1, "/" + sys.argv[2], False)  # /dev/shm/sem.NAME
    fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR, 0o600)
    os.ftruncate(fd, 4096)
    mem = mmap.mmap(fd, 4096)
    time.sleep(600)
    """
)
CHILD = textwrap.dedent(
    """
    import signal, subprocess, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    subprocess.Popen([sys.executable, "-c", *sys.argv[1:]])
    time.sleep(600)
    """
)
PARENT = textwrap.dedent(
    """
    import sys, time
    from corpusbench.procs import GuardedProcess, exit_on_sigterm
    exit_on_sigterm()
    g = GuardedProcess([sys.executable, "-c", *sys.argv[1:]], grace=1.0)
    try:
        time.sleep(600)
    finally:
        g.stop()
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_guarded_tree_and_its_shm_die_with_the_parent(sig: signal.Signals) -> None:
    token = uuid.uuid4().hex[:12]
    segment, semaphore = SHM / f"psm_cbtest_{token}", SHM / f"sem.mp-cbtest-{token}"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD, GRANDCHILD, str(segment), semaphore.name[4:]],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_until(segment.exists, 60, "the grandchild's segment", parent)
        assert semaphore.exists()
        tree = tree_of(parent, 3, 60, "guard, child and grandchild")
        code = kill_and_check(parent, sig, tree)
        wait_until(lambda: not segment.exists() and not semaphore.exists(), 30, "the shm files' removal")
        assert code == (-signal.SIGKILL if sig == signal.SIGKILL else 128 + signal.SIGTERM)
    finally:
        parent.kill()
        segment.unlink(missing_ok=True)
        semaphore.unlink(missing_ok=True)


def test_guard_passes_the_exit_code_and_kills_a_stray_grandchild() -> None:
    stray = (
        "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', 'import time; "
        "time.sleep(600)']); print(p.pid, flush=True); sys.exit(7)"
    )
    g = GuardedProcess([sys.executable, "-c", stray], stdout=subprocess.PIPE, text=True)
    assert g.proc.wait(60) == 7
    grandchild = int(g.proc.stdout.read())
    assert not psutil.pid_exists(grandchild)  # killed and reaped (it was re-parented to the guard)
    g.stop()
