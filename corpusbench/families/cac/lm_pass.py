"""CAC for causal models in one pass per transcript window.

A causal model sees only the past, so the sites of one dialogue whose contexts are token prefixes of
each other (all sites before the dialogue outgrows the window, then the sites that keep one cut: see
:func:`corpusbench.families.cac.lm.stepped_cuts`) need their context run once. Such a run of sites is a
*pass*: its longest context, the *trunk*, goes through the model once with a KV cache; the first
token of every candidate suffix is read from the trunk's hidden state at its site; the remaining
suffix tokens of all sites run together on top of the cache under a *branch mask* (a suffix token
sees the trunk up to its own site and the earlier tokens of its own suffix, its position id continues
from its site), a chunk at a time, and the cache is cropped back to the trunk after each chunk.

The token ids are the per-site path's own (each candidate string tokenized whole, as
:func:`corpusbench.families.cac.lm._prepare_causal` does); a site joins a pass only when its context ids are
a prefix of the next site's, so nothing assumes where the tokenizer splits. The numbers are those of
the per-site path (tested to 1e-4 against it). Models whose attention takes no 4D mask, or that have
sliding-window layers (the custom mask would drop their window), are not scored here: see
:func:`pass_mask_kind`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from corpusbench.eval.batching import Progress, gather_logprobs
from corpusbench.eval.causal import CausalScorer, crop_cache, with_cache

BRANCH_TOKENS = 512  # suffix tokens per branch forward (the mask is branch tokens x (trunk + branch))


def prefix_runs(ctx: Sequence[Sequence[int]], order: Sequence[int]) -> list[list[int]]:
    """Split ``order`` (sites sorted by context ids) into runs where each context is a prefix of the next."""
    runs: list[list[int]] = []
    for i in order:
        if runs:
            last = ctx[runs[-1][-1]]
            if len(last) <= len(ctx[i]) and list(ctx[i][: len(last)]) == list(last):
                runs[-1].append(i)
                continue
        runs.append([i])
    return runs


def pass_mask_kind(scorer: CausalScorer) -> str | None:
    """The 4D mask kind ("bool" for SDPA, "float" for eager) one-pass scoring uses; None: not this model.

    The scorer's prefix-tree probe says whether the model honours a 4D mask; sliding-window models are
    left to the per-site path.
    """
    return None if scorer.sliding_layers else scorer.tree_mask


def branch_mask(
    starts: Sequence[int], lengths: Sequence[int], trunk: int, kind: str, dtype: torch.dtype
) -> torch.Tensor:
    """``[1, 1, q, trunk + q]``: branch b (``lengths[b]`` tokens, its site's context ``starts[b]`` tokens)
    sees the trunk's first ``starts[b]`` positions and its own earlier tokens."""
    q = sum(lengths)
    mask = torch.zeros((q, trunk + q), dtype=torch.bool)
    at = 0
    for start, n in zip(starts, lengths, strict=True):
        mask[at : at + n, :start] = True
        mask[at : at + n, trunk + at : trunk + at + n] = torch.ones(n, n, dtype=torch.bool).tril()
        at += n
    mask = mask[None, None]
    if kind == "bool":
        return mask
    return torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, torch.finfo(dtype).min)


def _chunks(lengths: Sequence[int], size: int) -> list[list[int]]:
    """Consecutive branch indices in chunks of at most ``size`` tokens (a longer branch alone)."""
    out: list[list[int]] = [[]]
    total = 0
    for b, n in enumerate(lengths):
        if out[-1] and total + n > size:
            out.append([])
            total = 0
        out[-1].append(b)
        total += n
    return [c for c in out if c]


@torch.no_grad()
def pass_scores(
    scorer: CausalScorer,
    ctx: Sequence[Sequence[int]],
    sufs: Sequence[Sequence[Sequence[int]]],
    run: Sequence[int],
    kind: str,
    progress: Progress | None = None,
    branch_tokens: int = BRANCH_TOKENS,
) -> dict[int, list[float]]:
    """Per-candidate log-prob sums of the sites ``run`` (each context a prefix of the last) in one pass."""
    from transformers import DynamicCache

    dev, split = scorer.device, scorer.split
    base = split.base if split.ok else scorer.model
    head = split.head if split.ok else (lambda h: h)
    trunk = list(ctx[run[-1]])
    cache = DynamicCache()
    out = base(input_ids=torch.tensor([trunk], device=dev), **with_cache(base, cache), use_cache=True)
    states = out.last_hidden_state if split.ok else out.logits
    # first suffix token of every candidate, from the trunk's state at its site
    owners = [(i, k) for i in run for k in range(len(sufs[i]))]
    at = torch.tensor([len(ctx[i]) - 1 for i, _ in owners], device=dev)
    first = torch.tensor([sufs[i][k][0] for i, k in owners], device=dev)
    totals = gather_logprobs(head(states[0, at]), first).double().cpu().numpy().copy()
    del out, states
    # the rest of every suffix: branches on top of the cache
    rests = [list(sufs[i][k][:-1]) for i, k in owners]
    live = [b for b, r in enumerate(rests) if r]
    for chunk in _chunks([len(rests[b]) for b in live], branch_tokens):
        idx = [live[c] for c in chunk]
        ids = [t for b in idx for t in rests[b]]
        starts = [len(ctx[owners[b][0]]) for b in idx]
        lengths = [len(rests[b]) for b in idx]
        pos = [s + j for s, n in zip(starts, lengths, strict=True) for j in range(n)]
        mask = branch_mask(starts, lengths, len(trunk), kind, scorer.model.dtype)
        o2 = base(
            input_ids=torch.tensor([ids], device=dev),
            position_ids=torch.tensor([pos], device=dev),
            attention_mask=mask.to(dev),
            **with_cache(base, cache),
            use_cache=True,
        )
        hs = (o2.last_hidden_state if split.ok else o2.logits)[0]
        tgt = [sufs[owners[b][0]][owners[b][1]][j + 1] for b in idx for j in range(len(rests[b]))]
        lp = gather_logprobs(head(hs), torch.tensor(tgt, device=dev)).double().cpu().numpy()
        np.add.at(totals, np.repeat(idx, lengths), lp)
        crop_cache(cache, len(trunk))
    res: dict[int, list[float]] = {i: [] for i in run}
    for (i, _), v in zip(owners, totals, strict=True):
        res[i].append(float(v))
    if progress:
        progress(len(run))
    return res
