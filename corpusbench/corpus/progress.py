"""Progress of ``corpusbench stats``: a bar with the remaining time on a terminal, a line every
``every_s`` seconds (bytes, documents, words/s, ETA) in a log."""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any

from rich.console import Console


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class StatsProgress:
    """``total(bytes, shards)`` once the plan is known, then ``update(documents, bytes)`` per shard.

    The bar does not refresh from a thread of its own (it redraws on each update), so the local
    executor may fork its workers (see ``corpus.executors.LocalExecutor.start``)."""

    def __init__(self, console: Console, every_s: float = 30.0) -> None:
        self.console = console
        self.every_s = every_s
        self.start = time.monotonic()
        self.last = self.start
        self.bytes_total: int | None = None
        self.shards = 0
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> StatsProgress:
        if self.console.is_terminal:
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
                TransferSpeedColumn,
            )

            columns = (
                TextColumn("[bold]stats[/]"),
                BarColumn(bar_width=None),
                TextColumn("{task.fields[docs]:,} docs"),
                TransferSpeedColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
            )
            self._bar = Progress(*columns, console=self.console, transient=True, auto_refresh=False)
            self._bar.__enter__()
            self._task = self._bar.add_task("stats", total=None, docs=0)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(exc_type, exc, tb)

    def total(self, nbytes: int, shards: int) -> None:
        self.bytes_total = nbytes
        self.shards = shards
        if self._bar is not None:
            self._bar.update(self._task, total=nbytes, refresh=True)

    def eta(self, nbytes: int, now: float) -> float | None:
        """Seconds left at the average rate so far (None before any byte is done or without a total)."""
        if not self.bytes_total or nbytes <= 0:
            return None
        return (now - self.start) * (self.bytes_total - nbytes) / nbytes

    def update(self, docs: int, nbytes: int) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=nbytes, docs=docs, refresh=True)
            return
        now = time.monotonic()
        if now - self.last < self.every_s:
            return
        self.last = now
        elapsed = now - self.start
        done = f"{nbytes / 1e6:,.1f}" + (f" of {self.bytes_total / 1e6:,.1f}" if self.bytes_total else "")
        pct = (
            f" MB ({100 * nbytes / self.bytes_total:.0f}%, {self.shards:,} shards)"
            if self.bytes_total
            else " MB"
        )
        eta = self.eta(nbytes, now)
        left = f", ETA {_clock(eta)}" if eta is not None else ""
        self.console.print(
            f"stats: {done}{pct}, {docs:,} documents, {nbytes / 1e6 / max(elapsed, 1e-9):.2f} MB/s, "
            f"{_clock(elapsed)} elapsed{left}"
        )
