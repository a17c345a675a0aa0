"""Child processes that die with corpusbench: a guard for process trees, parent watches, SIGTERM.

A killed corpusbench (SIGKILL, SIGTERM, ``timeout``) must leave no process and no shared memory.

- ``GuardedProcess`` starts a command under a guard, ``python -P procs.py WATCH_FD GRACE -- CMD...``, the
  leader of a new process group and the subreaper of everything the command starts. The guard reads
  a pipe whose other end only the parent holds; when the parent dies (or calls ``release()``) the
  pipe closes and the guard stops the command (SIGTERM, then SIGKILL after a grace period). Whenever
  the command ends, the guard kills what is left of its tree and unlinks the ``/dev/shm/psm_*`` and
  ``sem.mp-*`` files that the tree had mapped (vLLM's shared-memory queues, 160-250 MB each, and
  multiprocessing's semaphores: SIGKILL leaves them behind).
- ``exit_with_parent(pid)`` makes a worker process exit when its parent dies (PR_SET_PDEATHSIG where
  the kernel has it, and a thread that watches the parent's pid).
- ``exit_on_sigterm()`` turns SIGTERM/SIGHUP into ``SystemExit``, so ``with``/``finally`` cleanup runs.

This file runs as the guard script with only the standard library (``-P``: its folder is not
searched, so ``corpusbench/io.py`` cannot shadow ``io``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

SHM_DIR = Path("/dev/shm")
SHM_PREFIXES = ("psm_", "sem.mp-")  # multiprocessing's shared memory (vLLM's queues) and semaphores
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
GRACE = 10.0  # default seconds a guarded command gets to stop after SIGTERM
SCAN_EVERY = 5.0  # seconds between two looks at the tree's shared memory


# --------------------------------------------------------------------------------------- /proc scans
def _stat(pid: int) -> tuple[int, int] | None:
    """(ppid, pgrp) of ``pid``, or None when it is gone (or a zombie)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2 :].split()  # the name may hold spaces and parentheses
    if fields[0] == b"Z":
        return None
    return int(fields[1]), int(fields[2])


def _pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []


def tree(root: int) -> set[int]:
    """Live processes below ``root`` (its descendants and its process group), without ``root``."""
    stats = {pid: st for pid in _pids() if (st := _stat(pid)) is not None}
    found = {pid for pid, (_ppid, pgrp) in stats.items() if pgrp == root}
    frontier = [root, *found]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _pgrp) in stats.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    found.discard(root)
    return found


def shm_inodes(pids: Iterable[int]) -> set[int]:
    """Inodes of the ``/dev/shm`` files that ``pids`` have mapped or open. By inode, not name: glibc
    makes a named semaphore under a temporary name, maps it, then links it to its real name."""
    inodes: set[int] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/maps").read_text(errors="replace").splitlines():
                fields = line.split(maxsplit=5)  # address perms offset dev inode path
                if len(fields) == 6 and fields[5].startswith(f"{SHM_DIR}/"):
                    inodes.add(int(fields[4]))
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(f"{SHM_DIR}/"):
                        inodes.add(os.stat(f"/proc/{pid}/fd/{fd}").st_ino)
    return inodes


