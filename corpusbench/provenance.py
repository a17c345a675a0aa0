"""Fingerprints and provenance records shared by every artefact."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from pathlib import Path
from typing import Any

from corpusbench import __version__


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
