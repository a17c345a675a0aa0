"""A small tmpfs a test mounts for itself (#42: a full disk); skipped where mounting is not allowed."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _mount(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False, timeout=30)


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (mount's spelling: ``8k``, ``128k``) at ``where``, unmounted afterwards."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    where.mkdir()
    done = _mount(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)])
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        _mount(["umount", str(where)])


def grow(disk: Path, size: str = "64m") -> None:
    """Give a mounted tmpfs more room (the fault fixed: the rerun must complete)."""
    done = _mount(["mount", "-o", f"remount,size={size}", str(disk)])
    assert done.returncode == 0, done.stderr
