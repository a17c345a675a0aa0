"""Kneser-Ney probabilities: hand-computed values, nltk.lm equality, normalisation, discounts, storage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corpusbench.baselines.kn import BOS, EOS, SPECIALS, UNK, KneserNey, _padded, estimate_discounts

# Tiny corpus: "a b", "a c", "b" (ids: <unk>=0 <s>=1 </s>=2 a=3 b=4 c=5).
A, B, C = 3, 4, 5
TINY = [np.array([A, B]), np.array([A, C]), np.array([B])]


def prob(model: KneserNey, context: list[int], word: int, sentence_start: bool = False) -> float:
    """P(word | context) at a position inside a sentence (offsets far from the start unless BOS-padded)."""
    seq = np.array([*context, word])
    offsets = np.arange(len(seq)) + (0 if sentence_start else model.order)
    return float(np.exp(model.logprobs(seq, offsets)[-1]))


def test_hand_computed_bigram_values() -> None:
    # Continuation counts N1+(.w): a {<s>} 1, b {a, <s>} 2, c {a} 1, </s> {b, c} 2; 6 bigram types.
    m = KneserNey.fit(TINY, 6, order=2, discount=0.5, uniform=False)
    # an unseen context backs off to the (undiscounted, nltk-style) continuation unigram
    unigram = [prob(m, [99], w) for w in (A, B, C, EOS)]
    assert unigram == pytest.approx([1 / 6, 2 / 6, 1 / 6, 2 / 6], abs=1e-12)
    # context a: c(a b) = c(a c) = 1, total 2, gamma = 0.5 * 2 / 2
    assert prob(m, [A], B) == pytest.approx(0.25 + 0.5 * 2 / 6, abs=1e-12)  # 5/12
    assert prob(m, [A], C) == pytest.approx(0.25 + 0.5 * 1 / 6, abs=1e-12)  # 1/3
    assert prob(m, [A], EOS) == pytest.approx(0.5 * 2 / 6, abs=1e-12)  # 1/6
    assert prob(m, [A], A) == pytest.approx(0.5 * 1 / 6, abs=1e-12)  # 1/12
    # context <s>: c(<s> a) = 2, c(<s> b) = 1, total 3, gamma = 0.5 * 2 / 3
    assert prob(m, [BOS], A, sentence_start=True) == pytest.approx(5 / 9, abs=1e-12)
    # context b: c(b </s>) = 2, total 2, gamma = 0.5 / 2
    assert prob(m, [B], EOS) == pytest.approx(5 / 6, abs=1e-12)
    (lp,) = m.sentence_logprobs([np.array([A, B])])
    assert lp.tolist() == pytest.approx([math.log(5 / 9), math.log(5 / 12), math.log(5 / 6)], abs=1e-12)


def test_hand_computed_uniform_floor_and_unknown_words() -> None:
    m = KneserNey.fit(TINY, 6, order=2, discount=0.5, uniform=True)
    # unigram level: max(N1+ - 0.5, 0) / 6 + (0.5 * 4 / 6) / 5, 5 = |{<unk>, </s>, a, b, c}|
    floor = (0.5 * 4 / 6) / 5
    assert prob(m, [99], A) == pytest.approx(0.5 / 6 + floor, abs=1e-12)  # unseen context: back-off
    assert prob(m, [BOS], UNK, sentence_start=True) == pytest.approx((0.5 * 2 / 3) * floor, abs=1e-12)
    assert prob(m, [BOS], 17, sentence_start=True) == prob(m, [BOS], UNK, sentence_start=True)  # OOV id
    assert prob(m, [BOS], BOS, sentence_start=True) == 0.0  # <s> is never predicted


def test_discounts_follow_chen_goodman() -> None:
    counts = np.array([1] * 10 + [2] * 5 + [3] * 3 + [4] * 2 + [9])
    y = 10 / (10 + 2 * 5)
    expected = [1 - 2 * y * 5 / 10, 2 - 3 * y * 3 / 5, 3 - 4 * y * 2 / 3]
    assert estimate_discounts(counts).tolist() == pytest.approx(expected)
    assert estimate_discounts(np.array([1, 1, 2])).tolist() == pytest.approx([2 / 4] * 3)  # Ney's D
    assert estimate_discounts(np.array([5, 7])).tolist() == [0.5] * 3


def _nltk_model(sentences: list[np.ndarray], vocab: list[str], order: int, discount: float):  # type: ignore[no-untyped-def]
    """nltk.lm.KneserNeyInterpolated trained on exactly our n-grams (all windows ending at a real token)."""
    from nltk.lm import KneserNeyInterpolated

    stream, _ = _padded(sentences, order)
    ngrams = [
        tuple(vocab[t] for t in stream[j - k + 1 : j + 1])
        for j in range(len(stream))
        if stream[j] != BOS
        for k in range(1, order + 1)
    ]
    lm = KneserNeyInterpolated(order, discount=discount)
    lm.fit([ngrams], vocabulary_text=vocab)
    return lm


@pytest.mark.parametrize(("order", "discount"), [(2, 0.1), (3, 0.75), (4, 0.1), (5, 0.5)])
def test_equals_nltk_kneser_ney_interpolated(order: int, discount: float) -> None:
    text = ["the cat sat on the mat", "the dog sat on the log", "a cat saw the dog", "the cat sat", "a dog"]
    words = sorted({w for s in text for w in s.split()})
    vocab = [*SPECIALS, *words]
    ix = {w: i for i, w in enumerate(vocab)}
    sents = [np.array([ix[w] for w in s.split()]) for s in text]
    ours = KneserNey.fit(sents, len(vocab), order, discount=discount, uniform=False)
    ref = _nltk_model(sents, vocab, order, discount)
    stream, _ = _padded(sents, order)
    contexts = {tuple(stream[j - order + 1 : j]) for j in range(len(stream)) if stream[j] != BOS}
    contexts.add(tuple([ix["dog"]] * (order - 1)))  # an unseen context
    n = 0
    for ctx in contexts:
        start = BOS in ctx
        for w in range(EOS, len(vocab)):
            want = ref.score(vocab[w], [vocab[t] for t in ctx])
            assert prob(ours, list(ctx), w, sentence_start=start) == pytest.approx(want, abs=1e-9)
            n += 1
    assert n >= 100


@pytest.mark.parametrize("order", [1, 3, 5])
def test_every_context_sums_to_one(order: int) -> None:
    rng = np.random.default_rng(order)
    sents = [rng.integers(3, 30, size=rng.integers(1, 10)) for _ in range(200)]
    m = KneserNey.fit(sents, 32, order)  # ids 30, 31 never occur
    predictable = [UNK, *range(EOS, 32)]
    for t in range(20):
        ctx = list(sents[t][: order - 1]) if t % 2 else list(rng.integers(3, 32, size=order - 1))
        start = t % 2 == 1
        if start:
            ctx = ([BOS] * (order - 1) + ctx)[len(ctx) :] if order > 1 else []
        total = sum(prob(m, ctx, w, sentence_start=start) for w in predictable)
        assert total == pytest.approx(1.0, abs=1e-9)


def test_save_load_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = KneserNey.fit(TINY, 6, order=3)
    m.save(tmp_path / "m.npz")
    back = KneserNey.load(tmp_path / "m.npz")
    assert back.order == 3 and back.V == 6 and back.uniform
    a = m.sentence_logprobs([np.array([A, C, B])])[0]
    b = back.sentence_logprobs([np.array([A, C, B])])[0]
    assert a.tolist() == b.tolist()
