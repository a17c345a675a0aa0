"""#37 item fixes: no good sentence in two kept quadruplets, no doubled words, seeded subject-verb verbs,
WordSwap's own judge threshold, openings whose first two words differ."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from corpusbench.families.ltswap.agreement import check_agreement
from corpusbench.families.ltswap.checks import doubled_words
from corpusbench.families.ltswap.filtering import judge_to_fill
from corpusbench.families.ltswap.generation import (
    OPENINGS,
    SV_VERBS,
    agreement_request,
    pair_regex,
    sv_verb,
    word_outcome,
)
from corpusbench.families.ltswap.judging import FilterRule, JudgeItem
from corpusbench.families.ltswap.pipeline import LtswapParams
from corpusbench.families.ltswap.records import InflectionPair
from corpusbench.llm.records import GenResult
from corpusbench.llm.scripted import ScriptedBackend


def _item(n: int, s1: str, s2: str, subtask: str = "wordswap") -> JudgeItem:
    return JudgeItem(
        id=f"q{n}", subtask=subtask, w1=f"a{n}", w2=f"b{n}",
        s1_good=s1, s2_good=s2, s1_bad=s1 + " x", s2_bad=s2 + " x",
    )  # fmt: skip


def _yes_to_good(items: list[JudgeItem], margin: float = 2.0) -> ScriptedBackend:
    backend = ScriptedBackend()
    for it in items:
        for r, good in zip(FilterRule().requests(it), (True, False, True, False), strict=True):
            backend.top[r.prompt] = [("yes", -0.1 if good else -margin), ("no", -margin if good else -0.1)]
    return backend


def test_a_good_sentence_goes_into_one_kept_quadruplet_only() -> None:
    shared = "The heron stood in the reeds."
    items = [
        _item(0, shared, "The anvil rang all day."),
        _item(1, shared, "The lantern swung in the wind."),  # the same S1: WordSwap's second partner
        _item(2, "A hymn rose from the chapel.", "The kettle boiled over."),
    ]
    backend = _yes_to_good(items)
    cells = ["c"] * 3
    got = judge_to_fill(backend, items, cells, [0, 1, 2], FilterRule(), "blick", 3, unique_sentences=True)
    assert [v.keep if v else None for v in got] == [True, False, True]
    assert got[1].reason == "sentence_reused" and got[1].margins is None
    asked = {p for op, p in backend.calls if op == "top"}
    assert not any("lantern" in str(p) for p in asked)  # the reused draft was never judged
    plain = judge_to_fill(_yes_to_good(items), items, cells, [0, 1, 2], FilterRule(), "blick", 3)
    assert [v.keep for v in plain] == [True, True, True]  # off: as before


def test_a_sentence_that_writes_a_word_twice_is_dropped() -> None:
    assert doubled_words("Soon the little boy will soon extend his arms.") == ("soon",)
    assert doubled_words("Many years ago the farmer aspired to become a farmer.") == ("farmer",)
    assert doubled_words("The man and the woman saw the man.") == ("man",)
    assert doubled_words("They saw the otter in the river and the otter swam.", "fr") == ()
    assert doubled_words("Yesterday the old man mended the net.") == ()
    res = GenResult(id="w", status="ok", text="Soon the little boy will soon extend his arms.")
    vocab = dict.fromkeys(["soon", "the", "little", "boy", "will", "extend", "his", "arms", "."], 5)
    out = word_outcome(res, "extend", vocab, "en")
    assert (out.stage, out.reason, out.words) == ("parsed", "doubled_word", ("soon",))


def test_subject_verb_items_get_seeded_verbs_beyond_is_are() -> None:
    drawn = Counter(sv_verb(f"pair{n}", rule, 0, 0) for n in range(60) for rule in ("SVSHORT", "SVLONG"))
    assert drawn[("is", "are")] < 60 and len(drawn) == len(SV_VERBS) == 5  # be, be-past, have, 2 lexical
    assert sv_verb("pair1", "SVSHORT", 0, 0) == sv_verb("pair1", "SVSHORT", 0, 0)  # seeded, stable
    assert sv_verb("pair1", "SVSHORT", 0, 0, {"is": 1, "are": 1}) == ("is", "are")  # only what the corpus has
    pair = InflectionPair(lemma="dog", pos="NOUN", form1="dog", tag1="NN", freq1=3, form2="dogs", tag2="NNS",
                          freq2=2, bin=2)  # fmt: skip
    for rule in ("SVSHORT", "SVLONG"):
        req = agreement_request(pair, rule, 0, 0.5, 0, 160, force_form=True)
        sg, pl = sv_verb(pair.id, rule, 0, 0)
        assert f'"{sg}"' in req.prompt and f'"{pl}"' in req.prompt
        gap = " that can be heard" if rule == "SVLONG" else ""
        reply = f"Singular: The dog{gap} {sg} here.\nPlural: The dogs{gap} {pl} here."
        assert re.fullmatch(req.regex, reply)
        assert not re.fullmatch(req.regex, reply.replace(f"dogs{gap} {pl}", f"dogs{gap} {sg}x"))
    for sg, pl in SV_VERBS:  # every verb pair passes the agreement check
        vocab = dict.fromkeys(["the", "dog", "dogs", sg, pl, "here", "."], 3)
        verdict, _ = check_agreement(
            "SVSHORT", "dog", "dogs", f"The dog {sg} here.", f"The dogs {pl} here.", vocab
        )
        assert verdict.ok, (sg, pl, verdict)
    assert re.fullmatch(pair_regex("dog", "dogs", "DET"), "Singular: This dog is.\nPlural: These dogs are.")


def test_wordswap_has_its_own_threshold() -> None:
    rule = LtswapParams(wordswap_threshold=0.5).rule()
    assert rule.threshold == 0.1 and rule.for_subtask("wordswap").threshold == 0.5
    assert rule.for_subtask("inflswap") is rule
    assert rule.describe()["thresholds_by_subtask"] == {"wordswap": 0.5}
    assert "thresholds_by_subtask" not in LtswapParams().rule().describe()
    items = [
        _item(0, "The heron stood.", "The anvil rang."),
        _item(1, "The hymn rose.", "The kettle boiled."),
    ]
    items[1] = replace(items[1], subtask="inflswap")
    from corpusbench.families.ltswap.judging import judge_items

    got = judge_items(_yes_to_good(items, margin=0.25), items, rule)  # each pair: 0.15 - (-0.15) = 0.3
    assert [(v.keep, v.threshold) for v in got] == [(False, 0.5), (True, 0.1)]


def test_wordswap_openings_differ_in_their_first_two_words() -> None:
    firsts = Counter(
        " ".join(o.lower().split()[:2]) for t in ("NN", "VB", "VBD", "VBZ", "VBG") for o in OPENINGS[t]
    )
    assert max(firsts.values()) == 1, [k for k, n in firsts.items() if n > 1]
    # many openings per tag (round five took out the 12 whose sentences labellers found stilted most often;
    # the demo's top-3 openings then cover 23% of WordSwap and 21% of InflectionSwap sentences, #37: ≤ 25%)
    assert len(OPENINGS["NN"]) >= 18 and len(OPENINGS["VB"]) >= 20
