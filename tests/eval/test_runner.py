"""score_pairs: dedupe, critical regions and the LT-Swap prefix variant (context scored by no one)."""

from __future__ import annotations

import pytest

from corpusbench.eval.causal import CausalScorer
from corpusbench.eval.records import MinimalPair
from corpusbench.eval.runner import score_pairs, scored_unit
from corpusbench.eval.seq2seq import Seq2SeqScorer


def test_scored_unit_shifts_regions():
    assert scored_unit("A b c.", None, None, "auto") == ("A b c.", None)
    assert scored_unit("A b c.", (2, 3), None, "full") == ("A b c.", None)
    assert scored_unit("A b c.", None, "Ctx here.", "auto") == ("Ctx here. A b c.", (10, 16))
    assert scored_unit("A b c.", (2, 3), "Ctx.", "auto") == ("Ctx. A b c.", (7, 8))


def test_prefix_is_context_only(tiny):
    lm = tiny["gpt2"]
    sc = CausalScorer(lm.model, lm.tokenizer)
    pair = MinimalPair(
        id="x:0",
        good="The cat sat.",
        bad="The mat sat.",
        good_prefix="I saw a cat.",
        bad_prefix="I saw a mat.",
    )
    plain = MinimalPair(id="x:1", good="The cat sat.", bad="The mat sat.")
    with_ctx, without = score_pairs(sc, [pair, plain])
    assert with_ctx.logprob_good == pytest.approx(
        sc.span_logprob(["I saw a cat. The cat sat."], [(13, 25)])[0], abs=1e-5
    )
    assert with_ctx.n_tokens_good == without.n_tokens_good
    assert with_ctx.logprob_good != pytest.approx(without.logprob_good, abs=1e-4)


def test_seq2seq_region_is_word_pll_within_it(tiny):
    lm = tiny["t5"]
    sc = Seq2SeqScorer(lm.model, lm.tokenizer)
    text = "The cat sat on the mat."
    region = sc.span_logprob([text], [(4, 14)])[0]  # "cat sat on"
    words = sc.span_logprob([text] * 3, [(4, 7), (8, 11), (12, 14)])
    assert region == pytest.approx(sum(words), abs=1e-4)


PAIRS = [
    ("The dogs near the cat bark loudly.", "The dogs near the cat barks loudly."),  # late divergence
    ("Cats sleep.", "Dogs sleep."),  # first token differs
    ("The dog.", "The dog barks."),  # one is a prefix of the other
    ("I want a dog.", "I want a dog."),  # identical
]


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
@pytest.mark.parametrize("bos", ["prepend", "none"])
@pytest.mark.parametrize(("budget", "row"), [(24, 6), (4096, 128)])
def test_prefix_tree_scores_equal_plain_scores(tiny, bos, budget, row, attn):
    lm = tiny["gpt2"]
    before = lm.model.config._attn_implementation
    lm.model.set_attn_implementation(attn)
    try:
        sc = CausalScorer(lm.model, lm.tokenizer, bos=bos, batch_tokens=budget, row_tokens=row)
        plain_sc = CausalScorer(lm.model, lm.tokenizer, bos=bos, batch_tokens=budget, share_prefixes=False)
        assert sc.conventions()["prefix_sharing"] == "tree"
        assert plain_sc.conventions()["prefix_sharing"] == "off"
        texts = [s for p in PAIRS for s in p]
        spans = [None, (9, 18), (0, 4), None, None, (4, 7), (2, 6), None]  # whole, region, first word
        tree, plain = sc.score(texts, spans), plain_sc.score(texts, spans)
        assert [n for _, n in tree] == [n for _, n in plain]
        assert [v for v, _ in tree] == pytest.approx([v for v, _ in plain], abs=1e-4)
        via_runner = score_pairs(
            sc, [MinimalPair(id=str(i), good=g, bad=b) for i, (g, b) in enumerate(PAIRS)]
        )
        whole = plain_sc.score(texts)
        assert [s.logprob_good for s in via_runner] == pytest.approx([v for v, _ in whole[0::2]], abs=1e-4)
        assert [s.logprob_bad for s in via_runner] == pytest.approx([v for v, _ in whole[1::2]], abs=1e-4)
    finally:
        lm.model.set_attn_implementation(before)


def test_long_shared_context_scores_equal_plain(tiny):
    lm = tiny["gpt2"]
    context = "Once upon a time the old farmer walked to the market with his dogs and sold apples. "
    texts = [context + "The dogs bark.", context + "The dogs barks.", "Short and unrelated."]
    tree = CausalScorer(lm.model, lm.tokenizer, row_tokens=8).score(texts, [(84, 98), None, None])
    plain = CausalScorer(lm.model, lm.tokenizer, share_prefixes=False).score(texts, [(84, 98), None, None])
    assert [n for _, n in tree] == [n for _, n in plain]
    assert [v for v, _ in tree] == pytest.approx([v for v, _ in plain], abs=1e-4)
