"""CAC determiner choice: a/an merging, KV reuse == full strings, ids resolved in context, truncation."""

from __future__ import annotations

import math

import pytest
import torch

from corpusbench.errors import ConfigError
from corpusbench.eval.causal import CausalScorer, encode_plain, has_sliding_layers
from corpusbench.eval.masked import MaskedPllScorer
from corpusbench.eval.records import DeterminerSite
from corpusbench.eval.seq2seq import Seq2SeqScorer
from corpusbench.families.cac.lm import (
    WINDOW_MARGIN,
    _prepare_causal,
    choose_causal,
    choose_determiners,
    merge_p_the,
    stepped_cuts,
    truncate_left,
)

CTX = "*MOT: look at the dog .\n*CHI: doggie !\n*MOT: yes , the dog is big .\n"
SITES = [
    DeterminerSite(id="s1", left=CTX + "*CHI: I want ", right=" dog ."),
    DeterminerSite(id="s2", left="*MOT: what is that ?\n*CHI: that is ", right=" apple ."),
    DeterminerSite.from_span(
        "s3", CTX * 3 + "*MOT: where is the ball ?", (len(CTX * 3) + 15, len(CTX * 3) + 18)
    ),
]


def test_merge_hand_cases():
    assert merge_p_the({"a": math.log(0.2), "an": math.log(0.2), "the": math.log(0.6)}) == pytest.approx(0.6)
    assert merge_p_the({"a": 0.0, "an": -math.inf, "the": 0.0}) == pytest.approx(0.5)
    assert merge_p_the({"a": -math.inf, "an": -math.inf, "the": -math.inf}) == 0.5
    assert merge_p_the({"a": -1000.0, "an": -1000.0, "the": -1001.0}) == pytest.approx(1 / (1 + 2 * math.e))


def full_string_p_the(scorer: CausalScorer, site: DeterminerSite) -> float:
    """The reference method: score the three complete strings and sum all their token log-probs."""
    return merge_p_the({f: scorer.sequence_logprob([site.left + f + site.right])[0] for f in site.candidates})


@pytest.mark.parametrize("budget", [64, 4096])
def test_causal_kv_reuse_equals_full_strings(tiny, budget):
    lm = tiny["gpt2"]
    sc = CausalScorer(lm.model, lm.tokenizer, batch_tokens=budget)
    got = choose_determiners(sc, SITES, window=512)
    assert [c.id for c in got] == ["s1", "s2", "s3"]
    for site, c in zip(SITES, got, strict=True):
        assert c.p_the == pytest.approx(full_string_p_the(sc, site), abs=1e-4)
        assert set(c.logprobs) == {"a", "an", "the"} and not c.truncated


@pytest.mark.slow
def test_causal_kv_reuse_on_smollm2(smol):
    sc = CausalScorer(smol.model, smol.tokenizer)
    got = choose_determiners(sc, SITES[:2], window=8192)
    for site, c in zip(SITES[:2], got, strict=True):
        assert c.p_the == pytest.approx(full_string_p_the(sc, site), abs=1e-4)
    assert got[0].p_the > 0.5  # "I want ___ dog" after "the dog" mentions


def test_truncation_drops_whole_lines_first(tiny):
    tok = tiny["gpt2"].tokenizer
    count = lambda t: encode_plain(tok, t).offsets  # noqa: E731
    site = SITES[2]
    full = len(count(site.left + "the" + site.right))
    cut, was_cut = truncate_left(site, count, full - 3)
    assert was_cut and site.left.endswith(cut.left)
    assert cut.left.startswith("*") and len(count(cut.left + "the" + cut.right)) <= full - 3
    same, not_cut = truncate_left(site, count, full)
    assert same == site and not not_cut
    got = choose_determiners(CausalScorer(tiny["gpt2"].model, tok), [site], window=40)[0]
    assert got.truncated and got.n_context_tokens <= 40


def test_mlm_ids_resolved_in_context(tiny):
    lm = tiny["roberta"]
    tok = lm.tokenizer
    sc = MaskedPllScorer(lm.model, tok)
    site = SITES[0]
    got = choose_determiners(sc, [site], window=250)[0]
    # manual read-out at the mask with the space-prefixed ids ("Ġthe"), as the tokenizer produces in context
    enc = tok(site.left + tok.mask_token + site.right, return_tensors="pt")
    pos = int((enc.input_ids[0] == tok.mask_token_id).nonzero()[0])
    with torch.no_grad():
        lp = torch.log_softmax(lm.model(**enc).logits[0, pos].double(), -1)
    ids = {f: tok.convert_tokens_to_ids("Ġ" + f) for f in ("a", "an", "the")}
    bare = {f: tok.convert_tokens_to_ids(f) for f in ("a", "an", "the")}
    assert ids != bare
    assert got.logprobs["the"] == pytest.approx(float(lp[ids["the"]]), abs=1e-4)
    assert got.p_the == pytest.approx(merge_p_the({f: float(lp[i]) for f, i in ids.items()}), abs=1e-4)


