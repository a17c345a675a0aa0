"""Live progress of long LLM work: a family's LLM work (its build, its plan, its judge or LLM check).

One :class:`LLMProgress` observes a run from two sides. The pipeline's ``progress(stage, done, total)``
callback (the object is that callable) gives the stage and its count; two stage names carry more:
``round`` (the ``--per-cell`` round, of at most ``total``) and ``cells <subtask>`` (kept of wanted
quadruplets over the subtask's cells). :meth:`LLMProgress.watch` counts every answer the LLM backend
returns as it arrives (requests sent, generated tokens), so rate and time left are live.

On a terminal it is a rich live display, gone when the work ends. Elsewhere (logs, CI, a pipe) it writes
one plain line every ``interval`` seconds and a last one at the end: no colour, no cursor movement.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

ROUND = "round"  # stage name: the --per-cell round (done) of at most ``total``
CELLS = "cells "  # stage name prefix: "cells wordswap" -> kept (done) of wanted (total) in its cells
INTERVAL = 30.0  # seconds between plain lines when not on a terminal
INTERVAL_ENV = "CORPUSBENCH_PROGRESS_INTERVAL"  # the CLI's override of INTERVAL (seconds)


def interval_from_env() -> float:
    """Seconds between plain progress lines: ``$CORPUSBENCH_PROGRESS_INTERVAL``, else 30 (CLI use)."""
    try:
        return max(0.0, float(os.environ.get(INTERVAL_ENV, INTERVAL)))
    except ValueError:
        return INTERVAL


def duration(seconds: float) -> str:
    """``42 s``, ``3.5 min`` or ``1.2 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


