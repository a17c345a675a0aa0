"""Token-level checks, the swap rendering, the AgreementSwap checks and cuts, on hand-written sentences."""

import pytest

from corpusbench.families.ltswap.agreement import check_agreement, is_sv_pair
from corpusbench.families.ltswap.checks import (
    check_sentence,
    match_case,
    nonce_form,
    render,
    replace_token,
    token_spans,
)

WORDS = (
    "the a cat cats dog dogs mouse mice sat on mat . , ' s n't does do is are was were has have "
    "this that these those sleeps sleep runs run barks bark hurt himself herself itself "
    "themselves can be seen from street every night trusted lets let his their out start art "
    "quickly many "
)
VOCAB = dict.fromkeys(WORDS.split(), 1)


def test_check_sentence_keeps_span_and_natural_spacing():
    v, p = check_sentence("The cat's bowl sat on the mat.", "cat", VOCAB | {"bowl": 1})
    assert v.ok and p.text == "The cat's bowl sat on the mat." and p.target == "cat"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("The cat sat on the cat mat.", "target_repeated"),
        ("The dog sat on the mat.", "target_missing"),
        ("The cat sat on the sofa.", "oov_word"),
        ("Cat sat.", "too_short"),
        ("The cat sat on the dog mat.", "other_word_present"),
    ],
)
def test_check_sentence_rejects(text, reason):
    v, _ = check_sentence(text, "cat", VOCAB, forbidden=("dog",))
    assert (v.ok, v.reason) == (False, reason)


def test_target_is_a_token_not_a_substring():
    v, p = check_sentence("Start the art on the mat.", "art", VOCAB)  # "start" contains "art": one token only
    assert v.ok and p.start == 10
    assert check_sentence("Start on the mat.", "art", VOCAB)[0].reason == "target_missing"


def test_digits_and_symbols_checked_as_vocab_pieces():
    v, _ = check_sentence("The cat sat on 59 mats.", "cat", VOCAB | {"5": 1, "mats": 1})
    assert v.reason == "oov_word"  # "9" never seen
    v, _ = check_sentence("The cat sat on 55 mats.", "cat", VOCAB | {"5": 1, "mats": 1})
    assert v.ok


def test_render_cases_good_and_bad_alike():
    _, p = check_sentence("Cats sleep on the mat.", "cats", VOCAB)
    assert render(p, "cats") == "Cats sleep on the mat." and render(p, "dogs") == "Dogs sleep on the mat."
    _, q = check_sentence("On the mat the cat sat.", "cat", VOCAB)
    assert render(q, "cat") == "On the mat the cat sat." and render(q, "dog") == "On the mat the dog sat."
    assert match_case("mouse", "CAT") == "MOUSE"


def test_nonce_forms_and_context_replacement():
    assert [nonce_form("blick", t) for t in ("NN", "NNS", "VB", "VBD", "VBG", "VBZ")] == [
        "blick",
        "blicks",
        "blick",
        "blicked",
        "blicking",
        "blicks",
    ]
    assert (
        replace_token("The Cat sat on the mat , and slept .", "cat", "blick")
        == "The Blick sat on the mat, and slept."
    )


def test_token_spans_map_quotes_back():
    spans = token_spans('He said "the cat sat."')
    assert [t for t, _, _ in spans][2] == "``"
    assert all('He said "the cat sat."'[s:e] in (t, '"') for t, s, e in spans)


