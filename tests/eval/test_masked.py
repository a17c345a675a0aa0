"""Masked PLL on tiny random BERT / RoBERTa with real trained tokenizers."""

from __future__ import annotations

import pytest
import torch

from corpusbench.eval.masked import MaskedPllScorer

SENTS = ["The cat sat on the mat.", "The children are playing in the park.", "I want a dog."]


def manual_pll(lm, text: str, l2r: bool) -> float:
    """Independent PLL: one full forward per masked copy, full-vocabulary log-softmax in fp64."""
    tok = lm.tokenizer
    enc = tok(text, return_special_tokens_mask=True)
    ids, special, words = enc["input_ids"], enc["special_tokens_mask"], enc.word_ids()
    total = 0.0
    for j, sp in enumerate(special):
        if sp:
            continue
        x = list(ids)
        x[j] = tok.mask_token_id
        if l2r:
            for k in range(j + 1, len(ids)):
                if words[k] == words[j] and not special[k]:
                    x[k] = tok.mask_token_id
        with torch.no_grad():
            logits = lm.model(input_ids=torch.tensor([x])).logits[0, j].double()
        total += float(torch.log_softmax(logits, -1)[ids[j]])
    return total


@pytest.mark.parametrize("kind", ["bert", "roberta"])
@pytest.mark.parametrize("pll", ["original", "within_word_l2r"])
def test_matches_manual_pll(tiny, kind, pll):
    lm = tiny[kind]
    sc = MaskedPllScorer(lm.model, lm.tokenizer, pll=pll, batch_tokens=64)
    assert sc.split.ok  # MLM head applied only at the masked positions
    got = sc.sequence_logprob(SENTS)
    for text, g in zip(SENTS, got, strict=True):
        assert g == pytest.approx(manual_pll(lm, text, pll == "within_word_l2r"), abs=1e-4)


@pytest.mark.parametrize("kind", ["bert", "roberta"])
def test_l2r_differs_only_for_multi_token_words(tiny, kind):
    lm = tiny[kind]
    orig = MaskedPllScorer(lm.model, lm.tokenizer, pll="original")
    l2r = MaskedPllScorer(lm.model, lm.tokenizer, pll="within_word_l2r")
    multi = [
        s
        for s in SENTS
        if len(set(orig.encode(s).word_ids) - {None}) < sum(not x for x in orig.encode(s).special)
    ]
    assert multi, "fixture sentences should contain a multi-token word"
    for text in SENTS:
        enc = orig.encode(text)
        a, b = orig.token_logprobs([text])[0], l2r.token_logprobs([text])[0]
        targets = [i for i, sp in enumerate(enc.special) if not sp]
        for i, ta, tb in zip(targets, a, b, strict=True):
            later_same_word = any(enc.word_ids[k] == enc.word_ids[i] for k in range(i + 1, len(enc.ids)))
            if later_same_word:
                assert ta.logprob != pytest.approx(tb.logprob, abs=1e-6)
            else:
                assert ta.logprob == pytest.approx(tb.logprob, abs=1e-5)


def test_batch_equals_single_and_special_tokens_unscored(tiny):
    lm = tiny["roberta"]
    sc = MaskedPllScorer(lm.model, lm.tokenizer, batch_tokens=4096)
    small = MaskedPllScorer(lm.model, lm.tokenizer, batch_tokens=20)
    texts = [*SENTS, "Yes.", SENTS[0]]
    batched = sc.score(texts)
    assert [s for s, _ in batched] == pytest.approx([sc.score([t])[0][0] for t in texts], abs=1e-5)
    assert [s for s, _ in small.score(texts)] == pytest.approx([s for s, _ in batched], abs=1e-5)
    assert [n for _, n in batched] == [len(lm.tokenizer(t)["input_ids"]) - 2 for t in texts]
    assert batched[0] == batched[-1]


def test_random_model_reacts_and_span(tiny):
    lm = tiny["bert"]
    sc = MaskedPllScorer(lm.model, lm.tokenizer, pll="original")
    a, b = sc.sequence_logprob(["The cat sat on the mat.", "Mat the on sat cat the."])
    assert abs(a - b) > 1e-3
    toks = sc.token_logprobs(["The cat sat on the mat."])[0]
    assert sc.span_logprob(["The cat sat on the mat."], [(4, 7)])[0] == pytest.approx(
        sum(t.logprob for t in toks if t.start < 7 and t.end > 4), abs=1e-5
    )
