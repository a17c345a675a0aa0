"""All file writes go through here: atomic files and atomic output directories.

Nothing is ever half-written: files land under a temporary name in the same
directory and are moved into place with ``os.replace``; whole output folders are
built in a sibling temporary folder and renamed at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish_mode(path: str | os.PathLike[str], *, directory: bool = False) -> None:
    """mkstemp/mkdtemp create 0600/0700 entries; give the final ones the usual umask-based mode."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path`` for writers that want a filename; rename it on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        _publish_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8"
) -> Iterator[Any]:
    """Open a temporary file next to ``path``; on success fsync it and rename it into place."""
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if "b" in mode else encoding) as fh:
        yield fh
        fh.flush()
        os.fsync(fh.fileno())


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike[str], *, overwrite: bool = True) -> Iterator[Path]:
    """Build an output folder in a temporary sibling and rename it to ``path`` at the end.

    If the body raises, the temporary folder is removed and ``path`` is untouched.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(f"{path}: output path exists and is not a directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        _publish_mode(tmp, directory=True)
        if path.exists():
            if not overwrite:
                raise InputError(f"{path}: output folder already exists")
            old = path.with_name(f".{path.name}.old-{os.getpid()}")
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as pretty, key-sorted JSON, atomically."""
    with atomic_write(path) as fh:
        json.dump(obj, fh, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        fh.write("\n")


def read_json(path: str | os.PathLike[str]) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write rows as JSON lines, atomically; returns the row count."""
    n = 0
    with atomic_write(path) as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True, default=str))
            fh.write("\n")
            n += 1
    return n


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{lineno}: not valid JSON ({e.msg})") from None
