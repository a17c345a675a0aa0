"""`compare` puts a short headline first (#32 item 7): one row per model with its benchmark scores and
intervals; the wide table (~60 columns for a full release) goes to compare-full.md and compare.csv."""

from __future__ import annotations

from corpusbench.eval.compare import HEADLINE_MAX, Run, comparison_table, headline_columns


def _cell(n: int, k: int) -> dict:
    return {"n": n, "n_correct": k, "accuracy": k / n}


def _fitclams() -> dict:
    paradigms = {p: _cell(10, 7 + i % 3) for i, p in enumerate(("simple_agrmt", "vp_coord", "prep_anim"))}
    bins = {str(b): _cell(6, 4) for b in range(10)}
    return {
        "score": 0.8,
        "n_ties": 2,
        "score_ties_half": 0.85,
        "per_paradigm": paradigms,
        "per_noun_bin": bins,
        "per_verb_bin": bins,
    }


def test_headline_keeps_the_benchmark_scores_only() -> None:
    runs = [
        Run(label=m, path=None, results={"benchmarks": {"fitclams": _fitclams(), "cac": {"score": 0.7}}})
        for m in ("a", "b")
    ]
    table = comparison_table(runs)
    head = table.only(headline_columns(table))
    assert head.columns == ["FIT-CLAMS", "FIT-CLAMS (ties ½)", "CAC"] and len(table.columns) > 20
    md = head.markdown().splitlines()
    assert md[0] == "| model | FIT-CLAMS | FIT-CLAMS (ties ½) | CAC |" and len(md) == 4
    assert md[2].startswith("| a | 0.800 [") and md[2].endswith(" | 0.850 | 0.700 |")


def test_runs_without_a_benchmark_head_with_their_first_configs() -> None:
    configs = {f"c{i}": _cell(10, 5) for i in range(12)}
    table = comparison_table([Run(label="m", path=None, results={"benchmarks": {}, "configs": configs})])
    assert headline_columns(table) == [f"c{i}" for i in range(HEADLINE_MAX)]
