"""CAC determiner choice: P(the) vs P(a|an) at a determiner slot, for every architecture.

- Causal: the three candidate strings share a token prefix (the discourse context and the
  target line up to the slot), and consecutive sites of a dialogue share most of that context.
  One KV cache is carried from site to site (cropped to the common token prefix, extended by
  the new tokens only); the candidates' differing suffixes are run on top of it and the head is
  applied only at suffix positions. Equal, up to float noise, to summing log-probs of the three
  full strings (the reference).
- MLM: candidate ids are resolved *in context*: each candidate string is tokenized and the
  token(s) covering the determiner are read off (``Ġthe``, not bare ``the``). One-token
  candidates are read from a single masked input (identical copies are computed once);
  multi-token candidates fall back to a within-word l2r PLL over their tokens.
- Seq2seq: ``<extra_id_0>`` at the slot, the three targets decoded against one encoder pass.

*a* and *an* are merged with ``logaddexp``, then a softmax over {a, the} gives ``p_the``. Contexts
longer than the model window are cut from the left, whole lines first (``\\n``-separated).
With a ``context_step`` (causal only), a site that must be cut is cut ``context_step`` tokens deeper
and the following sites of the dialogue keep that cut while they fit, so the KV cache still carries
over once a dialogue outgrows the window (contexts then hold window - step .. window tokens).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from corpusbench.errors import ConfigError, InputError
from corpusbench.eval.batching import Progress, budget_batches, gather_logprobs, pad_right
from corpusbench.eval.causal import (
    CausalScorer,
    Encoded,
    common_prefix,
    crop_cache,
    encode_batch,
    encode_plain,
    overlapping,
    with_cache,
)
from corpusbench.eval.masked import MaskedPllScorer, make_copy
from corpusbench.eval.records import DeterminerChoice, DeterminerSite
from corpusbench.eval.seq2seq import Seq2SeqScorer

MERGE = {"a": ("a", "an"), "the": ("the",)}
WINDOW_MARGIN = 10  # tokens to spare, as the reference
REUSE_MIN_TOKENS = 64  # shorter shared contexts are cheaper batched than run along one cache


def merge_p_the(logprobs: dict[str, float]) -> float:
    """P(the) after merging a/an (logaddexp) and normalising over {a, the}; uniform if all -inf."""

    def lse(xs: list[float]) -> float:
        xs = [x for x in xs if x != -math.inf]
        return -math.inf if not xs else max(xs) + math.log(sum(math.exp(x - max(xs)) for x in xs))

    low = {k.lower(): v for k, v in logprobs.items()}
    la = lse([low[f] for f in MERGE["a"] if f in low])
    lt = lse([low[f] for f in MERGE["the"] if f in low])
    if la == -math.inf and lt == -math.inf:
        return 0.5
    m = max(la, lt)
    return math.exp(lt - m) / (math.exp(lt - m) + math.exp(la - m))


def truncate_left(
    site: DeterminerSite, count: Callable[[str], list[tuple[int, int]]], limit: int
) -> tuple[DeterminerSite, bool]:
    """Drop the oldest context (whole lines first, then tokens) until each candidate fits ``limit`` tokens."""
    longest = max(site.candidates, key=len)
    cut_any = False
    for _ in range(8):
        offsets = count(site.left + longest + site.right)
        if len(offsets) <= limit:
            return site, cut_any
        first_kept = offsets[len(offsets) - limit][0]
        if first_kept >= len(site.left):
            raise InputError(
                f"site {site.id}: the target utterance alone exceeds the model window ({limit} tokens)"
            )
        nl = site.left.find("\n", first_kept - 1)
        cut = nl + 1 if nl != -1 else first_kept
        site = DeterminerSite(id=site.id, left=site.left[cut:], right=site.right, candidates=site.candidates)
        cut_any = True
    raise InputError(f"site {site.id}: could not fit the context into {limit} tokens")


def _choices(
    sites: Sequence[DeterminerSite], scores: list[dict[str, float]], ntok: list[int], cut: list[bool]
) -> list[DeterminerChoice]:
    return [
        DeterminerChoice(
            id=s.id,
            logprobs=sc,
            p_the=merge_p_the(sc),
            n_context_tokens=n,
            truncated=c,
            context_lines=s.left.count("\n"),
        )
        for s, sc, n, c in zip(sites, scores, ntok, cut, strict=True)
    ]


# -- causal -----------------------------------------------------------------------------------------
def stepped_cuts(
    sites: Sequence[DeterminerSite], count: Callable[[str], list[tuple[int, int]]], limit: int, step: int
) -> Iterator[tuple[DeterminerSite, bool]]:
    """Left-truncate ``sites`` (in dialogue order) to ``limit`` tokens, lazily: a site is cut when it is
    reached, so ``count``'s last answers can serve the caller (a bad ``step`` raises at the first site).

    ``step == 0``: every site is cut exactly to the limit (the reference). ``step > 0``: a site that
    must be cut is cut to ``limit - step``, and each following site whose context begins with the
    same text keeps that cut while it fits, so consecutive contexts stay prefixes of each other.
    """
    if step < 0 or (step and step >= limit // 2):
        raise ConfigError(f"context step {step} must be below half the usable window ({limit} tokens)")
    prev_left, keep_from = "", 0
    for site in sites:
        kept = None
        if step and keep_from and site.left[:keep_from] == prev_left[:keep_from]:
            kept = replace(site, left=site.left[keep_from:])
            if truncate_left(kept, count, limit)[1]:  # the kept cut no longer fits
                kept = None
        if kept is not None:
            yield kept, True
        else:
            cut_site, c = truncate_left(site, count, limit)
            if c and step:
                cut_site, c = truncate_left(site, count, limit - step)
            keep_from = len(site.left) - len(cut_site.left)
            yield cut_site, c
        prev_left = site.left


class _LastEncodings:
    """:func:`encode_batch` that remembers the texts of its last calls: the text a site's fit was measured
    on is its longest candidate's full string, so that candidate is not encoded twice."""

    def __init__(self, tokenizer: Any, keep: int = 4) -> None:
        self.tokenizer, self.keep = tokenizer, keep
        self.memo: dict[str, Encoded] = {}

    def __call__(self, texts: Sequence[str]) -> list[Encoded]:
        new = [t for t in dict.fromkeys(texts) if t not in self.memo]
        self.memo.update(zip(new, encode_batch(self.tokenizer, new), strict=True))
        out = [self.memo[t] for t in texts]
        for old in list(self.memo)[: max(0, len(self.memo) - self.keep)]:  # oldest first
            del self.memo[old]
        return out