def test_mlm_bert_and_seq2seq_run(tiny):
    bert = MaskedPllScorer(tiny["bert"].model, tiny["bert"].tokenizer)
    out = choose_determiners(bert, SITES, window=250)
    assert all(0 < c.p_the < 1 for c in out) and len({round(c.p_the, 6) for c in out}) > 1
    t5 = tiny["t5"]
    s2s = Seq2SeqScorer(t5.model, t5.tokenizer)
    out = choose_determiners(s2s, SITES, window=512)
    site = SITES[1]
    src, tgt = s2s.blank(site.left + site.right, (len(site.left), len(site.left)), fill="an")
    assert out[1].logprobs["an"] == pytest.approx(float(s2s.score_targets([src], [tgt])[0].sum()), abs=1e-5)


def test_discourse_site_and_window_lines(tiny):
    site = DeterminerSite.from_discourse(
        "eve:3:2", [("MOT", "look at the dog ."), ("CHI", "doggie !")], "CHI", "I want the dog .", (7, 10)
    )
    assert site.left == "*MOT: look at the dog .\n*CHI: doggie !\n*CHI: I want " and site.right == " dog ."
    sc = CausalScorer(tiny["gpt2"].model, tiny["gpt2"].tokenizer)
    full = choose_determiners(sc, [site], window=512)[0]
    assert full.context_lines == 2 and full.in_window(2) and not full.in_window(3)
    short = choose_determiners(sc, [site], window=len(encode_plain(sc.tokenizer, site.left).ids) + 2)[0]
    assert short.truncated and short.context_lines < 2 and not short.in_window(2)


def dialogue_sites() -> list[DeterminerSite]:
    """Consecutive sites of one dialogue: each context extends the previous one (and two unrelated)."""
    lines = [
        ("MOT", "look at the dog ."),
        ("CHI", "doggie !"),
        ("MOT", "yes , the dog is big ."),
        ("CHI", "I want a ball ."),
        ("MOT", "here is the ball ."),
        ("CHI", "an apple for the dog ."),
    ]
    out = []
    for k, (spk, text) in enumerate(lines):
        for w in ("the", "a", "an"):
            at = text.find(f"{w} ")
            if at == 0 or (at > 0 and text[at - 1] == " "):
                out.append(
                    DeterminerSite.from_discourse(f"d{k}:{at}", lines[:k], spk, text, (at, at + len(w)))
                )
    return out + SITES[1:]


@pytest.mark.parametrize("arch", ["gpt2", pytest.param("smol", marks=pytest.mark.slow)])
def test_context_reuse_across_sites_equals_naive(tiny, request, arch):
    lm = request.getfixturevalue("smol") if arch == "smol" else tiny["gpt2"]
    sc = CausalScorer(lm.model, lm.tokenizer)
    sites = dialogue_sites()
    fast = choose_causal(sc, sites, window=512, reuse_min=1)  # every dialogue site along one cache
    naive = choose_causal(sc, sites, window=512, reuse=False)
    diffs = []
    for site, f, n in zip(sites, fast, naive, strict=True):
        assert f.id == n.id == site.id
        # the full strings' scores include the shared context: compare differences between candidates
        full = {c: sc.sequence_logprob([site.left + c + site.right])[0] for c in site.candidates}
        for cand in site.candidates:
            diffs.append(abs(f.logprobs[cand] - n.logprobs[cand]))
            diffs.append(abs((f.logprobs[cand] - f.logprobs["the"]) - (full[cand] - full["the"])))
    assert len(diffs) == 6 * len(sites) and max(diffs) <= 1e-4


def long_dialogue(n_lines: int = 40) -> list[DeterminerSite]:
    """Consecutive sites of one long dialogue, one per line, each context extending the previous."""
    nouns = ["dog", "ball", "cat", "apple", "book", "car"]
    lines = [  # no two lines alike: an exact cut gives every site a context of its own
        ("MOT" if k % 2 else "CHI", f"look at the {nouns[k % len(nouns)]} number {k} .")
        for k in range(n_lines)
    ]
    return [
        DeterminerSite.from_discourse(f"l{k}", lines[:k], spk, text, (8, 11))
        for k, (spk, text) in enumerate(lines)
    ]


def chars(text: str) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(len(text))]


def test_stepped_cuts_keep_one_cut_while_it_fits():
    sites, limit = long_dialogue(), 200
    exact = list(stepped_cuts(sites, chars, limit, 0))
    stepped = list(stepped_cuts(sites, chars, limit, 90))
    size = lambda s: len(s.left + max(s.candidates, key=len) + s.right)  # noqa: E731
    assert all(size(s) <= limit for s, _ in exact + stepped)
    # every site cut in both modes; exact cuts are as long as the whole-line rule allows
    cut_exact = [len(full.left) - len(s.left) for full, (s, c) in zip(sites, exact, strict=True) if c]
    cut_step = [len(full.left) - len(s.left) for full, (s, c) in zip(sites, stepped, strict=True) if c]
    assert len(cut_exact) == len(cut_step) > 10
    assert len(set(cut_step)) < len(set(cut_exact)) / 2  # the same cut serves several sites
    assert all(size(s) >= limit - 90 - 40 for s, c in stepped if c)  # at most step + one line shorter
    with pytest.raises(ConfigError, match="context step"):
        list(stepped_cuts(sites, chars, limit, 150))


