"""Extracting sentences from messy LLM replies."""

import pytest

from corpusbench.families.ltswap.parsing import extract_pair, extract_sentence, normalise


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("[The cat sat on the mat.]", "The cat sat on the mat."),
        (
            "Sure! Here is a sentence with the noun 'cat':\n[The cat sat on the mat.]",
            "The cat sat on the mat.",
        ),
        ("The cat sat on the mat", "The cat sat on the mat."),  # brackets missing, no final stop
        ('The sentence is: "the cat sat on the mat."', "The cat sat on the mat."),  # quoted, lowercase start
        ("[The dog barked. The cat sat on the mat.]", "The cat sat on the mat."),  # two sentences
        ("Sentence: **The cat sat on the mat.** I hope this helps!", "The cat sat on the mat."),  # extra text
        ("[The cat sat on the mat", "The cat sat on the mat."),  # cut off at max_tokens
        (
            "1. \u201cThe cat\u2019s bowl was empty.\u201d",
            "The cat's bowl was empty.",
        ),  # curly quotes, numbering
        ('The word "cat" means a small animal: "The cat sat on the mat."', "The cat sat on the mat."),
    ],
)
def test_extract_sentence(reply, expected):
    assert extract_sentence(reply, "cat") == (expected, "")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty_answer"),
        ("   ", "empty_answer"),
        ("[The dog barked at the mailman.]", "target_missing"),  # wrong word
        ("[The cats sat on the mat.]", "target_missing"),  # an inflection is not the word
        ("Here is a sentence using the word cat:", "no_sentence"),  # chatter only
        ("[Scatter the seeds.]", "target_missing"),  # substring only, not a token
    ],
)
def test_extract_sentence_rejects(reply, reason):
    assert extract_sentence(reply, "cat") == (None, reason)


@pytest.mark.parametrize(
    "reply",
    [
        "Singular: [The cat sleeps.]\nPlural: [The cats sleep.]",
        "[The cat sleeps. The cats sleep.]",
        "Here you go:\n1. The cat sleeps.\n2. The cats sleep.",
        "[The cats sleep.] [The cat sleeps.]",  # order swapped
        '"The cat sleeps." and "The cats sleep."',
    ],
)
def test_extract_pair(reply):
    assert extract_pair(reply, "cat", "cats") == (("The cat sleeps.", "The cats sleep."), "")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("[The cat sleeps.]", "fewer_than_two_sentences"),
        ("[The cat and the cats sleep. The dog barks.]", "target_missing"),
        ("[The dog sleeps. The dogs sleep.]", "target_missing"),
    ],
)
def test_extract_pair_rejects(reply, reason):
    assert extract_pair(reply, "cat", "cats") == (None, reason)


def test_normalise():
    assert normalise('  "the  cat sat"  ') == "The cat sat."
    assert normalise("Why did the cat sit?") == "Why did the cat sit?"
    assert normalise("The cat sat,") == "The cat sat."
    assert normalise("***") == ""