class _Counted:
    """A backend whose answers are counted as they arrive; everything else is the backend's."""

    def __init__(self, inner: Any, count: Callable[[Any], None]):
        self._inner, self._count = inner, count

    def _wrap(self, on_result: Callable[[int, Any], None] | None) -> Callable[[int, Any], None]:
        def each(i: int, result: Any) -> None:
            self._count(result)
            if on_result is not None:
                on_result(i, result)

        return each

    def generate(self, reqs: Any, on_result: Callable[[int, Any], None] | None = None) -> Any:
        return self._inner.generate(reqs, self._wrap(on_result))

    def choose(self, reqs: Any, on_result: Callable[[int, Any], None] | None = None, **kw: Any) -> Any:
        return self._inner.choose(reqs, self._wrap(on_result), **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class LLMProgress:
    """The run's progress: a ``progress(stage, done, total)`` callable and a counter of LLM answers.

    Use as a context manager (``with LLMProgress(console, "<family> build") as p``); ``console`` decides:
    a terminal gets the live display, anything else the plain line every ``interval`` seconds (default:
    ``$CORPUSBENCH_PROGRESS_INTERVAL``, else 30)."""

    def __init__(
        self,
        console: Console,
        title: str,
        *,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.console, self.title, self.clock = console, title, clock
        self.interval = interval_from_env() if interval is None else interval
        self.live = console.is_terminal
        self._lock = threading.Lock()
        self.t0 = clock()
        self.stage: tuple[str, int, int] | None = None  # (name, done, total)
        self._stage_start = (self.t0, 0)  # when the stage began, requests sent by then
        self.round: tuple[int, int] | None = None
        self.cells: dict[str, tuple[int, int]] = {}
        self.sent = 0  # requests answered by the backend (not the cache)
        self.tokens = 0  # generated tokens of those answers
        self.failed = 0
        self._first_sent: float | None = None
        self._cached: Callable[[], int] = lambda: 0
        self._last_line = self.t0
        self._display: Live | None = None

    # -- the two observers -------------------------------------------------------------------------
    def __call__(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            if stage == ROUND:
                self.round, self.stage = (done, total), None  # a round starts its stages again
            elif stage.startswith(CELLS):
                self.cells[stage.removeprefix(CELLS)] = (done, total)
            else:
                if self.stage is None or self.stage[0] != stage:
                    self._stage_start = (self.clock(), self.sent)
                self.stage = (stage, done, total)
        self._tick()

    def answer(self, result: Any) -> None:
        """Count one answer of the backend (a ``GenResult`` or ``ChoiceResult``)."""
        with self._lock:
            self.sent += 1
            self.tokens += int(getattr(result, "tokens_out", 0) or 0)
            self.failed += getattr(result, "status", "ok") == "error"
            if self._first_sent is None:
                self._first_sent = self.clock()
        self._tick()

    @contextlib.contextmanager
    def watch(self, llm: Any) -> Iterator[Any]:
        """Count the answers of ``llm`` (a ``CachedLLM``, or a wrapper that keeps one as ``_llm``)
        while the block runs; cache hits are read from its report."""
        owner = getattr(llm, "_llm", llm)  # ServedLLM keeps the CachedLLM as ``_llm``
        inner = owner.backend
        owner.backend = _Counted(inner, self.answer)
        report = getattr(owner, "report", None)
        self._cached = (lambda: report.cache_hits) if report is not None else (lambda: 0)
        try:
            yield llm
        finally:
            owner.backend = inner

    # -- what is shown -------------------------------------------------------------------------------
    def rate(self) -> float | None:
        """Requests per second since the first answer came back."""
        if self._first_sent is None:
            return None
        dt = self.clock() - self._first_sent
        return self.sent / dt if dt > 0 and self.sent > 1 else None

    def eta(self) -> float | None:
        """Seconds left in the current stage at its own rate of answers (None: unknown)."""
        if self.stage is None:
            return None
        _, done, total = self.stage
        start, sent0 = self._stage_start
        sent, dt = self.sent - sent0, self.clock() - start
        if total <= done:
            return 0.0
        if sent < 2 or dt <= 0:
            return None
        return (total - done) / (sent / dt)

    def counters(self) -> list[str]:
        """Requests sent (and from the cache), generated tokens, the rate."""
        cached = self._cached()
        req = f"requests {self.sent:,} sent" + (f" + {cached:,} from cache" if cached else "")
        out = [
            req + (f" ({self.failed:,} failed)" if self.failed else ""),
            f"{self.tokens:,} tokens generated",
        ]
        if (r := self.rate()) is not None:
            out.append(f"{r:.2f} req/s")
        return out

    def parts(self) -> list[str]:
        """The status as short phrases (the plain line joins them)."""
        out = [f"{self.title} {duration(self.clock() - self.t0)}"]
        if self.round is not None:
            out.append(f"round {self.round[0]} (of at most {self.round[1]})")
        if self.stage is not None:
            name, done, total = self.stage
            out.append(f"{name} {done:,}/{total:,}")
        if self.cells:
            out.append("cells " + ", ".join(f"{s} {k}/{n}" for s, k, n in self._cell_rows()))
        out += self.counters()
        if (left := self.eta()) is not None:
            out.append(f"stage ETA {duration(left)}")
        return out

    def _cell_rows(self) -> list[tuple[str, int, int]]:
        return [(s, k, n) for s, (k, n) in sorted(self.cells.items())]

    def line(self) -> str:
        return " · ".join(self.parts())

    def render(self) -> Group:
        """The live display: title and counters, the stage's bar, the cells' fill."""
        with self._lock:
            head = [f"{self.title} {duration(self.clock() - self.t0)}", *self.counters()]
            if (left := self.eta()) is not None:
                head.append(f"stage ETA {duration(left)}")
            stage, cells = self.stage, self._cell_rows()
        rows: list[Any] = [Text(" · ".join(head), no_wrap=True, overflow="ellipsis")]
        grid = Table.grid(padding=(0, 1))
        if self.round is not None:
            grid.add_row("round", Text(f"{self.round[0]} (of at most {self.round[1]})"))
        if stage is not None:
            name, done, total = stage
            grid.add_row(
                name, ProgressBar(total=max(total, 1), completed=done, width=40), f"{done:,}/{total:,}"
            )
        for s, k, n in cells:
            grid.add_row(f"cells {s}", ProgressBar(total=max(n, 1), completed=k, width=40), f"{k}/{n}")
        rows.append(grid)
        return Group(*rows)

    # -- life cycle ----------------------------------------------------------------------------------
    def _tick(self) -> None:
        if self.live:
            return  # rich refreshes the live display itself
        now = self.clock()
        if now - self._last_line >= self.interval:
            self._last_line = now
            self._say(self.line())

    def _say(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def __enter__(self) -> LLMProgress:
        if self.live:
            self._display = Live(
                get_renderable=self.render, console=self.console, refresh_per_second=4, transient=True
            )
            self._display.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self._display is not None:
            self._display.stop()
            self._display = None
        if exc_type is None and (self.sent or self._cached()):  # a failed run says only its error
            done = f"{self.title}: done in {duration(self.clock() - self.t0)}"
            self._say(" · ".join([done, *self.counters()]))
