"""The console's cell view: every (subtask, bin[, length]) cell with kept of target, and the cells without
candidates named ("[128,256) InflectionSwap: no candidates"), for a run and for a plan."""

from __future__ import annotations

from corpusbench.families.ltswap import cellview
from corpusbench.families.ltswap.cells import CellReport
from corpusbench.families.ltswap.pipeline import LtswapParams, plan_ltswap, run_ltswap
from corpusbench.families.ltswap.sizing import expected_counts
from corpusbench.llm.cache import CachedLLM
from tests.families.ltswap.test_pipeline import RuleLLM

DEMO_CELLS = LtswapParams(per_cell=3, agreement_cells="bin")


def test_the_grid_has_the_documented_32_cells():
    assert len(cellview.grid(DEMO_CELLS.subtasks, DEMO_CELLS.rules, False)) == 10 + 11 + 11
    assert len(cellview.grid(("agrswap",), ("SVSHORT", "SVLONG"), True)) == 22  # SHORT and LONG


def test_cells_without_candidates_are_named():
    full = [
        CellReport(subtask=c.subtask, bin=c.bin, length="", target=3, kept=3, drawn=4, left=1, reason="")
        for c in cellview.grid(DEMO_CELLS.subtasks, DEMO_CELLS.rules, False)
        if not (c.bin == 8 and c.subtask != "wordswap")  # [128,256): none for InflectionSwap, AgreementSwap
    ]
    rows = cellview.run_rows(DEMO_CELLS, full, {}, None)
    assert len(rows) == 32
    assert cellview.no_candidates(rows) == [
        "[128,256) InflectionSwap: no candidates",
        "[128,256) AgreementSwap: no candidates",
    ]
    assert sum(r.kept for r in rows) == 90 and all(r.target == 3 for r in rows)


def test_run_and_plan_rows_on_the_slice(slice_stats, tmp_path):
    params = LtswapParams(per_cell=1, max_per_bin=3, subtasks=("wordswap", "inflswap"), seed=0)
    res = run_ltswap(slice_stats, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), params, tmp_path / "lt")
    rows = cellview.run_rows(params, res.cells, res.quadruplets, res.funnel)
    assert len(rows) == 21 and {(r.cell.subtask, r.cell.bin) for r in rows} >= {
        (c.subtask, c.bin) for c in res.cells
    }
    named = {r.name.split(": ")[0] for r in rows if r.note == cellview.NO_CANDIDATES}
    assert {line.split(": ")[0] for line in cellview.no_candidates(rows)} == named
    assert len(rows) - len(named) == len(res.cells)  # every other cell is a cell of the run
    plan = plan_ltswap(slice_stats, params)
    prow = cellview.plan_rows(params, plan.pools, expected_counts(params, plan.pools, plan.counts), {})
    assert {r.name for r in prow if r.note == cellview.NO_CANDIDATES} == named
    text = cellview.table(prow, "plan", plan=True)
    assert [c.header for c in text.columns][2:4] == ["kept (est.)", "to draw"]
