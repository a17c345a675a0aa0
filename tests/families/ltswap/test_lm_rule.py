"""#37: the ``lm`` filter rule (the judge model's log P(good) - log P(swapped), no prompt) and WordSwap's
own rule, with a cell's drafts judged best-first by it."""

from __future__ import annotations

import pytest

from corpusbench.errors import ConfigError
from corpusbench.families.ltswap.filtering import best_first, judge_order, judge_to_fill
from corpusbench.families.ltswap.judging import FilterRule, JudgeItem, judge_items
from corpusbench.families.ltswap.pipeline import LtswapParams
from corpusbench.families.ltswap.release import filter_line
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.scripted import ScriptedBackend


def _item(n: int, lead1: float, lead2: float, subtask: str = "wordswap") -> JudgeItem:
    """A quadruplet whose good sentences the scripted LM prefers by ``lead1`` and ``lead2`` nats."""
    return JudgeItem(
        id=f"q{n}", subtask=subtask, w1=f"a{n}", w2=f"b{n}",
        s1_good=f"good one {n} {lead1}", s1_bad=f"bad one {n} {lead1}",
        s2_good=f"good two {n} {lead2}", s2_bad=f"bad two {n} {lead2}",
    )  # fmt: skip


def _lm(text: str) -> float:
    """The scripted sentence score: -20 for a good sentence, -20 - lead for a swapped one."""
    return -20.0 - (float(text.split()[-1]) if text.startswith("bad") else 0.0)


def test_wordswap_rule_of_its_own() -> None:
    rule = LtswapParams(wordswap_rule="lm").rule()
    assert rule.name == "pointwise" and rule.for_subtask("inflswap") is rule
    ws = rule.for_subtask("wordswap")
    assert (ws.name, ws.threshold, ws.scored) == ("lm", 8.0, True)  # lm's own default, not 0.1
    assert (
        LtswapParams(wordswap_rule="lm", wordswap_threshold=7).rule().for_subtask("wordswap").threshold == 7
    )
    d = rule.describe()
    assert d["rules_by_subtask"] == {"wordswap": "lm"} and d["thresholds_by_subtask"] == {"wordswap": 8.0}
    assert d["wordswap_corpus_sentence"] is False
    assert d["prompts"] == LtswapParams().rule().describe()["prompts"]  # lm adds no prompt
    assert "rules_by_subtask" not in LtswapParams().rule().describe()
    with pytest.raises(ConfigError, match="unknown filter rule 'lmm'"):
        LtswapParams(wordswap_rule="lmm").rule()


def test_lm_verdicts_and_early_rejection(tmp_path) -> None:
    backend = ScriptedBackend(scores=_lm)
    llm = CachedLLM(backend, tmp_path / "c.sqlite")
    items = [_item(0, 9.5, 12.0), _item(1, 3.0, 20.0), _item(2, 12.0, 7.5)]
    got = judge_items(llm, items, FilterRule("lm"), early_reject=True)
    assert [(v.keep, v.reason, v.margins) for v in got] == [
        (True, "", (9.5, 12.0)),
        (False, "filter_below_threshold", (3.0,)),  # first pair failed: second pair never scored
        (False, "filter_below_threshold", (12.0, 7.5)),
    ]
    scored = {text for op, text in backend.calls if op == "score"}
    assert "good two 1 20.0" not in scored and "bad two 1 20.0" not in scored
    assert len(scored) == 10
    again = judge_items(llm, items, FilterRule("lm"), early_reject=True)  # all from the cache
    assert again == got and llm.last.cache_hits == 4 and llm.last.calls == 0


def test_mixed_rules_each_subtask_by_its_own(tmp_path) -> None:
    backend = ScriptedBackend(scores=_lm)
    infl = _item(1, 1.0, 1.0, subtask="inflswap")
    for r, good in zip(FilterRule().requests(infl), (True, False, True, False), strict=True):
        backend.top[r.prompt] = [("yes", -0.1 if good else -2.0), ("no", -2.0 if good else -0.1)]
    rule = LtswapParams(wordswap_rule="lm").rule()
    got = judge_items(CachedLLM(backend, None), [_item(0, 9.0, 9.0), infl], rule)
    assert [(v.rule, v.keep) for v in got] == [("lm", True), ("pointwise", True)]
    assert {op for op, _ in backend.calls} == {"score", "top"}


def test_a_backend_without_scores_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="cannot score sentences"):
        judge_items(CachedLLM(ScriptedBackend(), None), [_item(0, 9.0, 9.0)], FilterRule("lm"))


def test_cells_keep_their_best_drafts_first() -> None:
    llm = CachedLLM(ScriptedBackend(scores=_lm), None)
    items = [_item(0, 9.0, 30.0), _item(1, 25.0, 14.0), _item(2, 11.0, 10.0), _item(3, 2.0, 40.0)]
    rule = LtswapParams(wordswap_rule="lm").rule()
    scores = best_first(llm, items, rule)
    assert scores == [9.0, 14.0, 10.0, 2.0]  # the smaller lead of each quadruplet
    order = [judge_order(it, 1, 0, s) for it, s in zip(items, scores, strict=True)]
    verdicts = judge_to_fill(llm, items, ["cell"] * 4, order, rule, "blick", need=2)
    assert [v is not None and v.keep for v in verdicts] == [False, True, True, False]
    # other rules do not reorder: every score 0, the seeded hash decides as before
    assert best_first(llm, [_item(4, 1.0, 1.0, subtask="inflswap")], rule) == [0.0]


def test_the_card_names_the_lm_rule() -> None:
    judge = LtswapParams(wordswap_rule="lm", wordswap_threshold=7).rule().describe()
    line = filter_line({"judge": judge}, "wordswap")
    assert line.startswith("Filter rule: `lm` (threshold 7.0).") and "did not see the corpus sentence" in line
    assert filter_line({"judge": judge}, "inflswap").startswith("Filter rule: `pointwise` (threshold 0.1).")
