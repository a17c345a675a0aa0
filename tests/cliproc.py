"""``python -m corpusbench ARGS`` in a fresh process, as a user runs it (no CORPUSBENCH_DEBUG)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def corpusbench(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI in ``cwd`` with ``env`` (default: this process's environment), captured as text."""
    env = {k: v for k, v in (os.environ if env is None else env).items() if k != "CORPUSBENCH_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "corpusbench", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
