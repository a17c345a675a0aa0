"""``--min-words``: guided InflectionSwap sentences may not stop before N words (#37: mean length)."""

from __future__ import annotations

import re

import pytest

from corpusbench import heuristics
from corpusbench.errors import ParamError
from corpusbench.families.ltswap.generation import form_regex, word_request
from corpusbench.families.ltswap.pipeline import LtswapParams

SUBJECT = [("battles", "NNS"), ("heaven", "NN"), ("mended", "VBD"), ("come", "VB"), ("mends", "VBZ")]


@pytest.mark.parametrize("form,tag", SUBJECT)
def test_an_earlier_stop_is_masked_and_a_long_sentence_still_matches(form, tag):
    short = form_regex(form, tag, "subject", seed=1, marked=True, min_words=0)
    long = form_regex(form, tag, "subject", seed=1, marked=True, min_words=9)
    assert short != long and long.startswith(short[: short.index(re.escape(form))])
    # the shortest sentence each regex takes: the fixed part, the auxiliary, then filler words
    aux = {"NN": " was", "NNS": " were"}.get(tag, "")
    fixed = re.sub(r"\(.*$", "", short.split(re.escape(form))[0]).strip()
    head = f"{fixed} {form}{aux}"
    for n in range(0, 8):
        text = head + "".join(" more" for _ in range(n)) + "."
        ok_long = re.fullmatch(long, text) is not None
        assert re.fullmatch(short, text) is not None  # without a minimum every length passes
        assert ok_long == (len(heuristics.words(text)) >= 9), text
    # what the writer would have written anyway, with commas, still matches: greedy decoding keeps it
    text = f"{head} over, and the men went home at last."
    assert re.fullmatch(long, text) and re.fullmatch(short, text)
    text = f"{head}  over,  and  the  men  went  home."  # the writer's own space tokens (greedy, guided)
    assert re.fullmatch(long, text) and re.fullmatch(short, text)


def test_only_inflectionswap_sentences_get_the_minimum():
    assert form_regex("heaven", "NN", "subject", marked=False, min_words=12) == form_regex(
        "heaven", "NN", "subject"
    )
    a = word_request("heaven", "NN", 48, force_form=True, frames="subject", marked=True, min_words=10)
    b = word_request("heaven", "NN", 48, force_form=True, frames="subject", marked=True)
    assert a.regex != b.regex and a.id == b.id  # a new regex is a new cache key; the word's id stays


def test_an_adjective_slot_counts_as_a_word():
    # "varied" InflectionSwap nouns: a required adjective after the determiner is one of the words
    regex = form_regex("beads", "NNS", "varied", seed=0, marked=True, min_words=9)
    m = re.search(r"\(([a-z|]+)\) beads", regex)
    assert m, regex
    adj = m.group(1).split("|")[0]
    prefix = re.sub(r" \([a-z|]+\) beads.*$", "", regex).replace("\\", "")
    words = len(f"{prefix} {adj} beads".split())
    fill = max(0, 9 - words)
    assert re.fullmatch(regex, f"{prefix} {adj} beads" + " x" * fill + ".")
    if fill:
        assert not re.fullmatch(regex, f"{prefix} {adj} beads" + " x" * (fill - 1) + ".")


def test_min_words_needs_guided_inflectionswap():
    with pytest.raises(ParamError, match="min_words"):
        LtswapParams(min_words=8)
    with pytest.raises(ParamError, match="min_words"):
        LtswapParams(min_words=-1, force_form=("inflswap",))
    assert LtswapParams(min_words=8, force_form=("inflswap",)).min_words == 8
