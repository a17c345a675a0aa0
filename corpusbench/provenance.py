"""Fingerprints and provenance records shared by every artefact."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from corpusbench import __version__
from corpusbench.errors import InputError
from corpusbench.io import atomic_write, cache_dir


def stable_json(obj: Any) -> str:
    """Canonical JSON (sorted keys, no whitespace) used for hashing."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint(*parts: Any) -> str:
    """sha256 over the canonical JSON of ``parts``."""
    return sha256_text(stable_json(list(parts)))


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


#: Files at least this large have their sha256 remembered by :func:`file_sha256_cached`.
HASH_CACHE_MIN_BYTES = 16 << 20


def hash_cache_dir() -> Path | None:
    """Where :func:`file_sha256_cached` remembers digests: ``$CORPUSBENCH_HASH_CACHE`` (``0``/``off``:
    nowhere), else corpusbench's cache folder ``sha256`` (:func:`corpusbench.io.cache_dir`:
    ``$XDG_CACHE_HOME/corpusbench/sha256``)."""
    env = os.environ.get("CORPUSBENCH_HASH_CACHE")
    if env is not None:
        return None if env.lower() in ("", "0", "off", "no", "false") else Path(env)
    return cache_dir("sha256")


def file_sha256_cached(path: str | Path) -> str:
    """:func:`file_sha256`, remembered for large files by what ``stat`` says of them (absolute path, device,
    inode, size, modification time in ns), as git's index skips unchanged files: a model's weights are read
    and hashed once, not at every ``eval run``. A file changed in any of those is hashed again; a cache
    that cannot be written is skipped."""
    path = Path(path)
    st = path.stat()
    where = hash_cache_dir()
    if where is None or st.st_size < HASH_CACHE_MIN_BYTES:
        return file_sha256(path)
    key = sha256_text(stable_json([str(path.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]))
    entry = where / key[:2] / key
    try:
        known = entry.read_text(encoding="ascii").strip()
        if len(known) == 64:
            return known
    except (OSError, UnicodeDecodeError):
        pass
    digest = file_sha256(path)
    if path.stat().st_mtime_ns == st.st_mtime_ns:  # not changed while being read
        try:
            with atomic_write(entry, encoding="ascii") as fh:
                fh.write(digest + "\n")
        except (OSError, InputError):  # InputError: a file where a folder should be
            pass
    return digest


def git_sha() -> str | None:
    """The git commit of the corpusbench source tree, if it is a checkout."""
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def code_version() -> dict[str, Any]:
    """What produced an artefact: package version, git sha, python."""
    return {"corpusbench": __version__, "git_sha": git_sha(), "python": platform.python_version()}
