"""#37 round five: ``--fluent-first`` judges a cell's drafts most fluent first (the smaller per-word
log-prob of the two good sentences under the judge model), for subtasks judged by a prompted rule."""

from __future__ import annotations

import pytest

from corpusbench.errors import ParamError
from corpusbench.families.ltswap.filtering import best_first, judge_order, judge_to_fill
from corpusbench.families.ltswap.judging import FilterRule, JudgeItem, fluency_scores
from corpusbench.families.ltswap.pipeline import LtswapParams
from corpusbench.families.ltswap.release import filter_line
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.scripted import ScriptedBackend

FLUENCY = {"smooth": -2.0, "odd": -6.0, "broken": -9.0}  # per word, by the sentence's first word


def _lm(text: str) -> float:
    """The scripted score: a per-word log-prob by the sentence's first word, times its words."""
    return FLUENCY[text.split()[0]] * len(text.split())


def _item(n: int, first: str, second: str, subtask: str = "inflswap") -> JudgeItem:
    return JudgeItem(
        id=f"q{n}", subtask=subtask, w1=f"a{n}", w2=f"b{n}",
        s1_good=f"{first} good {n}", s1_bad=f"{first} bad {n} x",
        s2_good=f"{second} good two {n}", s2_bad=f"{second} bad two {n} x",
    )  # fmt: skip


def test_fluency_is_the_less_natural_good_sentence_per_word() -> None:
    backend = ScriptedBackend(scores=_lm)
    items = [_item(0, "smooth", "smooth"), _item(1, "smooth", "odd"), _item(2, "broken", "smooth")]
    assert fluency_scores(CachedLLM(backend, None), items) == [-2.0, -6.0, -9.0]
    assert {text for op, text in backend.calls if op == "score"} == {
        s for it in items for s in (it.s1_good, it.s2_good)
    }  # the bad sentences are never scored


def test_cells_judge_their_most_fluent_drafts_first() -> None:
    llm = CachedLLM(ScriptedBackend(scores=_lm), None)
    items = [_item(0, "odd", "smooth"), _item(1, "broken", "smooth"), _item(2, "smooth", "smooth")]
    for it in items:  # the pointwise judge says yes to every good sentence and no to every swap
        for r, good in zip(FilterRule().requests(it), (True, False, True, False), strict=True):
            llm.backend.top[r.prompt] = [("yes", -0.1 if good else -2.0), ("no", -2.0 if good else -0.1)]
    rule = LtswapParams().rule()
    assert best_first(llm, items, rule) == [0.0, 0.0, 0.0]  # not asked: the seeded hash decides
    scores = best_first(llm, items, rule, fluent=("inflswap",))
    assert scores == [-6.0, -9.0, -2.0]
    order = [judge_order(it, 1, 0, s) for it, s in zip(items, scores, strict=True)]
    verdicts = judge_to_fill(llm, items, ["cell"] * 3, order, rule, "blick", need=2)
    assert [v is not None and v.keep for v in verdicts] == [True, False, True]  # "broken" never judged
    # a subtask judged by the lm rule keeps its margin order
    ws = _item(3, "smooth", "smooth", subtask="wordswap")
    lm_rule = LtswapParams(wordswap_rule="lm").rule()
    assert best_first(llm, [ws], lm_rule, fluent=("wordswap",)) == [best_first(llm, [ws], lm_rule)[0]]


def test_the_option_and_the_card() -> None:
    assert LtswapParams(fluent_first="inflectionswap").fluent_first == ("inflswap",)
    with pytest.raises(ParamError, match="fluent_first"):
        LtswapParams(fluent_first=("inflection",))
    judge = LtswapParams().rule().describe()
    meta = {"judge": judge, "parameters": {"fluent_first": ["inflswap"]}}
    assert "most fluent first" in filter_line(meta, "inflswap")
    assert "most fluent first" not in filter_line(meta, "agrswap")
    assert "most fluent first" not in filter_line({"judge": judge}, "inflswap")
