"""Item rules of #37 round three: the writer's meaning (v7), countable nouns, sentences with a finite verb."""

from dataclasses import replace

from corpusbench.families.ltswap.candidates import MASS_MIN_SINGULAR, countable, number_marked
from corpusbench.families.ltswap.checks import comma_splice
from corpusbench.families.ltswap.generation import Parsed, PosChecker, word_request
from corpusbench.families.ltswap.lexicon import gloss
from corpusbench.families.ltswap.records import InflectionPair


def _noun_pair(sg: int, pl: int) -> InflectionPair:
    return InflectionPair(
        lemma="milk",
        pos="NOUN",
        form1="milk",
        tag1="NN",
        freq1=sg,
        form2="milks",
        tag2="NNS",
        freq2=pl,
        bin=0,
    )


def test_gloss_is_wordnets_first_sense_of_the_right_part_of_speech():
    assert gloss("portend", "VB") == "indicate by signs"
    assert "rose" in (gloss("eglantine", "NN") or "")
    assert gloss("bereft", "VBD") == "deprive through death"  # WordNet misses it; lemminflect's lemma
    assert gloss("spring", "NN") != gloss("spring", "VB")
    assert gloss("zzyzx", "NN") is None


def test_writer_v7_names_the_meaning_where_wordnet_has_one():
    v7 = word_request("portend", "VB", 48, writer="v7", examples=("The king spake .",))
    assert v7.prompt == 'verb (base form) "portend", meaning: indicate by signs'
    assert "in that meaning" in v7.system and "The king spake ." in v7.system
    assert word_request("zzyzx", "NN", 48, writer="v7").prompt == 'noun "zzyzx"'
    assert "meaning" not in word_request("portend", "VB", 48, writer="v5").prompt
    assert "meaning" not in word_request("laterne", "NN", 48, "de", writer="v7").prompt  # English only


def test_a_noun_whose_plural_the_corpus_hardly_writes_is_not_countable():
    assert not countable(_noun_pair(69, 1))  # milk / milks
    assert countable(_noun_pair(69, 3))  # a plural at 4% of the singular
    assert countable(_noun_pair(MASS_MIN_SINGULAR - 1, 0))  # too rare to tell
    verb = InflectionPair(
        lemma="go", pos="VERB", form1="go", tag1="VB", freq1=500, form2="goes", tag2="VBZ", freq2=0, bin=0
    )
    assert countable(verb)


def test_a_plural_that_also_names_one_thing_is_no_noun_pair():
    works = replace(_noun_pair(30, 30), lemma="work", form1="work", form2="works")
    assert not number_marked(works)  # "The works has." can be right (a factory)
    assert number_marked(replace(works, lemma="day", form1="day", form2="days"))
    assert number_marked(replace(works, pos="VERB", tag1="VB", tag2="VBZ"))  # a verb pair: "he works"


def _parsed(text: str, word: str) -> Parsed:
    s = text.index(word)
    return Parsed(text=text, start=s, end=s + len(word))


def test_a_sentence_without_a_finite_verb_fails_the_check():
    checker = PosChecker("en")
    fragment = _parsed("Back then the conductor of the train.", "conductor")
    sentence = _parsed("Back then the conductor of the train waved.", "conductor")
    imperative = _parsed("Mend the broken cup.", "Mend")
    modal = _parsed("Tomorrow we must portend the storm.", "portend")
    assert checker.reasons(
        [(fragment, "NOUN"), (sentence, "NOUN"), (imperative, "VERB"), (modal, "VERB")]
    ) == [
        "no_finite_verb",
        "",
        "",
        "",
    ]
    assert checker.reasons([(sentence, "VERB")]) == ["wrong_pos"]
    assert checker.check([(fragment, "NOUN"), (sentence, "NOUN")]) == [False, True]


def test_two_clauses_joined_by_a_bare_comma_are_a_splice():
    assert comma_splice("Just then the lament of the old man, he fell asleep.")
    assert comma_splice("Even then the ale was cold, the guests were still drinking.")
    assert not comma_splice("Even then the ale was cold, and the guests were still drinking.")
    assert not comma_splice("Then the king, tired and old, sat down by the fire.")
    assert comma_splice("After supper, she mended the coat.")  # the openings put no phrase before a comma
    assert not comma_splice("Le roi dort, il rêve.", "fr")  # English only


def test_a_retired_opening_is_drawn_again_and_no_other_form_moves():
    from corpusbench.families.ltswap import generation as g

    forms = [f"w{i}" for i in range(80)]
    now = {f: g.opening(f, "VB", 0)[0] for f in forms}
    assert not any(o.startswith(tuple(g.RETIRED)) for o in now.values())
    try:
        g.RETIRED, kept = frozenset(), g.RETIRED
        before = {f: g.opening(f, "VB", 0)[0] for f in forms}
    finally:
        g.RETIRED = kept
    moved = {f for f in forms if now[f] != before[f]}
    assert moved and moved == {f for f in forms if before[f].startswith(tuple(kept))}
