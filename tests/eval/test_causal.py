"""Causal scorer on the real SmolLM2-135M-Instruct (fp32, CPU)."""

from __future__ import annotations

import pytest
import torch

from corpusbench.eval.causal import CausalScorer, encode_plain

CAT = ["The cat sat on the mat.", "Mat the on sat cat the."]
# offline.md §1 (GGUF-loaded, BOS prepended): -42.54 / -71.52; our folder holds the bf16 copy of the same
# dequantised weights, so scores differ by ~0.03. Pinned values measured with this scorer (fp32, CPU).
REFERENCE = [-42.54, -71.52]
PINNED = [-42.5148, -71.5516]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scorer(smol):
    return CausalScorer(smol.model, smol.tokenizer, bos="prepend", batch_tokens=512)


def fp64_reference(smol, text: str, prefix: int | None) -> float:
    """Independent computation: full logits in fp64, log-softmax, sum over the text tokens."""
    ids = encode_plain(smol.tokenizer, text).ids
    ids = ([prefix] if prefix is not None else []) + ids
    with torch.no_grad():
        logits = smol.model(input_ids=torch.tensor([ids])).logits[0].double()
    lp = torch.log_softmax(logits[:-1], -1).gather(1, torch.tensor(ids[1:]).unsqueeze(1))
    return float(lp.sum())


def test_pinned_numbers_with_bos(scorer, smol):
    assert smol.tokenizer.bos_token == "<|im_start|>"
    got = scorer.sequence_logprob(CAT)
    assert got == pytest.approx(PINNED, abs=2e-3)
    assert got == pytest.approx(REFERENCE, abs=0.05)
    assert got[0] > got[1]
    # transformers 5: the tokenizer adds no BOS itself, so exactly one is prepended
    assert encode_plain(smol.tokenizer, CAT[0]).ids[0] != smol.tokenizer.bos_token_id


def test_matches_fp64_full_forward(scorer, smol):
    for text in CAT:
        assert scorer.sequence_logprob([text])[0] == pytest.approx(fp64_reference(smol, text, 1), abs=1e-4)


def test_bos_none_skips_first_token(smol, scorer):
    none = CausalScorer(smol.model, smol.tokenizer, bos="none")
    ((s_none, n_none),) = none.score([CAT[0]])
    ((s_bos, n_bos),) = scorer.score([CAT[0]])
    assert n_bos == n_none + 1 == len(encode_plain(smol.tokenizer, CAT[0]).ids)
    assert s_none == pytest.approx(fp64_reference(smol, CAT[0], None), abs=1e-4)
    assert s_none > s_bos  # one term fewer
    assert none.conventions()["first_token_scored"] is False


def test_batch_equals_single_and_order_kept(scorer):
    texts = ["A dog.", CAT[0], "The children are playing in the park today with a ball.", CAT[1], "Yes."]
    batched = scorer.sequence_logprob(texts)
    single = [scorer.sequence_logprob([t])[0] for t in texts]
    assert batched == pytest.approx(single, abs=1e-4)
    tiny_budget = CausalScorer(scorer.model, scorer.tokenizer, batch_tokens=16).sequence_logprob(texts)
    assert tiny_budget == pytest.approx(single, abs=1e-4)


def test_span_scores_only_overlapping_tokens(scorer):
    text = "The cat sits on the mat."
    toks = scorer.token_logprobs([text])[0]
    assert [t.token for t in toks][:3] == ["The", "Ġcat", "Ġsits"]
    span = (8, 12)  # "sits"
    expect = sum(t.logprob for t in toks if t.start < span[1] and t.end > span[0])
    assert scorer.span_logprob([text], [span])[0] == pytest.approx(expect, abs=1e-4)
    assert scorer.continuation_logprob(["The cat"], [" sits on the mat."])[0] == pytest.approx(
        sum(t.logprob for t in toks[2:]), abs=1e-4
    )
    assert sum(t.logprob for t in toks) == pytest.approx(scorer.sequence_logprob([text])[0], abs=1e-4)


def test_prefix_tree_on_smollm2_matches_plain_forwards(scorer, smol):
    assert scorer.conventions()["prefix_sharing"] == "tree"
    texts = ["The cat sits on the mat.", CAT[0], "The cat sit on the mat.", CAT[1]]
    got = scorer.sequence_logprob(texts)
    assert got[1] == pytest.approx(PINNED[0], abs=2e-3)
    assert got[3] == pytest.approx(PINNED[1], abs=2e-3)
    plain = CausalScorer(smol.model, smol.tokenizer, share_prefixes=False).sequence_logprob(texts)
    assert got == pytest.approx(plain, abs=1e-4)
    assert got[0] == pytest.approx(fp64_reference(smol, texts[0], smol.tokenizer.bos_token_id), abs=1e-4)
