"""T5-style sentinel scoring on a tiny random T5 with a trained tokenizer."""

from __future__ import annotations

import pytest
import torch

from corpusbench.eval.seq2seq import Seq2SeqScorer


def hf_loss_logprob(lm, src: str, tgt: str) -> float:
    """Independent: HF's own teacher-forced loss (mean over target tokens) times the target length."""
    tok = lm.tokenizer
    labels = tok(tgt, return_tensors="pt").input_ids
    with torch.no_grad():
        loss = lm.model(**tok(src, return_tensors="pt"), labels=labels).loss
    return -float(loss) * labels.shape[1]


def test_span_matches_hf_loss(tiny):
    lm = tiny["t5"]
    sc = Seq2SeqScorer(lm.model, lm.tokenizer)
    text = "The cat sat on the mat."
    src, tgt = sc.blank(text, (4, 7))
    assert src == "The <extra_id_0> sat on the mat." and tgt == "<extra_id_0> cat <extra_id_1>"
    assert sc.span_logprob([text], [(4, 7)])[0] == pytest.approx(hf_loss_logprob(lm, src, tgt), abs=1e-4)


def test_sentence_is_sum_over_words_and_batch_invariant(tiny):
    lm = tiny["t5"]
    sc = Seq2SeqScorer(lm.model, lm.tokenizer, batch_tokens=32)
    texts = ["The cat sat on the mat.", "I want a dog.", "Mat the on sat cat the."]
    words = [(0, 3), (4, 7), (8, 11), (12, 14), (15, 18), (19, 23)]
    assert sc.sequence_logprob(texts[:1])[0] == pytest.approx(
        sum(sc.span_logprob([texts[0]] * len(words), words)), abs=1e-4
    )
    big = Seq2SeqScorer(lm.model, lm.tokenizer, batch_tokens=8192)
    assert sc.sequence_logprob(texts) == pytest.approx(
        [big.sequence_logprob([t])[0] for t in texts], abs=1e-4
    )
    assert sc.sequence_logprob(texts)[0] != pytest.approx(sc.sequence_logprob(texts)[2], abs=1e-3)


def test_rejects_tokenizer_without_sentinels(tiny):
    from corpusbench.errors import ConfigError

    with pytest.raises(ConfigError, match="sentinel"):
        Seq2SeqScorer(tiny["t5"].model, tiny["bert"].tokenizer)
