"""The console's cell view of an LT-Swap run or plan: every (subtask, bin[, SHORT/LONG]) cell the requested
subtasks can have, with its target and kept (or expected) quadruplets, and the cells without a single
candidate named, so that "30 cells" never hides which two are missing.

WordSwap has no bin [0] cell (a word the corpus never has has no corpus sentence to swap from); the
other subtasks have all 11 bins; AgreementSwap cells are split into SHORT and LONG unless
``--agreement-cells bin``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from corpusbench.families.ltswap import cells as cellmod
from corpusbench.families.ltswap.bins import LTSWAP_N_BINS, ltswap_bin_label

TITLES = {"wordswap": "WordSwap", "inflswap": "InflectionSwap", "agrswap": "AgreementSwap"}
FIRST_BIN = {"wordswap": 1}  # WordSwap: no cell for words the corpus never has
NO_CANDIDATES = "no candidates"


@dataclass(frozen=True, slots=True, kw_only=True)
class CellRow:
    """One cell as shown: target (None: no --per-cell), kept (a plan: expected), candidates drawn (a plan:
    to draw), candidates left undrawn (None: not known) and why it is short ("" when full)."""

    cell: cellmod.Cell
    target: int | None
    kept: int
    drawn: int
    left: int | None
    note: str

    @property
    def name(self) -> str:
        """``[128,256) InflectionSwap`` (``SHORT``/``LONG`` after it for split AgreementSwap cells)."""
        c = self.cell
        return f"{ltswap_bin_label(c.bin)} {TITLES[c.subtask]}" + (f" {c.length}" if c.length else "")


def grid(subtasks: Iterable[str], rules: Sequence[str], by_length: bool) -> list[cellmod.Cell]:
    """Every cell the subtasks can have, in subtask then bin order."""
    out: list[cellmod.Cell] = []
    for s in subtasks:
        for b in range(FIRST_BIN.get(s, 0), LTSWAP_N_BINS):
            out += cellmod.cells_of(s, b if s == "agrswap" else (b, ""), rules, by_length)
    return out


def _missing(
    cells: list[cellmod.Cell], have: set[cellmod.Cell], target: int | None
) -> dict[cellmod.Cell, CellRow]:
    return {
        c: CellRow(cell=c, target=target, kept=0, drawn=0, left=0, note=NO_CANDIDATES)
        for c in cells
        if c not in have
    }


def run_rows(
    params: Any, reports: Sequence[cellmod.CellReport] | None, quads: Mapping[str, Sequence[Any]], funnel: Any
) -> list[CellRow]:
    """A finished run's cells: a ``--per-cell`` run's reports, else the kept quadruplets and candidates per
    cell from the funnel; the grid's cells without candidates added, named."""
    split = params.by_length and reports is not None  # AgreementSwap's SHORT/LONG cells: --per-cell only
    cells = grid(params.subtasks, params.rules, split)
    rows: dict[cellmod.Cell, CellRow] = {}
    if reports is not None:
        for r in reports:
            c = cellmod.Cell(r.subtask, r.bin, r.length)
            rows[c] = CellRow(cell=c, target=r.target, kept=r.kept, drawn=r.drawn, left=r.left, note=r.reason)
    else:
        kept = Counter(cellmod.cell_of(s, q.bin, q.rule, split) for s, qs in quads.items() for q in qs)
        for c in cells:
            n = funnel.counts[(c.subtask, c.bin, "candidates")]
            if n:
                rows[c] = CellRow(cell=c, target=None, kept=kept[c], drawn=n, left=None, note="")
    rows |= _missing(cells, set(rows), params.per_cell)
    return [rows[c] for c in cells]


def plan_rows(
    params: Any, pools: cellmod.Pools, draws: Mapping[cellmod.Group, int], kept: Mapping[cellmod.Cell, float]
) -> list[CellRow]:
    """A plan's cells: candidates to draw (``draws``, per sampling group) and left, expected kept."""
    cells = grid(params.subtasks, params.rules, params.by_length)
    drawn: Counter[cellmod.Cell] = Counter()
    pool: Counter[cellmod.Cell] = Counter()
    for (s, g), n in draws.items():
        for c in cellmod.cells_of(s, g, params.rules, params.by_length):
            drawn[c] += n
            pool[c] += len(pools[s][g])
    expect = {c: round(min(kept.get(c, 0.0), params.per_cell or float("inf"))) for c in pool}
    rows = {
        c: CellRow(
            cell=c,
            target=params.per_cell,
            kept=expect[c],
            drawn=drawn[c],
            left=pool[c] - drawn[c],
            note="" if params.per_cell is None or expect[c] >= params.per_cell else "may fall short",
        )
        for c in pool
        if pool[c]
    }
    rows |= _missing(cells, set(rows), params.per_cell)
    return [rows[c] for c in cells if c in rows]


def no_candidates(rows: Sequence[CellRow]) -> list[str]:
    """``[128,256) InflectionSwap: no candidates`` for each cell without any."""
    return [f"{r.name}: {NO_CANDIDATES}" for r in rows if r.note == NO_CANDIDATES]


def table(rows: Sequence[CellRow], title: str, *, plan: bool = False) -> Table:
    """The cell table: one row per cell; a plan's kept and drawn are expectations."""
    kept, drawn = ("kept (est.)", "to draw") if plan else ("kept", "drawn")
    t = Table("cell", "target", kept, drawn, "left", "shortfall", title=title)
    for col in t.columns[1:5]:
        col.justify = "right"
    for r in rows:
        t.add_row(
            r.name,
            "—" if r.target is None else str(r.target),
            str(r.kept),
            str(r.drawn),
            "—" if r.left is None else str(r.left),
            r.note,
        )
    return t
