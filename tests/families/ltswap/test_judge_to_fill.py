"""Fewer judge requests, the same verdicts: early rejection on the first minimal pair, and judging under
``--per-cell`` only as many drafts per cell as the cell still needs (filtering.judge_to_fill)."""

import random

import pytest

from corpusbench.families.ltswap.filtering import judge_order, judge_to_fill
from corpusbench.families.ltswap.judging import FilterRule, JudgeItem, judge_items
from corpusbench.llm.scripted import ScriptedBackend


def item(n: int, subtask: str = "wordswap") -> JudgeItem:
    w1, w2 = f"boat{n}", f"road{n}"
    return JudgeItem(
        id=f"q{n}",
        subtask=subtask,
        w1=w1,
        w2=w2,
        s1_good=f"We rowed the {w1} across lake {n}.",
        s2_good=f"The {w2} to village {n} was closed.",
        s1_bad=f"We rowed the {w2} across lake {n}.",
        s2_bad=f"The {w1} to village {n} was closed.",
        context1=f"He painted his {w1} blue.",
        context2=f"A long {w2} led to the river.",
    )


def scripted(items, rules, seed=0) -> ScriptedBackend:
    """Random log-probs for every prompt of every rule: some items pass, some fail on either pair."""
    rng, backend = random.Random(seed), ScriptedBackend()
    for it in items:
        for rule in rules:
            for r in FilterRule(rule).requests(it):
                a, b = r.options
                backend.top[r.prompt] = [(a, -rng.uniform(0, 3)), (b, -rng.uniform(0, 3))]
    return backend


def asked(backend) -> int:
    return sum(op == "top" for op, _ in backend.calls)


@pytest.mark.parametrize("rule", ["pointwise", "debiased", "strict"])
def test_early_rejection_gives_the_same_verdicts_for_fewer_requests(rule):
    items = [item(n) for n in range(40)]
    full_backend, early_backend = scripted(items, [rule]), scripted(items, [rule])
    full = judge_items(full_backend, items, FilterRule(rule))
    early = judge_items(early_backend, items, FilterRule(rule), early_reject=True)
    assert [v.keep for v in early] == [v.keep for v in full]
    assert any(v.keep for v in full) and not all(v.keep for v in full)  # the script has both outcomes
    for f, e in zip(full, early, strict=True):
        assert e.margins is not None and e.margins[0] == f.margins[0]  # the first pair's margin is recorded
        assert e.margins == f.margins if len(e.margins) == 2 else not f.keep
    dropped_early = sum(1 for v in early if len(v.margins) == 1)
    assert dropped_early > 0 and asked(full_backend) == 4 * len(items)
    assert asked(early_backend) == 4 * len(items) - 2 * dropped_early


def test_a_failed_first_pair_is_reported_like_the_full_judge_reports_it():
    it = item(0)
    backend = ScriptedBackend()  # no answer for any prompt: the default reply names no option
    v = judge_items(backend, [it], FilterRule("pointwise"), early_reject=True)[0]
    assert not v.keep and v.reason == "filter_no_answer" and asked(backend) == 2


def test_cells_are_judged_only_until_they_hold_their_quota():
    items = [item(n) for n in range(12)]
    backend = scripted(items, ["pointwise"], seed=3)
    truth = judge_items(scripted(items, ["pointwise"], seed=3), items, FilterRule("pointwise"))
    cells = ["a"] * 8 + ["b"] * 4
    order = [judge_order(it, 1, seed=0) for it in items]
    got = judge_to_fill(backend, items, cells, order, FilterRule("pointwise"), "blick", need=2)
    for cell in ("a", "b"):
        idx = sorted((n for n in range(12) if cells[n] == cell), key=lambda n: order[n])
        kept = [n for n in idx if got[n] is not None and got[n].keep]
        assert len(kept) == min(2, sum(truth[n].keep for n in idx))
        # the drafts judged are a prefix of the cell's queue, and each verdict is the full judge's
        judged = [n for n in idx if got[n] is not None]
        assert judged == idx[: len(judged)]
        assert all(got[n].keep == truth[n].keep for n in judged)
        if len(kept) == 2:  # full: the queue stops at the second kept draft
            assert judged[-1] == kept[-1]
    assert asked(backend) < 4 * len(items)
    every = judge_to_fill(
        scripted(items, ["pointwise"], seed=3), items, cells, order, FilterRule("pointwise"), "blick"
    )
    assert [v.keep for v in every] == [v.keep for v in truth]  # need None: every draft is judged


def test_a_draft_of_an_earlier_round_is_judged_before_new_ones():
    old, new = item(1), item(2)
    assert judge_order(old, 1, seed=0) < judge_order(new, 2, seed=0)
    assert judge_order(new, 2, seed=0) < judge_order(old, 3, seed=0)
    assert judge_order(old, 1, seed=0) == judge_order(old, 1, seed=0)  # stable across runs
    assert judge_order(old, 1, seed=0) != judge_order(old, 1, seed=1)
