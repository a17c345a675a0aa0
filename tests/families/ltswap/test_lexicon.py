"""Inflection sets from the lexicon + corpus evidence: regular and irregular, both POS, no reference junk."""

import pytest

from corpusbench.families.ltswap.lexicon import EnglishLexicon, dictionary, inflection_table


@pytest.fixture(scope="module")
def lex():
    return EnglishLexicon()


def forms(analysis):
    return {i.tag: i.form for i in analysis.inflections}


@pytest.mark.parametrize(
    ("form", "pos", "lemma", "tag", "table"),
    [
        ("mice", "NOUN", "mouse", "NNS", {"NN": "mouse", "NNS": "mice"}),
        ("wolves", "NOUN", "wolf", "NNS", {"NN": "wolf", "NNS": "wolves"}),
        ("cat", "NOUN", "cat", "NN", {"NN": "cat", "NNS": "cats"}),
        ("went", "VERB", "go", "VBD", {"VB": "go", "VBD": "went", "VBG": "going", "VBZ": "goes"}),
        (
            "died",
            "VERB",
            "die",
            "VBD",
            {"VB": "die", "VBD": "died", "VBG": "dying", "VBZ": "dies"},
        ),  # ref: "dis"
        (
            "stopped",
            "VERB",
            "stop",
            "VBD",
            {"VB": "stop", "VBD": "stopped", "VBG": "stopping", "VBZ": "stops"},
        ),
        ("hoping", "VERB", "hope", "VBG", {"VB": "hope", "VBD": "hoped", "VBG": "hoping", "VBZ": "hopes"}),
        (
            "breathed",
            "VERB",
            "breathe",
            "VBD",
            {"VB": "breathe", "VBD": "breathed", "VBG": "breathing", "VBZ": "breathes"},
        ),
    ],
)
def test_inflection_sets(lex, form, pos, lemma, tag, table):
    verdict, a = lex.analyse(form, pos, {}, {})
    assert verdict.ok, verdict.reason
    assert (a.lemma, a.tag, forms(a)) == (lemma, tag, table)


def test_seed_as_verb_is_not_sing(lex):  # the reference turned seed/VERB_Past into "sing"
    _, a = lex.analyse("seed", "VERB", {"VB": 3}, {})
    assert a is not None and a.lemma == "seed" and "sing" not in forms(a).values()


def test_vbp_folds_into_vb_and_shared_past_participle_into_vbd(lex):
    _, a = lex.analyse("walked", "VERB", {"VBN": 5, "VBD": 1}, {})
    assert a.tag == "VBD" and forms(a)["VB"] == "walk"
    _, b = lex.analyse("walk", "VERB", {"VBP": 4, "NN": 1}, {})
    assert b.tag == "VB"


def test_put_slot_follows_corpus_tags(lex):
    assert lex.analyse("put", "VERB", {"VBD": 9, "VB": 2}, {})[1].tag == "VBD"
    assert lex.analyse("put", "VERB", {"VBD": 1, "VBP": 7}, {})[1].tag == "VB"


def test_distinct_participles_and_non_words_are_out(lex):
    assert lex.analyse("taken", "VERB", {"VBN": 3}, {})[0].reason == "variant_or_participle"
    assert lex.analyse("goeth", "VERB", {"VBZ": 3}, {})[0].reason == "not_in_lexicon"
    assert lex.analyse("blorfs", "NOUN", {"NNS": 1}, {})[0].reason == "not_in_lexicon"
    assert lex.analyse("is", "VERB", {"VBZ": 9}, {})[0].reason == "auxiliary"


def test_corpus_evidence_picks_spelling_and_plural():
    assert inflection_table("travel", "VERB", {"travelled": 3, "traveled": 1})["VBD"] == "travelled"
    assert inflection_table("travel", "VERB", {})["VBD"] == "traveled"  # lexicon order when unseen
    assert inflection_table("sheep", "NOUN", {})["NNS"] == "sheep"  # invariant: no pair
    assert inflection_table("wheat", "NOUN", {})["NNS"] == "wheat"  # mass noun, "wheats" never seen
    assert inflection_table("wheat", "NOUN", {"wheats": 2})["NNS"] == "wheats"
    assert inflection_table("child", "NOUN", {})["NNS"] == "children"


def test_dictionary_has_lowercase_words_only():
    d = dictionary()
    assert {"mouse", "go", "abdication"} <= d
    assert "Aaron" not in d and "macbeth" not in d
