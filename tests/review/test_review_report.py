"""``review report``: valid shares with Wilson intervals, the judge's precision/recall/κ, κ between
reviewers, the figure; and Cohen's κ against scikit-learn's."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import cli

from corpusbench.errors import InputError
from corpusbench.intervals import wilson
from corpusbench.review.items import JUDGE_KEPT, JUDGE_REJECTED, load_source
from corpusbench.review.labels import LabelStore
from corpusbench.review.report import build_report, cohen_kappa, fleiss_kappa, markdown


def test_cohen_kappa_matches_scikit_learn() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    a = ["valid", "valid", "invalid", "marginal", "valid", "invalid", "invalid", "valid"]
    b = ["valid", "invalid", "invalid", "marginal", "valid", "valid", "invalid", "marginal"]
    assert cohen_kappa(a, b) == pytest.approx(metrics.cohen_kappa_score(a, b))
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    assert math.isnan(cohen_kappa(["x", "x"], ["x", "x"])) and math.isnan(cohen_kappa([], []))


def _label_all(folder: Path, run: Path, reviewer: str, rule) -> None:  # type: ignore[no-untyped-def]
    src = load_source(folder, rejected_from=run)
    store = LabelStore(folder, reviewer, src.name)
    for it in src.items:
        store.add(it.fingerprint, rule(it), subtask=it.subtask, bin=it.bin, judge=it.judge)


def test_fleiss_kappa_by_hand() -> None:
    """Four pairs with two labels each (a a, a b, b b, a a): observed 0.75, chance (5/8)^2 + (3/8)^2."""
    ratings = [["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]]
    chance = (5 / 8) ** 2 + (3 / 8) ** 2
    assert fleiss_kappa(ratings) == pytest.approx((0.75 - chance) / (1 - chance))
    # a third label on one pair counts its three label pairs; an item with one label is left out
    assert fleiss_kappa([*ratings, ["a"]]) == pytest.approx(fleiss_kappa(ratings))
    three = fleiss_kappa([["a", "a", "b"], ["b", "b"]])  # P = (1/3, 1), labels a 2, b 3
    chance3 = (2 / 5) ** 2 + (3 / 5) ** 2
    assert three == pytest.approx(((1 / 3 + 1) / 2 - chance3) / (1 - chance3))
    assert math.isnan(fleiss_kappa([["v", "v"], ["v", "v"]])) and math.isnan(fleiss_kappa([["v"]]))


def test_the_report_counts_what_people_said(release_dir: Path, run_dir: Path) -> None:
    # ann: every kept WordSwap pair with "coffin" or "sickle" invalid, other kept valid; rejected
    # drafts valid only for InflectionSwap
    def ann(it):  # type: ignore[no-untyped-def]
        if it.judge == JUDGE_REJECTED:
            return "valid" if it.subtask == "inflswap" else "invalid"
        return "invalid" if any(w in it.good + it.bad for w in ("coffin", "sickle")) else "valid"

    _label_all(release_dir, run_dir, "ann", ann)
    rep = build_report(release_dir)
    ws = rep["subtasks"]["wordswap"]
    assert (ws["k"], ws["n"], ws["invalid"]) == (4, 8, 4)
    assert (ws["low"], ws["high"]) == pytest.approx(wilson(4, 8))
    assert rep["subtasks"]["inflswap"]["k"] == 8 and len(rep["cells"]) == 6
    j = rep["judge"]["inflswap"]
    assert (j["kept"], j["rejected"]) == (8, 1)
    assert (j["precision"]["k"], j["precision"]["n"]) == (8, 8)
    assert (j["recall"]["k"], j["recall"]["n"]) == (8, 9)
    wj = rep["judge"]["wordswap"]
    assert (wj["recall"]["k"], wj["recall"]["n"]) == (4, 4) and wj["kappa"] == pytest.approx(
        cohen_kappa([True] * 8 + [False] * 2, [True] * 4 + [False] * 4 + [False] * 2)
    )
    assert rep["judge"]["all"]["kept"] == 24 and rep["reviewer_kappa"] == []
    assert "| WordSwap | 0.50 [" in markdown(rep)


def test_two_reviewers_get_a_kappa_and_a_shared_verdict(release_dir: Path, run_dir: Path) -> None:
    _label_all(release_dir, run_dir, "ann", lambda it: "valid")
    _label_all(release_dir, run_dir, "bob", lambda it: "valid" if it.judge == JUDGE_KEPT else "invalid")
    rep = build_report(release_dir)
    (k,) = rep["reviewer_kappa"]
    assert (k["a"], k["b"], k["n"]) == ("ann", "bob", 28) and k["agreement"] == pytest.approx(24 / 28)
    assert rep["judge"]["all"]["recall"]["n"] == 24  # a rejected draft is valid only if both said so
    # the benchmark's own items (kept drafts) labelled twice: both said valid on all 24, κ undefined
    assert sum(a["n"] for a in rep["agreement"].values()) == 24
    assert all(a["same"] == a["n"] and math.isnan(a["kappa"]) for a in rep["agreement"].values())
    assert "benchmark items labelled more than once" in markdown(rep)


def test_report_cli_writes_table_json_and_figure(release_dir: Path, run_dir: Path) -> None:
    res = cli("review", "report", str(release_dir))
    assert res.returncode == 2 and "no labels yet" in res.stderr
    _label_all(release_dir, run_dir, "ann", lambda it: "valid")
    res = cli("review", "report", str(release_dir))
    assert res.returncode == 0, res.stderr
    assert "| InflectionSwap | 1.00 [" in res.stdout and "Cohen's κ" in res.stdout
    out = release_dir / "review"
    assert json.loads((out / "report.json").read_text())["items"] == 28
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_labels_is_an_input_error(release_dir: Path) -> None:
    with pytest.raises(InputError, match="no labels yet"):
        build_report(release_dir)


def test_without_rejected_drafts_the_judge_recall_is_not_measured(release_dir: Path) -> None:
    """Only kept items labelled: recall would be k/k and κ 0 by construction; both are left out."""
    src = load_source(release_dir)
    store = LabelStore(release_dir, "ann", src.name)
    for n, it in enumerate(src.items):
        store.add(
            it.fingerprint, "valid" if n % 2 else "marginal", subtask=it.subtask, bin=it.bin, judge=it.judge
        )
    rep = build_report(release_dir)
    j = rep["judge"]["all"]
    assert j["rejected"] == 0 and j["precision"]["n"] == len(src.items)
    assert j["recall"]["n"] == 0 and math.isnan(j["kappa"])
    from corpusbench.review.card import section, summary

    text = section({"human_validation": summary(rep)})
    assert (
        "judge recall" not in text and "its recall is not measured (no rejected draft was labelled)" in text
    )
    assert "| all | 24 |" in text and "| 12 | 0 |" in text  # marginal and invalid counts


def test_figure_draws_a_zero_share_whose_wilson_limit_is_a_rounding_above_it(tmp_path: Path) -> None:
    """wilson(0, n) gives a lower limit of ~5.6e-17, not 0: the figure clamps the error bar instead of
    letting matplotlib refuse a negative one (``review report`` on the default release crashed so)."""
    from corpusbench.review.report import figure

    lo, hi = wilson(0, 7)
    assert lo > 0  # the rounding the figure must tolerate
    rep = {
        "subtasks": {"wordswap": {"share": 0.0, "low": lo, "high": hi, "n": 7}},
        "judge": {"wordswap": {"rejected": 7, "recall": {"n": 7, "k": 7}}},
    }
    path = figure(rep, tmp_path / "report.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
