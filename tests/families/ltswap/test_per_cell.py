"""``--per-cell N``: rounds of larger draws until every (subtask, bin[, length]) cell holds N kept
quadruplets or its candidates run out; shortfall reasons; resume from the cache; bad N."""

from collections import Counter

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import BackendError, ConfigError
from corpusbench.families.ltswap.cells import cell_of
from corpusbench.families.ltswap.pipeline import LtswapParams, run_ltswap
from corpusbench.llm.cache import CachedLLM
from tests.families.ltswap.test_pipeline import RuleLLM

PARAMS = LtswapParams(per_cell=2, max_per_bin=200, rules=("SVSHORT", "SVLONG"), seed=0)


def _build(stats, out, *args):
    """``ltswap build`` on the slice's stats into ``out``, with ``args`` after the common ones."""
    return CliRunner().invoke(
        app, ["ltswap", "build", "x", "--stats", str(stats.path), "--out", str(out), *args]
    )


def _kept(res):
    return Counter(cell_of(s, q.bin, q.rule) for s, qs in res.quadruplets.items() for q in qs)


@pytest.fixture(scope="module")
def filled(slice_stats, tmp_path_factory):
    out = tmp_path_factory.mktemp("cells")
    backend = RuleLLM()
    res = run_ltswap(slice_stats, CachedLLM(backend, out / "cache.sqlite"), PARAMS, out / "lt")
    return out, res, backend


def test_rounds_fill_cells_and_stop(filled):
    _, res, _ = filled
    rounds, cells = res.manifest["rounds"], res.cells
    assert len(rounds) >= 2  # round 1 (N per group) leaves cells short on this slice
    kept = _kept(res)
    for c in cells:
        got = kept[cell_of(c.subtask, c.bin, "SVLONG" if c.length == "LONG" else "SVSHORT")]
        assert c.kept == got and c.target == 2
        assert (c.reason == "") == (c.kept >= 2), c
    assert any(c.length == "LONG" for c in cells) and any(c.length == "SHORT" for c in cells)
    assert rounds[-1]["cells_short"] < rounds[0]["cells_short"]  # later rounds filled short cells
    drawn = [r["drawn"] for r in rounds]
    assert drawn == sorted(drawn) and len(set(drawn)) == len(drawn)  # every round drew more
    assert res.manifest["cells"] == [c.as_dict() for c in cells]


def test_full_run_draws_no_more(slice_stats, tmp_path):
    """N = 1: once every cell with candidates is full (or out of them) no further round is run."""
    res = run_ltswap(
        slice_stats, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), LtswapParams(per_cell=1), tmp_path / "lt"
    )
    last = res.manifest["rounds"][-1]
    assert all(c.kept >= 1 or c.left == 0 for c in res.cells)
    assert len(res.manifest["rounds"]) == 1 or res.manifest["rounds"][-2]["cells_short"] > 0
    assert last["cells_short"] == sum(1 for c in res.cells if c.kept < 1)


def test_shortfall_is_named(slice_stats, tmp_path):
    llm = CachedLLM(RuleLLM(), tmp_path / "c.sqlite")
    res = run_ltswap(slice_stats, llm, LtswapParams(per_cell=40, max_per_bin=3), tmp_path / "a")
    reasons = {c.reason for c in res.cells}
    assert any(r.startswith("draw ceiling reached (--max-per-bin 3)") for r in reasons), reasons
    assert any(r.startswith("candidates ran out") for r in reasons), reasons
    assert all(c.kept < 40 and c.reason for c in res.cells)
    for c in res.cells:
        assert c.left == 0 or c.reason.startswith("draw ceiling")


def test_rerun_repeats_no_call_and_a_killed_run_resumes(filled, slice_stats, tmp_path):
    out, res, first = filled
    backend = RuleLLM()
    again = run_ltswap(slice_stats, CachedLLM(backend, out / "cache.sqlite"), PARAMS, tmp_path / "again")
    assert backend.calls == [] and again.manifest["cells"] == res.manifest["cells"]
    cache = tmp_path / "killed.sqlite"
    n_first_gen = sum(op == "generate" for op, _ in first.calls)
    with pytest.raises(BackendError):  # dies in a later round
        run_ltswap(
            slice_stats, CachedLLM(RuleLLM(crash_after=n_first_gen - 5), cache), PARAMS, tmp_path / "k"
        )
    resumed = RuleLLM()
    res2 = run_ltswap(slice_stats, CachedLLM(resumed, cache), PARAMS, tmp_path / "k")
    assert sum(op == "generate" for op, _ in resumed.calls) == 5  # only what the crash left unsent
    assert res2.manifest["cells"] == res.manifest["cells"]


