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


def _release_results() -> dict:
    """build_results on a release with LT-Swap (inflectionswap, bins 0-2) and FIT-CLAMS (one lexicon)
    configs, scores set by hand: two LT-Swap pairs per (rule, bin), one of them a tie in bin 0."""
    from corpusbench.eval.data import PairSet
    from corpusbench.eval.records import PairScore
    from corpusbench.eval.release import ConfigEntry, Release
    from corpusbench.eval.runner import build_results

    lt_roles = {"ltswap_rule:inflectionswap": "g"}
    lt = ConfigEntry(name="ltswap-inflectionswap", task="minimal_pairs", roles=lt_roles)
    fc_roles = {"paradigm": "paradigm", "bin": "noun_bin__plays", "noun_bin:plays": "noun_bin__plays"}
    fc = ConfigEntry(name="fitclams-plays-simple_agrmt", task="minimal_pairs", roles=fc_roles)
    pairs, scores = [], []
    for i, (rule, b) in enumerate((r, b) for r in ("NOUN", "VERB") for b in (0, 1, 2) for _ in range(2)):
        pairs.append(MinimalPair(id=f"lt{i}", good="g", bad="b", config=lt.name, group=rule, bin=b))
        good = -2.0 if i == 0 else (-1.0 if i % 2 else -3.0)  # pair 0 a tie, odd pairs right
        scores.append(PairScore(id=f"lt{i}", config=lt.name, group=rule, bin=b, logprob_good=good,
                                logprob_bad=-2.0, n_tokens_good=1, n_tokens_bad=1))  # fmt: skip
    for i in range(4):
        meta = (("paradigm", "simple_agrmt"), ("noun_bin:plays", i % 2))
        pairs.append(MinimalPair(id=f"fc{i}", good="g", bad="b", config=fc.name, meta=meta))
        scores.append(PairScore(id=f"fc{i}", config=fc.name, logprob_good=-1.0 if i else -2.0,
                                logprob_bad=-2.0, n_tokens_good=1, n_tokens_bad=1))  # fmt: skip
    names = (lt.name, fc.name)
    data = PairSet(pairs=tuple(pairs), configs=names, source="r", revision=None, fingerprint="f" * 16,
                   group_column=None)  # fmt: skip
    prov = {
        "model": {"model_id": "m", "arch": "causal", "dtype": "float32", "model_revision": None},
        "dataset": data.provenance(),
        "scorer": {"scorer": "s"},
    }
    rel = Release(source="r", revision=None, root=None, configs=(lt, fc))
    return build_results(data, scores, prov, release=rel)


def test_ties_and_intervals_in_results_summary_and_console():
    from corpusbench.eval.runner import headline_lines, summary_markdown

    res = _release_results()
    assert res["n_ties"] == 2 and res["tie_share"] == pytest.approx(2 / 16)
    assert res["accuracy_ties_half"] == pytest.approx((res["accuracy"] * 16 + 1) / 16)
    assert "Wilson" in res["interval"]
    cfg = res["configs"]["fitclams-plays-simple_agrmt"]
    assert (cfg["n_ties"], cfg["tie_share"], cfg["accuracy_ties_half"]) == (1, 0.25, pytest.approx(3.5 / 4))
    lines = headline_lines(res["benchmarks"])
    assert lines[0].startswith("ltswap score 0.") and "ties 1/12 (8.3%), ties as ½" in lines[0]
    assert lines[1].startswith("fitclams score, lexicon plays: 0.7500 [")
    assert "ties 1/4 (25.0%), ties as ½ 0.8750" in lines[1]
    md = summary_markdown(res)
    assert "ties 2/16 (12.5%)" in md and "| accuracy, ties as ½ |" in md and "intervals: 95% Wilson" in md
    assert "| fitclams-plays-simple_agrmt | (all) | 4 | 0.7500 [" in md and "| 1 (25.0%) | 0.8750 |" in md
    assert "**FIT-CLAMS score, lexicon plays: 0.7500**" in md and "accuracy drop (lowest − highest bin" in md


def test_figures_follow_the_benchmarks(tmp_path):
    """LT-Swap per bin and subtask (no WordSwap in bin 0 here; IS bins 0-2), FIT-CLAMS per bin of the
    lexicon; no catch-all accuracy_by_bin.png when every binned config belongs to a benchmark."""
    from corpusbench.eval.plots import MIN_N, plot_results
    from corpusbench.families.ltswap.score import ltswap_series

    res = _release_results()
    made = set(plot_results(res, tmp_path))
    assert made == {"accuracy_by_group.png", "ltswap_by_bin.png", "fitclams_by_bin.png"}
    assert not (tmp_path / "accuracy_by_bin.png").exists()
    series = ltswap_series(res["benchmarks"]["ltswap"])
    assert set(series) == {"LT-Swap score", "IS"}
    value, ci, n, half = series["IS"][0]  # bin 0: NOUN 1 win + 1 tie of 2, VERB 1 win of 2
    assert (value, n, half) == (pytest.approx(0.5), 4, pytest.approx((0.75 + 0.5) / 2))
    assert ci[1] - ci[0] > 0.3
    assert n < MIN_N  # drawn hollow


def test_cac_benchmark_headline_is_the_childrens_agreement_with_the_others_beside() -> None:
    from corpusbench.families.cac.score import cac_benchmark

    per = {
        "a": {"score": 0.6, "accuracy_caretaker": 0.9, "accuracy_pooled": 0.7, "configs": {}},
        "b": {"score": 0.8, "accuracy_caretaker": 0.7, "accuracy_pooled": 0.75, "configs": {}},
    }
    got = cac_benchmark(per)
    assert got is not None
    assert got["score"] == pytest.approx(0.7) and got["accuracy_caretaker"] == pytest.approx(0.8)
    assert got["accuracy_pooled"] == pytest.approx(0.725)