def remove_shm(inodes: set[int]) -> list[Path]:
    """Unlink multiprocessing's ``/dev/shm`` files (``SHM_PREFIXES``) with one of these inodes."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(SHM_DIR):
            if entry.name.startswith(SHM_PREFIXES) and entry.inode() in inodes:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def _prctl(option: int, arg: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


# -------------------------------------------------------------------------------------- the guard
class _Guard:
    """Runs in the guard process: the command, its tree, the parent's pipe."""

    def __init__(self, watch_fd: int, grace: float, cmd: Sequence[str]) -> None:
        self.watch_fd = watch_fd
        self.grace = grace
        self.me = os.getpid()
        self.shm: set[int] = set()  # inodes
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._forward)
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # orphans of the tree are re-parented here
        self.child = subprocess.Popen(list(cmd), preexec_fn=lambda: _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM))

    def _forward(self, sig: int, _frame: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.child.send_signal(sig)

    def _note(self, msg: str) -> None:
        print(f"corpusbench guard {self.me}: {msg}", file=sys.stderr, flush=True)

    def run(self) -> int:
        parent_gone, next_scan = False, 0.0
        while self.child.poll() is None:
            if time.monotonic() >= next_scan:  # ~15 ms for a vLLM server's tree
                self.shm |= shm_inodes(tree(self.me))
                next_scan = time.monotonic() + SCAN_EVERY
            ready, _, _ = select.select([self.watch_fd], [], [], 1.0)
            if ready and not os.read(self.watch_fd, 4096):
                parent_gone = True
                break
        if parent_gone:
            self._note("the parent is gone (or released the command): stopping it")
            self._stop()
        self.cleanup()
        code = self.child.wait()
        return code if code >= 0 else 128 - code

    def _stop(self) -> None:
        self._forward(signal.SIGTERM, None)
        deadline = time.monotonic() + self.grace
        while self.child.poll() is None and time.monotonic() < deadline:
            self.shm |= shm_inodes(tree(self.me))
            time.sleep(0.2)

    def cleanup(self) -> None:
        """SIGKILL what is left of the tree, reap it, unlink the shared memory it had mapped."""
        deadline = time.monotonic() + 15.0
        while time.monotonic() < deadline:
            left = tree(self.me)
            self.shm |= shm_inodes(left)
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if self._reap() and not left:
                break
            time.sleep(0.05)
        else:
            self._note(f"processes {sorted(tree(self.me))} did not die")
        for path in remove_shm(self.shm):
            self._note(f"removed {path}")

    def _reap(self) -> bool:
        """Reap the zombies among this process's children (the tree's orphans come here too);
        True once it has no child left."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return True
            if pid == 0:
                return False
            if pid == self.child.pid:  # keep the command's exit status for ``run``
                self.child.returncode = _status_code(status)


def _status_code(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


# ------------------------------------------------------------------------------------ the parent
class GuardedProcess:
    """A command in its own process group under a guard that stops it when this process dies.

    ``proc`` is the guard's ``Popen`` (its pid is the group's id; it exits with the command's code
    once the command's whole tree is gone). ``popen_kwargs`` go to ``Popen`` (stdio is shared with
    the command)."""

    def __init__(self, cmd: Sequence[str], grace: float = GRACE, **popen_kwargs: Any) -> None:
        self.grace = grace
        read_end, self._watch = os.pipe()  # both ends non-inheritable; the guard gets read_end only
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-P", __file__, str(read_end), str(grace), "--", *cmd],
                pass_fds=(read_end,),
                start_new_session=True,
                **popen_kwargs,
            )
        except BaseException:
            os.close(self._watch)
            raise
        finally:
            os.close(read_end)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        return self.proc.poll()

    def release(self) -> None:
        """Close the watch pipe: the guard stops the command (SIGTERM, then SIGKILL) and cleans up."""
        if self._watch >= 0:
            os.close(self._watch)
            self._watch = -1

    def stop(self) -> int:
        """Stop the command and wait for the guard (SIGKILL to the group if it takes much longer)."""
        self.release()
        try:
            return self.proc.wait(self.grace + 20.0)
        except subprocess.TimeoutExpired:
            self.signal_group(signal.SIGKILL)
            return self.proc.wait()

    def kill(self) -> int:
        """SIGKILL the command's tree at once (a crash); the guard still cleans up and exits."""
        for pid in tree(self.proc.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        return self.stop()

    def signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)


# ---------------------------------------------------------------------------- workers and the CLI
def exit_with_parent(parent: int, pdeathsig: bool = False, interval: float = 0.5) -> None:
    """In a worker process: exit as soon as ``parent`` is no longer this process's parent (a thread
    polls ``getppid``). ``pdeathsig``: the kernel also SIGKILLs the worker when the parent's thread
    that started it ends, so pass it only for workers started by the parent's main thread."""
    if pdeathsig:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # died before the line above
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def exit_on_sigterm() -> None:
    """SIGTERM/SIGHUP raise ``SystemExit(128 + signal)`` in the main thread, once: ``with`` blocks and
    ``finally`` clauses run (servers stop, workers are joined); a second signal kills at once."""

    def handler(sig: int, _frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        raise SystemExit(128 + sig)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGHUP, handler)


def _guard_main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: procs.py WATCH_FD GRACE_SECONDS -- COMMAND...", file=sys.stderr)
        return 2
    return _Guard(int(argv[0]), float(argv[1]), argv[3:]).run()


if __name__ == "__main__":
    sys.exit(_guard_main(sys.argv[1:]))