@pytest.mark.parametrize("bad", ["0", "-1", "x", "2.5"])
def test_cli_bad_per_cell(bad, tmp_path, slice_stats):
    r = _build(slice_stats, tmp_path / "o", "--per-cell", bad)
    assert r.exit_code == 2, r.output
    assert (
        r.output.strip()
        .splitlines()[-1]
        .endswith("expected a whole number of at least 1 (e.g. --per-cell 10)")
    )
    assert len(r.output.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


def test_params_per_cell():
    for bad in (0, -1, "x", True):
        with pytest.raises(ConfigError, match=r"^per_cell must"):
            LtswapParams(per_cell=bad)  # type: ignore[arg-type]


def test_cli_prints_the_cells(slice_stats, tmp_path):
    r = _build(
        slice_stats, tmp_path / "o", "--llm-backend", "scripted", "--per-cell", "1", "--subtasks", "wordswap"
    )
    assert r.exit_code == 0, r.output
    assert "cells after 2 round(s)" in r.output and "shortfall" in r.output and "cells full" in r.output
    # an LLM that answers nothing: one doubled draw, then the subtask stops drawing and says why
    assert "nothing kept in wordswap after 2 rounds" in r.output


def test_first_round_is_sized_by_need_and_wordswap_concentrates():
    from corpusbench.families.ltswap import cells

    pools = {
        "wordswap": {(1, "NN"): list(range(9)), (1, "VB"): list(range(5)), (2, "NN"): list(range(1))},
        "inflswap": {(1, "NOUN"): list(range(9)), (1, "VERB"): list(range(9))},
        "agrswap": {1: list(range(9))},
    }
    got = cells.first_counts(pools, 3, {}, {"wordswap": 1.0, "inflswap": 1.0, "agrswap": 3.0})
    # nouns and verbs both (#37): 3 words each from the largest group of each part of speech
    assert got[("wordswap", (1, "NN"))] == 3 and got[("wordswap", (1, "VB"))] == 3
    assert got[("wordswap", (2, "NN"))] == 0  # a lone word cannot pair
    assert got[("inflswap", (1, "NOUN"))] == got[("inflswap", (1, "VERB"))] == 2  # 3 drafts over 2 groups
    assert got[("agrswap", 1)] == 3  # one noun pair makes 3 drafts; a cell should hold 3 lemmas (#37)
    nouns_only = {"wordswap": {(1, "NN"): list(range(9)), (1, "NNS"): list(range(2))}}
    got = cells.first_counts(nouns_only, 3, {}, {"wordswap": 1.0})
    assert got[("wordswap", (1, "NN"))] == 4 and got[("wordswap", (1, "NNS"))] == 0  # the largest group
    assert (
        cells.first_counts(pools, 3, {"inflswap": 1})[("inflswap", (1, "NOUN"))] == 1
    )  # N per group, capped


def test_wordswap_grows_the_groups_it_started():
    from corpusbench.families.ltswap import cells

    pools = {"wordswap": {(1, "NN"): list(range(9)), (1, "VB"): list(range(9))}}
    state = cells.RoundState(
        pools=pools, counts={("wordswap", (1, "NN")): 4, ("wordswap", (1, "VB")): 0},
        kept=Counter({cells.Cell("wordswap", 1): 1}), per_cell=3, ceiling={}, rules=(),
    )  # fmt: skip
    nxt = cells.next_counts(state)
    assert nxt[("wordswap", (1, "NN"))] > 4 and nxt[("wordswap", (1, "VB"))] == 0


def test_agreement_cells_by_bin(slice_stats, tmp_path):
    params = LtswapParams(
        per_cell=1, subtasks=("agrswap",), agreement_cells="bin", rules=("SVSHORT", "SVLONG")
    )
    res = run_ltswap(slice_stats, CachedLLM(RuleLLM(), None), params, tmp_path / "lt")
    assert res.cells and all(c.length == "" for c in res.cells)
    with pytest.raises(ConfigError, match=r"^agreement_cells must be length or bin"):
        LtswapParams(agreement_cells="rule")


def test_judging_spreads_a_cell_over_lemmas():
    from corpusbench.families.ltswap.filtering import spread_order

    cells_ = ["a", "a", "a", "a", "b"]
    orders = [(1, "1"), (1, "2"), (1, "3"), (2, "0"), (1, "9")]
    keys = ["casement", "casement", "noise", "noise", "casement"]
    got = spread_order(cells_, orders, keys)
    ranked = sorted(range(5), key=lambda n: got[n])
    # round 1 of cell a: casement, then noise before casement's second draft; round 2 stays last
    assert [n for n in ranked if cells_[n] == "a"] == [0, 2, 1, 3]
