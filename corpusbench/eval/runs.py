"""Eval runs read back for comparison (:class:`Run`, :func:`load_runs`) and the 95% intervals that the
table (:mod:`corpusbench.eval.compare`) and the figures (:mod:`corpusbench.eval.compare_plots`) share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError
from corpusbench.eval.metrics import cells_interval
from corpusbench.io import read_json


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    label: str
    path: Path
    results: dict[str, Any]

    @property
    def bench(self) -> dict[str, Any]:
        return self.results.get("benchmarks") or {}


def load_runs(dirs: Sequence[str | Path]) -> list[Run]:
    """Each folder's ``results.json``; labels are model names, made unique with the folder name."""
    raw = []
    for d in dirs:
        path = Path(d) / "results.json"
        if not path.is_file():
            raise InputError(f"{d}: not an eval output folder (no results.json)")
        raw.append((Path(d), read_json(path)))
    names = [_model_label(r["provenance"]["model"]) for _, r in raw]
    labels = [n if names.count(n) == 1 else f"{n} ({p.name})" for n, (p, _) in zip(names, raw, strict=True)]
    return [Run(label=lab, path=p, results=r) for lab, (p, r) in zip(labels, raw, strict=True)]


def _model_label(model: Mapping[str, Any]) -> str:
    name = str(model.get("model_id", "?")).rstrip("/").split("/")[-1]
    arch = str(model.get("arch", ""))
    return f"{arch}:{name}" if arch.startswith("ngram") else name


def prop_ci(cell: Mapping[str, Any]) -> list[float]:
    """Wilson 95% interval of one accuracy cell (``n``, ``n_correct``)."""
    return cells_interval({"c": (cell["n"], cell["n_correct"])}, {"c": 1.0})


def mean_ci(cells: Mapping[str, Mapping[str, Any]]) -> list[float]:
    """95% interval of the unweighted mean of several accuracy cells (a score over paradigms)."""
    counts = {k: (c["n"], c["n_correct"]) for k, c in cells.items()}
    return cells_interval(counts, {k: 1 / len(counts) for k in counts})
