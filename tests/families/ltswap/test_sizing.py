"""The arithmetic of ``ltswap build --plan`` (sizing.py): rewrites and judging only what cells need."""

import itertools

import pytest

from corpusbench.families.ltswap.pipeline import LtswapParams
from corpusbench.families.ltswap.sizing import SENTENCE_PASS, Timing, estimate, pair_pass, rewrites_per_pair


@pytest.mark.parametrize(("p", "r"), [(0.5, 1), (0.8, 1), (0.6, 2), (0.3, 3)])
def test_rewrite_model_matches_enumeration(p, r):
    """Enumerate every outcome of the two first sentences and of up to r rewrites of a lone failed side."""
    both, sent = 0.0, 0.0
    for a, b in itertools.product((True, False), repeat=2):
        prob = (p if a else 1 - p) * (p if b else 1 - p)
        if a and b:
            both += prob
        elif a != b:  # one side failed while its partner passed: rewrite until it passes, r at most
            for k in range(1, r + 1):
                sent += prob * (1 - p) ** (k - 1)
                both += prob * (1 - p) ** (k - 1) * p
    assert pair_pass(p, r) == pytest.approx(both) and rewrites_per_pair(p, r) == pytest.approx(sent)
    assert pair_pass(p, 0) == pytest.approx(p * p) and rewrites_per_pair(p, 0) == 0


def test_per_cell_caps_the_judged_drafts_and_rewrites_add_writer_requests():
    t = Timing(writer_s=1.0, writer_tokens=10, judge_s=0.5)
    drawn = {"wordswap": 200, "inflswap": 200}
    free = {r.subtask: r for r in estimate(LtswapParams(), drawn, t)}
    capped = {
        r.subtask: r for r in estimate(LtswapParams(per_cell=3), drawn, t, {"wordswap": 2, "inflswap": 2})
    }
    for s in drawn:
        assert capped[s].writer == free[s].writer  # the sentences are written all the same
        assert capped[s].kept == 6 < free[s].kept and capped[s].judge < free[s].judge
    rewritten = {r.subtask: r for r in estimate(LtswapParams(rewrites=1), drawn, t)}
    assert rewritten["inflswap"].writer > free["inflswap"].writer
    assert rewritten["inflswap"].kept > free["inflswap"].kept
    assert rewritten["wordswap"] == free["wordswap"]  # rewrites are InflectionSwap's only


def test_sentence_scores_are_priced_for_every_draft():
    t = Timing(writer_s=1.0, writer_tokens=10, judge_s=0.5)
    drawn, cells = {"wordswap": 200, "inflswap": 200}, {"wordswap": 2, "inflswap": 2}
    prompted = {r.subtask: r for r in estimate(LtswapParams(per_cell=3), drawn, t, cells)}
    lm = {r.subtask: r for r in estimate(LtswapParams(per_cell=3, wordswap_rule="lm"), drawn, t, cells)}
    drafts = 200 * SENTENCE_PASS["wordswap"] / 2  # one quadruplet per two words that passed the checks
    assert (
        lm["wordswap"].judge == round(4 * drafts) > prompted["wordswap"].judge
    )  # best-first scores them all
    assert lm["inflswap"] == prompted["inflswap"]
    fluent = {
        r.subtask: r for r in estimate(LtswapParams(per_cell=3, fluent_first="inflswap"), drawn, t, cells)
    }
    assert (
        fluent["inflswap"].judge > prompted["inflswap"].judge and fluent["wordswap"] == prompted["wordswap"]
    )
