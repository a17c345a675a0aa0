"""Where an eval run's time goes: seconds per stage and the tokens run through the model.

Stages: ``import`` (the CLI's imports), ``load`` (model and tokenizer), ``tokenize``, ``forward``
(scoring less its tokenization), ``metrics``, ``figures`` and ``write`` (the files written before
``results.json``). A scorer counts the tokens its model runs (padding included) with
:func:`count_tokens`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

STAGES = ("import", "load", "tokenize", "forward", "metrics", "figures", "write")
# gen0 / gen1 / gen2 thresholds of the garbage collector during an eval run (CPython's default: 700, 10, 10)
GC_THRESHOLDS = (10_000, 50, 50)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the collector's thresholds at ``GC_THRESHOLDS``, then restore them.

    Importing torch and transformers grows the heap by millions of objects, and CPython then runs
    full collections over all of them again and again: 9 full collections took 1.2 s of a 12 s
    prep_anim run (measured with ``gc.callbacks``, one thread); with these thresholds, none.
    Cyclic garbage is still collected, less often.
    """
    import gc

    old = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)


class StageClock:
    """Seconds per stage (added up over repeated entries) and the tokens run through the model."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.tokens = 0

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def merge(self, other: StageClock | None) -> None:
        """Add ``other``'s seconds and tokens (a scorer's clock) into this one."""
        if other is not None and other is not self:
            for name, s in other.seconds.items():
                self.add(name, s)
            self.tokens += other.tokens
            other.seconds, other.tokens = {}, 0

    def as_dict(self, total: float) -> dict[str, Any]:
        """``seconds`` per stage (``score`` split into tokenize + forward), total, tokens and tokens/s."""
        sec = dict(self.seconds)
        if "score" in sec:
            sec["forward"] = max(0.0, sec.pop("score") - sec.get("tokenize", 0.0))
        ordered = {k: round(sec[k], 3) for k in STAGES if k in sec}
        ordered |= {k: round(v, 3) for k, v in sec.items() if k not in ordered}
        fwd = sec.get("forward", 0.0)
        return {
            "seconds": ordered,
            "seconds_total": round(total, 3),
            "tokens_forward": self.tokens,
            "tokens_per_s_forward": round(self.tokens / fwd, 1) if fwd > 0 else None,
            "tokens_per_s_total": round(self.tokens / total, 1) if total > 0 else None,
        }


def timing_line(timing: dict[str, Any]) -> str:
    """One line: ``load 1.2 s · tokenize 0.4 s · ... · total 12.3 s · 76,960 tokens (7,850/s in forward)``."""
    parts = [f"{k} {v:.1f} s" for k, v in timing["seconds"].items()]
    rate = timing.get("tokens_per_s_forward")
    tokens = f"{timing['tokens_forward']:,} tokens" + (f" ({rate:,.0f}/s in forward)" if rate else "")
    return " · ".join([*parts, f"total {timing['seconds_total']:.1f} s", tokens])


def count_tokens(module: Any, clock: StageClock) -> None:
    """Add the ``input_ids`` of every forward of ``module`` to ``clock.tokens``."""

    def hook(_m: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        if ids is not None:
            clock.tokens += int(ids.numel())

    module.register_forward_pre_hook(hook, with_kwargs=True)
