"""#37 round four: InflectionSwap nouns as subjects before an agreeing auxiliary (``--frames subject``), and
AgreementSwap noun pairs written under one rule each when a bin is one cell."""

from __future__ import annotations

import re

import pytest

from corpusbench.families.ltswap.generation import AGREEING, OPENINGS, form_regex
from corpusbench.families.ltswap.pipeline import LtswapParams, agreement_rules
from corpusbench.families.ltswap.records import InflectionPair


def _opening(regex: str) -> str:
    return next(o for o in OPENINGS["NN"] if regex.startswith(re.escape(o).replace("\\ ", " ")))


@pytest.mark.parametrize("form", ["kitten", "heron", "revolt", "cable"])
def test_an_inflectionswap_noun_opens_its_clause_before_an_agreeing_auxiliary(form: str) -> None:
    sg, pl = form_regex(form, "NN", "subject", 0, True), form_regex(form + "s", "NNS", "subject", 0, True)
    start_sg, start_pl = _opening(sg), _opening(pl)  # the subject openings of WordSwap nouns, ending "the"
    assert start_sg.endswith(" the") and start_pl.endswith(" the")  # nothing before the noun marks number
    assert re.fullmatch(sg, f"{start_sg} {form} was asleep in the barn.")
    assert re.fullmatch(pl, f"{start_pl} {form}s were asleep in the barn.")
    assert not re.fullmatch(sg, f"{start_sg} {form} were asleep in the barn.")  # only an agreeing auxiliary
    assert not re.fullmatch(pl, f"{start_pl} {form}s was asleep in the barn.")
    assert not re.fullmatch(sg, f"{start_sg} {form} slept in the barn.")  # a past verb marks no number


def test_subject_frames_change_only_inflectionswap_nouns() -> None:
    for form, tag, marked in (("kitten", "NN", False), ("show", "VB", True), ("passed", "VBD", True)):
        assert form_regex(form, tag, "subject", 3, marked) == form_regex(form, tag, "varied", 3, marked)
    assert set(AGREEING) == {"NN", "NNS"}
    assert LtswapParams(frames="subject").frames == "subject"


def _pair(lemma: str, b: int) -> InflectionPair:
    return InflectionPair(
        lemma=lemma,
        pos="NOUN",
        form1=lemma,
        tag1="NN",
        freq1=2,
        form2=lemma + "s",
        tag2="NNS",
        freq2=2,
        bin=b,
    )


def test_agreement_noun_pairs_take_turns_at_the_rules_when_a_bin_is_one_cell() -> None:
    rules = ("SVSHORT", "SVLONG", "DET")
    pairs = [
        _pair("dog", 0),
        _pair("cat", 0),
        _pair("fen", 1),
        _pair("owl", 0),
        _pair("elk", 0),
        _pair("yak", 1),
    ]
    got = agreement_rules(pairs, rules, rotate=True)
    assert [got[p.id] for p in pairs] == [
        ("SVSHORT",), ("SVLONG",), ("SVSHORT",), ("DET",), ("SVSHORT",), ("SVLONG",)
    ]  # fmt: skip
    # a larger draw of the same bins keeps the earlier pairs' rules
    more = agreement_rules([*pairs, _pair("ram", 0)], rules, rotate=True)
    assert all(more[p.id] == got[p.id] for p in pairs) and more[_pair("ram", 0).id] == ("SVLONG",)
    # cells split by sentence length need every rule of every pair
    assert set(agreement_rules(pairs, rules, rotate=False).values()) == {rules}
    assert LtswapParams(agreement_cells="bin").by_length is False


def test_the_audit_counts_pairs_the_auxiliary_after_the_noun_decides() -> None:
    from corpusbench import heuristics
    from corpusbench.families.ltswap.item_audit import audit_items

    good, bad = "After a while the kittens were asleep.", "After a while the kitten were asleep."
    assert heuristics.pair_score(heuristics.next_word_suffix, good, bad) == 1.0  # never read "kitten"
    assert heuristics.pair_score(heuristics.prev_word_suffix, good, bad) == 0.5  # "the" fits both
    row = {"subtask": "inflswap", "rule": "NOUN", "bin": 1, "w1": "kittens", "s1_good": good, "s1_bad": bad}
    row |= {"s2_good": "Then the owl was asleep.", "s2_bad": "Then the owls was asleep."}
    got = audit_items([row])["inflswap"]
    assert got["next_word_suffix_decides"] == 2 and got["noun_pairs_number_det_before"] == 0


def test_a_noun_with_a_verb_reading_is_never_a_det_item() -> None:
    from corpusbench.families.ltswap.agreement import det_without_verb_reading

    det_ok = det_without_verb_reading("en")  # "This crowns." reads as a pronoun and a verb
    assert not det_ok(_pair("crown", 0)) and not det_ok(_pair("father", 0)) and det_ok(_pair("goblin", 0))
    assert det_without_verb_reading("fr")(_pair("crown", 0))
    rules = ("SVSHORT", "SVLONG", "DET")
    pairs = [_pair("goblin", 0), _pair("kinsman", 0), _pair("crown", 0), _pair("door", 0)]
    got = agreement_rules(pairs, rules, rotate=True, det_ok=det_ok)
    assert [got[p.id] for p in pairs] == [("SVSHORT",), ("SVLONG",), ("SVSHORT",), ("SVSHORT",)]
    assert agreement_rules(pairs, rules, rotate=False, det_ok=det_ok)[_pair("crown", 0).id] == rules[:2]
