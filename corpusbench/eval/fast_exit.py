"""Ending a finished command's process without the interpreter's teardown.

With torch and transformers loaded, tearing the interpreter down (module dicts, millions of objects,
native destructors) took 1-4 s of ``eval run``'s wall time on 2 cores, after every file was written.
A command whose outputs are written and closed calls :func:`allow`; the entry point
(:func:`corpusbench.cli.main`) then ends the process with :func:`exit_now`: the ``atexit`` handlers
run, logging and stdout/stderr are flushed, and ``os._exit`` skips the rest. In-process callers
(tests, ``CliRunner``) never reach it, and a profiler (which writes its file at teardown) turns it off.
"""

from __future__ import annotations

import logging
import os
import sys

_allowed = False


def allow() -> None:
    """Let this process end without the interpreter's teardown (see the module doc)."""
    global _allowed
    _allowed = True


def allowed() -> bool:
    """Whether a command allowed it and no profiler is running."""
    return _allowed and not _profiled()


def _profiled() -> bool:
    """A profiler is on: ``sys.setprofile`` (Python ≤ 3.11's cProfile) or, from 3.12, a tool that holds
    ``sys.monitoring``'s profiler slot (cProfile there; seen on a GPU machine: no profile was written)."""
    if sys.getprofile() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and monitoring.get_tool(monitoring.PROFILER_ID) is not None


def exit_now(code: object) -> None:
    """End the process with ``code`` (``sys.exit``'s meaning) after the ``atexit`` handlers and flushes."""
    import atexit

    status = code if isinstance(code, int) else 0 if code is None else 1
    if not isinstance(code, int | None):
        print(code, file=sys.stderr)
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 1  # stdout closed or full: a failure, as the interpreter reports it
    os._exit(status)