def test_context_step_scores_equal_naive_and_reuse_the_cache(tiny):
    lm = tiny["gpt2"]
    sc = CausalScorer(lm.model, lm.tokenizer)
    sites = long_dialogue(24)
    fast = choose_causal(sc, sites, window=96, reuse_min=8, context_step=40)
    naive = choose_causal(sc, sites, window=96, reuse=False, context_step=40)
    assert sum(f.truncated for f in fast) > 5
    # cut to 85 - 40 tokens in all, whole lines first (a line is ~16 tokens here), then kept while it fits
    assert all(85 - 40 - 25 <= f.n_context_tokens <= 85 for f in fast if f.truncated)
    diffs = [abs(f.logprobs[c] - n.logprobs[c]) for f, n in zip(fast, naive, strict=True) for c in f.logprobs]
    assert max(diffs) <= 1e-4
    # tokens through the model: the kept cut lets the cache carry over; exact cuts rerun each context
    seen = []
    hook = lm.model.base_model.register_forward_pre_hook(
        lambda _m, _a, kw: seen.append(kw["input_ids"].numel()), with_kwargs=True
    )
    try:
        choose_causal(sc, sites, window=96, reuse_min=8, context_step=40)
        stepped, seen[:] = sum(seen), []
        choose_causal(sc, sites, window=96, reuse_min=8)
        exact = sum(seen)
    finally:
        hook.remove()
    assert stepped < 0.6 * exact  # measured 895 vs 1716 tokens


def test_sliding_window_model_carries_the_cache_exactly(tiny):
    """Gemma 3 has sliding-window layers, whose own cache drops states older than the window and cannot
    be cropped back to an earlier site (transformers raises). The scorer keeps full-length caches (the
    mask applies the window): with and without the carried cache, the full strings' numbers."""
    import transformers as tf

    tok = tiny["gpt2"].tokenizer
    cfg = tf.Gemma3TextConfig(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, head_dim=16, sliding_window=16, max_position_embeddings=512,
        layer_types=["sliding_attention", "full_attention"], pad_token_id=0, bos_token_id=0, eos_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    model = tf.Gemma3ForCausalLM(cfg).eval()
    assert has_sliding_layers(model) and not has_sliding_layers(tiny["gpt2"].model)
    sc = CausalScorer(model, tok)
    sites = long_dialogue(12)  # contexts far longer than the 16-token sliding window
    chained = choose_causal(sc, sites, window=512, reuse_min=1)
    alone = choose_causal(sc, sites, window=512, reuse=False)
    for site, c, a in zip(sites, chained, alone, strict=True):
        full = {f: sc.sequence_logprob([site.left + f + site.right])[0] for f in site.candidates}
        for f in site.candidates:
            want = full[f] - full["the"]
            assert abs((c.logprobs[f] - c.logprobs["the"]) - want) <= 1e-4
            assert abs((a.logprobs[f] - a.logprobs["the"]) - want) <= 1e-4


class _CountingTokenizer:
    """A tokenizer that counts the texts it encodes."""

    def __init__(self, tok):
        self.tok, self.texts = tok, 0

    def __call__(self, texts, **kw):
        self.texts += len(texts)
        return self.tok(texts, **kw)


@pytest.mark.parametrize("step", [0, 40])
def test_prepare_causal_encodes_each_fitting_text_once(tiny, step):
    """The site's fit is measured on its longest candidate's full string; that encoding is reused."""
    lm = tiny["gpt2"]
    sc = CausalScorer(lm.model, lm.tokenizer)
    sites = long_dialogue(24) + SITES
    counting = _CountingTokenizer(lm.tokenizer)
    sc.tokenizer = counting
    prepared, ctx, sufs, cut = _prepare_causal(sc, sites, 96, step)
    # the reference: every text encoded on its own (truncation measured the same way)
    limit = 96 - WINDOW_MARGIN - (1 if sc.prefix_id is not None else 0)
    bos = [sc.prefix_id] if sc.prefix_id is not None else []
    ref = list(stepped_cuts(sites, lambda t: encode_plain(lm.tokenizer, t).offsets, limit, step))
    assert [s for s, _ in ref] == prepared and [c for _, c in ref] == cut and any(cut)
    for site, c_ids, s_ids in zip(prepared, ctx, sufs, strict=True):
        full = [bos + encode_plain(lm.tokenizer, site.left + f + site.right).ids for f in site.candidates]
        assert [c_ids + s for s in s_ids] == full
    # naive: one text per fit check plus one per candidate; here the longest candidate is not re-encoded
    checks = _CountingTokenizer(lm.tokenizer)
    list(stepped_cuts(sites, lambda t: encode_plain(checks, t).offsets, limit, step))
    candidates = sum(len(s.candidates) for s in prepared)
    assert counting.texts <= checks.texts + candidates - len(sites)