def _prepare_causal(
    scorer: CausalScorer, sites: Sequence[DeterminerSite], window: int, step: int = 0
) -> tuple[list[DeterminerSite], list[list[int]], list[list[list[int]]], list[bool]]:
    """Truncated sites, their shared context ids (candidates' common prefix) and candidate suffixes."""
    limit = window - WINDOW_MARGIN - (1 if scorer.prefix_id is not None else 0)
    bos = [scorer.prefix_id] if scorer.prefix_id is not None else []
    memo = _LastEncodings(scorer.tokenizer)
    prepared, ctx, sufs, cut = [], [], [], []
    for site, c in stepped_cuts(sites, lambda t: memo([t])[0].offsets, limit, step):
        ids = [bos + e.ids for e in memo([site.left + f + site.right for f in site.candidates])]
        n = common_prefix(ids)
        if n == 0:
            raise InputError(f"site {site.id}: empty left context and no BOS; cannot score the first token")
        prepared.append(site)
        ctx.append(ids[0][:n])
        sufs.append([x[n:] for x in ids])
        cut.append(c)
    return prepared, ctx, sufs, cut


def _lcp(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@torch.no_grad()
def _chain_scores(
    scorer: CausalScorer,
    ctx: list[list[int]],
    sufs: list[list[list[int]]],
    order: Sequence[int],
    progress: Progress | None,
) -> dict[int, list[float]]:
    """Per-candidate log-prob sums of the sites ``order`` with one KV cache carried across them.

    ``order`` is lexicographic in the context ids, so sites of one dialogue follow each other and
    each extends the previous one's cache: the cache is cropped to the common token prefix and
    only the new tokens are run. Each candidate suffix is run on top of the
    cache (one batch, on a repeated copy) and cropped off again: the same numbers as the full strings.
    """
    from transformers import DynamicCache

    model, dev = scorer.model, scorer.device
    split = scorer.split
    base = split.base if split.ok else model
    head = split.head if split.ok else (lambda h: h)

    def forward(rows: Sequence[Sequence[int]], cache: Any) -> torch.Tensor:
        # right padding needs no mask: under the causal mask no real token sees a later pad
        ids, _ = pad_right(rows, scorer.pad_id)
        out = base(input_ids=ids.to(dev), **with_cache(base, cache), use_cache=True)
        return out.last_hidden_state if split.ok else out.logits

    res: dict[int, list[float]] = {}
    cache, cached = None, []
    for i in order:
        c, cands = ctx[i], sufs[i]
        n = min(_lcp(cached, c), len(c) - 1)  # run >= 1 context token: its state predicts the slot
        if cache is None or n == 0 or not cache.is_croppable:
            # full-length layers even for sliding-window models (Gemma 3): the attention mask applies
            # the window, and the cache can be cropped back to any site (a sliding layer cannot)
            cache, n = DynamicCache(), 0
        else:
            crop_cache(cache, n)
        h_last = forward([c[n:]], cache)[0, -1:].expand(len(cands), -1)
        cached = c
        first = torch.tensor([suf[0] for suf in cands], device=dev)
        totals = gather_logprobs(head(h_last), first).double().cpu().numpy().copy()
        rest = [suf[:-1] for suf in cands]
        if max(map(len, rest)) > 0:  # all candidates in one batch on a repeated copy of the cache
            cache.batch_repeat_interleave(len(cands))
            hs = forward([r or [scorer.pad_id] for r in rest], cache)
            rr = [k for k, r in enumerate(rest) for _ in r]
            cc = [j for r in rest for j in range(len(r))]
            tgt = torch.tensor([cands[k][j + 1] for k, j in zip(rr, cc, strict=True)], device=dev)
            np.add.at(totals, rr, gather_logprobs(head(hs[rr, cc]), tgt).double().cpu().numpy())
            cache.batch_select_indices(slice(0, 1))
            crop_cache(cache, len(c))
        res[i] = totals.tolist()
        if progress:
            progress(1)
    return res


@torch.no_grad()
def choose_causal(
    scorer: CausalScorer,
    sites: Sequence[DeterminerSite],
    *,
    window: int,
    progress: Progress | None = None,
    reuse: bool = True,
    reuse_min: int = REUSE_MIN_TOKENS,
    context_step: int = 0,
) -> list[DeterminerChoice]:
    """AR determiner choice. With ``reuse``, the sites of a dialogue whose contexts are prefixes of each
    other are scored in one pass (:mod:`corpusbench.families.cac.lm_pass`); for a model that takes no 4D mask
    (or has sliding-window layers), sites whose context shares >= ``reuse_min`` tokens with a neighbour
    are scored along one carried KV cache instead. Every other site's context is run once (batched by
    token budget) and shared by its candidates only. All give the full strings' numbers.
    ``context_step``: see :func:`stepped_cuts`."""
    from corpusbench.families.cac.lm_pass import pass_mask_kind, pass_scores, prefix_runs

    with scorer.clock.stage("tokenize"):
        prepared, ctx, sufs, cut = _prepare_causal(scorer, sites, window, context_step)
    order = sorted(range(len(ctx)), key=lambda k: (ctx[k], k))
    chained: set[int] = set()
    per_site: dict[int, list[float]] = {}
    if reuse and (kind := pass_mask_kind(scorer)):
        for run in prefix_runs(ctx, order):
            if len(run) > 1:
                per_site.update(pass_scores(scorer, ctx, sufs, run, kind, progress))
                chained.update(run)
    elif reuse:
        for a, b in itertools.pairwise(order):
            if _lcp(ctx[a], ctx[b]) >= reuse_min:
                chained.update((a, b))
        per_site = _chain_scores(scorer, ctx, sufs, [i for i in order if i in chained], progress)
    rest = [i for i in range(len(ctx)) if i not in chained]
    costs = [len(ctx[i]) + max(map(len, sufs[i])) for i in rest]
    for batch in budget_batches(costs, scorer.batch_tokens):
        idx = [rest[b] for b in batch]
        _, _, sums = scorer.shared_prefix([ctx[i] for i in idx], [sufs[i] for i in idx])
        per_site.update(zip(idx, sums, strict=True))
        if progress:
            progress(len(idx))
    scores = [dict(zip(s.candidates, per_site[i], strict=True)) for i, s in enumerate(prepared)]
    return _choices(prepared, scores, [len(c) for c in ctx], cut)


# -- masked -----------------------------------------------------------------------------------------
def choose_masked(
    scorer: MaskedPllScorer, sites: Sequence[DeterminerSite], *, window: int, progress: Progress | None = None
) -> list[DeterminerChoice]:
    tok = scorer.tokenizer
    n_special = len(tok("a")["input_ids"]) - len(tok("a", add_special_tokens=False)["input_ids"])
    limit = window - WINDOW_MARGIN - n_special
    plans, owners, prepared, cut, ntok = [], [], [], [], []
    for si, site in enumerate(sites):
        site, c = truncate_left(site, lambda t: encode_plain(tok, t).offsets, limit)
        prepared.append(site)
        cut.append(c)
        for f in site.candidates:
            enc = scorer.encode(site.left + f + site.right)
            s = len(site.left)
            span_toks = [i for i in overlapping(enc.offsets, (s, s + len(f))) if not enc.special[i]]
            if not span_toks or any(enc.ids[i] == tok.unk_token_id for i in span_toks):
                raise InputError(f"site {site.id}: candidate {f!r} has no known token in context")
            # l2r over the candidate's tokens: token j is scored with j and the later ones masked
            plans.append(
                [make_copy(enc.ids, span_toks[k:], j, tok.mask_token_id) for k, j in enumerate(span_toks)]
            )
            owners.append((si, f))
        ntok.append(len(enc.ids))
    values = scorer.score_copies(plans, progress)
    scores: list[dict[str, float]] = [{} for _ in sites]
    for (si, f), v in zip(owners, values, strict=True):
        scores[si][f] = float(v.astype(np.float64).sum())
    return _choices(prepared, scores, ntok, cut)


# -- seq2seq ----------------------------------------------------------------------------------------
def choose_seq2seq(
    scorer: Seq2SeqScorer, sites: Sequence[DeterminerSite], *, window: int, progress: Progress | None = None
) -> list[DeterminerChoice]:
    tok = scorer.tokenizer
    limit = window - WINDOW_MARGIN
    sources, targets, owners, prepared, cut = [], [], [], [], []
    for si, site in enumerate(sites):
        site, c = truncate_left(site, lambda t: encode_plain(tok, t).offsets, limit)
        prepared.append(site)
        cut.append(c)
        for f in site.candidates:
            src, tgt = scorer.blank(site.left + site.right, (len(site.left), len(site.left)), fill=f)
            sources.append(src)
            targets.append(tgt)
            owners.append((si, f))
    values = scorer.score_targets(sources, targets, progress)
    scores: list[dict[str, float]] = [{} for _ in sites]
    for (si, f), v in zip(owners, values, strict=True):
        scores[si][f] = float(v.astype(np.float64).sum())
    ntok = [len(tok(s.left + scorer.sentinel + s.right)["input_ids"]) for s in prepared]
    return _choices(prepared, scores, ntok, cut)


def choose_determiners(
    scorer: Any,
    sites: Sequence[DeterminerSite],
    *,
    window: int,
    progress: Progress | None = None,
    context_step: int = 0,
) -> list[DeterminerChoice]:
    """Dispatch on the scorer type; output order = input order. ``context_step``: causal only."""
    if isinstance(scorer, CausalScorer):
        return choose_causal(scorer, sites, window=window, progress=progress, context_step=context_step)
    if isinstance(scorer, MaskedPllScorer):
        return choose_masked(scorer, sites, window=window, progress=progress)
    if isinstance(scorer, Seq2SeqScorer):
        return choose_seq2seq(scorer, sites, window=window, progress=progress)
    raise TypeError(f"no CAC determiner choice for {type(scorer).__name__}")
