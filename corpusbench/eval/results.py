"""An eval run's output folder (``results.json``, ``timing.json``, ``scores.parquet``, ``summary.md``,
figures), the :class:`EvalReport` it returns and the text helpers its console and summaries share."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpusbench.eval.spec import EvalSpec
from corpusbench.eval.timing import StageClock
from corpusbench.io import atomic_dir, atomic_path, atomic_write, write_json

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalReport:
    out: Path
    accuracy: float
    n_pairs: int
    per_config: dict[str, float | None] = field(default_factory=dict)
    seconds: float = 0.0
    skipped: dict[str, str] = field(default_factory=dict)
    benchmarks: dict[str, Any] = field(default_factory=dict)
    n_ties: int = 0
    per_config_ties: dict[str, str] = field(default_factory=dict)  # config -> "ties 3/20 (15.0%), ..."
    timing: dict[str, Any] = field(default_factory=dict)  # results.json "timing": seconds per stage, tokens

    def headline(self) -> list[str]:
        """The console's benchmark lines: each score with its ties (count, share, ties as half)."""
        return headline_lines(self.benchmarks)


def fmt(x: float | None, spec: str = ".4f") -> str:
    """``x`` formatted (``n/a`` for None)."""
    return "n/a" if x is None else format(x, spec)


def ci_text(ci: Sequence[float] | None) -> str:
    """`` [lo, hi]`` of a 95% interval (empty without one)."""
    return "" if not ci or ci[0] != ci[0] else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def tie_text(n_ties: int, n: int, half: float | None = None) -> str:
    """``ties 88/140 (62.9%), ties as ½ 0.479`` (just ``ties 0/140`` without ties)."""
    text = f"ties {n_ties}/{n}"
    if n_ties and n:
        text += f" ({n_ties / n:.1%})" + (f", ties as ½ {half:.4f}" if half is not None else "")
    return text


def cell_text(c: dict[str, Any]) -> str:
    """One accuracy cell: ``0.812 [0.70, 0.89] (n=40, ties 2)``."""
    ties = f", ties {c['n_ties']}" if c.get("n_ties") else ""
    return f"{fmt(c['accuracy'], '.3f')}{ci_text(c.get('ci95'))} (n={c['n']}{ties})"


def headline_lines(bench: dict[str, Any]) -> list[str]:
    """The console's lines of each ``benchmarks`` block: its family's ``console`` hook, else its headline
    metric (``score`` for a block of no registered family)."""
    from corpusbench.family import families, load

    lines = []
    for name, block in bench.items():
        family = families.get(name) if name in families else None
        kind = family.eval if family is not None else None
        if kind is not None and kind.console is not None:
            lines += load(kind.console)(block)
        else:
            metric = kind.headline if kind is not None else "score"
            lines.append(f"{name} {metric} {fmt(block.get(metric))}")
    return lines


def in_benchmark(config: str, bench: Mapping[str, Any]) -> bool:
    """Whether a family's block of ``benchmarks`` holds this config (its ``covers`` hook, else its
    ``configs`` list); such configs are reported by their family, not one by one."""
    from corpusbench.family import families, load

    for family in families.with_eval():
        block = bench.get(family.name)
        if not block or family.eval is None:
            continue
        covers = family.eval.covers
        if load(covers)(config, block) if covers is not None else config in (block.get("configs") or []):
            return True
    return False


def write_eval_folder(
    spec: EvalSpec,
    results: dict[str, Any],
    scores: pd.DataFrame,
    *,
    started: float,
    scoring_seconds: float,
    unit: str,
    n_units: int,
    n_items: int,
    extras: Callable[[Path], None],
    summary: Callable[[dict[str, Any]], str],
    clock: StageClock | None = None,
) -> EvalReport:
    """Write ``results.json``, ``timing.json``, ``scores.parquet``, the ``extras`` and ``summary.md``
    into ``spec.out`` atomically (all or nothing) and return the report. ``results["timing"]`` gets the
    seconds per stage of ``clock`` (figures and the files written before ``results.json`` included)."""
    clock = clock or StageClock()
    with atomic_dir(spec.out) as tmp:
        with clock.stage("write"), atomic_path(tmp / "scores.parquet") as p:
            scores.to_parquet(p, index=False)
        with clock.stage("figures"):
            extras(tmp)
        results["timing"] = clock.as_dict(time.perf_counter() - started)
        timing = {
            **results["timing"],
            "seconds_scoring": scoring_seconds,
            f"{unit}_scored": n_units,
            f"{unit}_per_s": n_units / scoring_seconds if scoring_seconds > 0 else None,
        }
        write_json(tmp / "results.json", results)
        write_json(tmp / "timing.json", timing)
        with atomic_write(tmp / "summary.md") as fh:
            fh.write(summary(results))
    return EvalReport(
        out=spec.out,
        accuracy=results["accuracy"],
        n_pairs=n_items,
        per_config={c: m["accuracy"] for c, m in results["configs"].items()},
        seconds=time.perf_counter() - started,
        n_ties=int(results.get("n_ties") or 0),
        per_config_ties={
            c: tie_text(int(m.get("n_ties") or 0), int(m.get("n") or 0), m.get("accuracy_ties_half"))
            for c, m in results["configs"].items()
            if "n_ties" in m
        },
        timing=results["timing"],
    )
