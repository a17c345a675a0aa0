"""Compare several eval runs (``corpusbench eval report DIR...``): one row per run, one column per config."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError
from corpusbench.io import read_json


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    configs: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]  # model, dataset, accuracy, accuracy_macro_configs, per-config accuracy
    ltswap_spread_ratio: dict[str, float | None]  # LT-Swap, WS, IS, AG (Table 2), each from its lowest bin

    def markdown(self) -> str:
        head = ["model", "dataset", "accuracy", "macro", *self.configs]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in self.rows:
            vals = [r["accuracy"], r["accuracy_macro_configs"], *[r["configs"].get(c) for c in self.configs]]
            cells = [r["model"], r["dataset"], *["" if v is None else f"{v:.4f}" for v in vals]]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def compare_runs(dirs: Sequence[str | Path]) -> Comparison:
    runs = []
    for d in dirs:
        path = Path(d) / "results.json"
        if not path.is_file():
            raise InputError(f"{d}: not an eval output folder (no results.json)")
        runs.append(read_json(path))
    configs = tuple(sorted({c for r in runs for c in r["configs"]}))
    rows = tuple(
        {
            "model": r["provenance"]["model"]["model_id"],
            "dataset": r["provenance"]["dataset"]["dataset"],
            "accuracy": r["accuracy"],
            "accuracy_macro_configs": r["accuracy_macro_configs"],
            "configs": {c: m["accuracy"] for c, m in r["configs"].items()},
        }
        for r in runs
    )
    from corpusbench.eval.compare import ltswap_spread_ratios

    per_model = {
        f"{i}:{r['provenance']['model']['model_id']}": r["benchmarks"]["ltswap"]
        for i, r in enumerate(runs)
        if (r.get("benchmarks") or {}).get("ltswap")
    }
    spread = ltswap_spread_ratios(per_model) if len(per_model) > 1 else {}
    return Comparison(configs=configs, rows=rows, ltswap_spread_ratio=spread)
