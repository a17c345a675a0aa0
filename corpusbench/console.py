"""Rich consoles for the CLIs: terminal width on a terminal, a wide fixed width in logs and pipes.

Rich falls back to 80 columns when output is not a terminal (``make demo`` logs, CI, ``| tee``),
which folds or cuts wide result tables; there ``COLUMNS`` decides, else 160 columns.
"""

from __future__ import annotations

import os

from rich.console import Console

LOG_WIDTH = 160


def make_console(*, stderr: bool = False) -> Console:
    """A console on stdout (or stderr) that does not squeeze tables when writing to a file or pipe."""
    con = Console(stderr=stderr)
    if con.is_terminal or os.environ.get("COLUMNS"):
        return con
    return Console(stderr=stderr, width=LOG_WIDTH)