@pytest.mark.parametrize(
    ("rule", "sg", "pl", "cut_sg", "cut_pl"),
    [
        (
            "SVSHORT",
            "The cat sleeps on the mat.",
            "The cats sleep on the mat.",
            "The cat sleeps.",
            "The cats sleep.",
        ),
        (
            "SVSHORT",
            "The cat quickly runs.",
            "The cats quickly run.",
            "The cat quickly runs.",
            "The cats quickly run.",
        ),
        ("SVSHORT", "The cat is on the mat.", "The cats are on the mat.", "The cat is.", "The cats are."),
        (
            "SVSHORT",
            "The mouse runs.",
            "The mice run.",
            "The mouse runs.",
            "The mice run.",
        ),  # irregular plural
        (
            "SVLONG",
            "The cat that can be trusted lets his dog out.",
            "The cats that can be trusted let their dog out.",
            "The cat that can be trusted lets.",
            "The cats that can be trusted let.",
        ),
        (
            "ANAPHORSHORT",
            "The cat hurt itself.",
            "The cats hurt themselves.",
            "The cat hurt itself.",
            "The cats hurt themselves.",
        ),
        (
            "ANAPHORLONG",
            "The cat that can be seen from the street hurt itself every night.",
            "The cats that can be seen from the street hurt themselves every night.",
            "The cat that can be seen from the street hurt itself.",
            "The cats that can be seen from the street hurt themselves.",
        ),
        ("DET", "This cat sleeps on the mat.", "These cats sleep on the mat.", "This cat.", "These cats."),
        (
            "DET",
            "On the mat that cat sleeps.",
            "On the mat those cats sleep.",
            "On the mat that cat.",
            "On the mat those cats.",
        ),
    ],
)
def test_agreement_cut(rule, sg, pl, cut_sg, cut_pl):
    w_sg, w_pl = ("mouse", "mice") if "mouse" in sg else ("cat", "cats")
    v, cut = check_agreement(rule, w_sg, w_pl, sg, pl, VOCAB)
    assert v.ok, v.reason
    assert (cut[0].text, cut[1].text) == (cut_sg, cut_pl)
    assert (cut[0].target, cut[1].target) == (w_sg, w_pl)
    assert render(cut[0], w_pl) == cut_sg.replace(w_sg, w_pl, 1)  # S1*: only the noun changes


@pytest.mark.parametrize(
    ("rule", "sg", "pl", "reason"),
    [
        ("SVSHORT", "The cat sat on the mat.", "The cats sat on the mat.", "no_agreement_marker"),
        ("SVSHORT", "A cat sleeps.", "Many cats sleep.", "prefix_differs"),
        ("SVSHORT", "This cat sleeps.", "This cats sleep.", "number_marked_prefix"),
        (
            "SVSHORT",
            "The cat that can be trusted lets his dog out.",
            "The cats that can be trusted let their dog out.",
            "not_short_distance",
        ),
        ("SVLONG", "The cat sleeps.", "The cats sleep.", "not_long_distance"),
        # the paper's long rule: the relative clause is "that can be ..."
        (
            "SVLONG",
            "The cat that the dog saw sleeps.",
            "The cats that the dog saw sleep.",
            "not_long_distance",
        ),
        ("SVSHORT", "The cat hurt itself.", "The cats hurt themselves.", "no_agreement_marker"),  # wrong rule
        ("ANAPHORSHORT", "The cat sleeps.", "The cats sleep.", "no_agreement_marker"),
        (
            "ANAPHORSHORT",
            "The cat was hurt itself.",
            "The cats was hurt themselves.",
            "shared_number_marked_verb",
        ),
        ("ANAPHORLONG", "The cat hurt itself.", "The cats hurt themselves.", "not_long_distance"),
        ("DET", "The cat sleeps.", "The cats sleep.", "no_determiner_agreement"),
        ("DET", "This cat sleeps.", "This cats sleep.", "no_determiner_agreement"),
        ("SVSHORT", "The cat sleeps.", "The dogs sleep.", "target_missing"),
        ("SVSHORT", "The cat sleeps near cats.", "The cats sleep.", "both_forms_in_sentence"),
        (
            "SVSHORT",
            "The cat sleeps on the sofa.",
            "The cats sleep on the sofa.",
            None,
        ),  # cut drops the OOV word
    ],
)
def test_agreement_rejects(rule, sg, pl, reason):
    v, _ = check_agreement(rule, "cat", "cats", sg, pl, VOCAB)
    assert (v.ok, v.reason) == ((True, "") if reason is None else (False, reason))


def test_sv_pairs():
    assert is_sv_pair("is", "are") and is_sv_pair("has", "have") and is_sv_pair("goes", "go")
    assert is_sv_pair("tries", "try") and not is_sv_pair("went", "go") and not is_sv_pair("runs", "walk")
