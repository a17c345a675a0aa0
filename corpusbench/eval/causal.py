"""Causal (autoregressive) scorer: summed token log-probabilities of sentences or character spans.

Conventions (recorded in every result through :meth:`CausalScorer.conventions`):

- ``bos="prepend"`` (default, as lm-eval / BabyLM): the tokenizer's BOS id (EOS when there is no
  BOS) is put before the text and *every* text token is scored. ``bos="none"`` (minicons default):
  nothing is prepended and the first token is not scored. The tokenizer's own special tokens are
  never added, so the scored ids do not depend on tokenizer post-processors.
- EOS is not scored. Log-probs are natural logs, ``logit - logsumexp`` in fp32.
- A character span scores exactly the tokens whose offsets overlap it (a verb-only ΔP).
- Prefix sharing (default): the texts of one call are packed into prefix trees run with a tree
  attention mask (:mod:`corpusbench.eval.prefix_tree`), so a prefix shared by several texts (both
  members of a minimal pair, a template's opening) is computed once. The numbers are those of
  separate forwards (checked on a probe at construction; models where the check fails, or whose
  attention cannot take a 4D mask, are scored plainly).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from corpusbench.errors import ConfigError
from corpusbench.eval.batching import (
    Progress,
    SummedScores,
    budget_batches,
    gather_logprobs,
    pad_right,
    split_flat,
)
from corpusbench.eval.models import HeadSplit, causal_head, max_positions
from corpusbench.eval.prefix_tree import pack_rows, tree_inputs
from corpusbench.eval.records import Span, TokenScore
from corpusbench.eval.timing import StageClock, count_tokens

log = logging.getLogger(__name__)

Bos = Literal["prepend", "none"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Encoded:
    ids: list[int]
    offsets: list[tuple[int, int]]


def encode_plain(tokenizer: Any, text: str) -> Encoded:
    """Token ids and character offsets of ``text`` without any special tokens."""
    return encode_batch(tokenizer, [text])[0]


def encode_batch(tokenizer: Any, texts: Sequence[str]) -> list[Encoded]:
    """:func:`encode_plain` of every text in one call (a fast tokenizer encodes a list in parallel)."""
    if not texts:
        return []
    enc = tokenizer(list(texts), add_special_tokens=False, return_offsets_mapping=True)
    return [
        Encoded(ids=list(ids), offsets=[tuple(o) for o in offs])
        for ids, offs in zip(enc["input_ids"], enc["offset_mapping"], strict=True)
    ]


def common_prefix(seqs: Sequence[Sequence[int]]) -> int:
    """Length of the longest common prefix that leaves every sequence at least one token."""
    n = 0
    while all(len(x) > n + 1 for x in seqs) and len({x[n] for x in seqs}) == 1:
        n += 1
    return n


def overlapping(offsets: Sequence[tuple[int, int]], span: Span | None) -> list[int]:
    """Indices of the tokens that overlap ``span`` (all tokens when ``span`` is None)."""
    if span is None:
        return list(range(len(offsets)))
    s, e = span
    return [i for i, (a, b) in enumerate(offsets) if a < e and b > s and b > a]


def with_cache(module: Any, cache: Any) -> dict[str, Any]:
    """The KV cache keyword ``module.forward`` takes: ``cache`` (newer transformers, which warn on every
    call given ``past_key_values``), else ``past_key_values`` (older ones, and models that keep it)."""
    import inspect

    params = inspect.signature(module.forward).parameters
    return {"cache" if "cache" in params else "past_key_values": cache}


def cache_of(out: Any) -> Any:
    """The KV cache a forward returned, read by the name that does not warn (``cache`` when it exists)."""
    cache = out.get("cache")
    return cache if cache is not None else out.past_key_values


def crop_cache(cache: Any, n: int) -> None:
    """Keep the first ``n`` positions of ``cache`` (a negative ``crop`` removes, in every version)."""
    extra = cache.get_seq_length() - n
    if extra > 0:
        cache.crop(-extra)


def has_sliding_layers(model: Any) -> bool:
    """Whether the model has sliding-window attention layers (Gemma 3, Mistral ...), as its cache says."""
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)
    return any(getattr(layer, "is_sliding", False) for layer in getattr(cache, "layers", ()))


class CausalScorer(SummedScores):
    """Summed log-probabilities from any ``*ForCausalLM``; batches are length-sorted by token budget."""

    name = "causal.v1"
    progress_per_text = True  # score(texts, spans, progress) calls progress with the texts finished

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        bos: Bos = "prepend",
        batch_tokens: int = 2048,
        share_prefixes: bool = True,
        row_tokens: int = 128,
    ) -> None:
        if bos not in ("prepend", "none"):
            raise ConfigError(f"unknown BOS convention {bos!r}: use prepend or none")
        self.model, self.tokenizer, self.bos, self.batch_tokens = model, tokenizer, bos, batch_tokens
        self.device = next(model.parameters()).device
        self.prefix_id: int | None = None
        if bos == "prepend":
            self.prefix_id = (
                tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
            )
            if self.prefix_id is None:
                raise ConfigError(
                    "bos=prepend but the tokenizer has neither a BOS nor an EOS token; use bos=none"
                )
        pad = tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else (tokenizer.eos_token_id or 0)
        self.split = HeadSplit(model, causal_head(model))
        self.row_tokens = row_tokens
        self.window = getattr(model.config, "sliding_window", None) or None
        self.sliding_layers = has_sliding_layers(model)
        self.tree_mask: str | None = self._tree_mask_kind() if share_prefixes else None
        self.max_len = max_positions(model, tokenizer)
        self.n_cut = 0  # texts longer than the window, cut from the left (their first tokens unscored)
        self.clock = StageClock()  # tokenize seconds and the tokens through the model (after the probes)
        count_tokens(model.base_model, self.clock)

    def conventions(self) -> dict[str, Any]:
        prefix = self.tokenizer.convert_ids_to_tokens(self.prefix_id) if self.prefix_id is not None else None
        return {
            "scorer": self.name,
            "bos": self.bos,
            "prefix_token": prefix,
            "first_token_scored": self.bos == "prepend",
            "eos_scored": False,
            "reduction": "sum",
            "log_base": "e",
            "logprob": "logit - logsumexp (fp32)",
            "head_split": self.split.ok,
            "batch_tokens": self.batch_tokens,
            "prefix_sharing": "tree" if self.tree_mask else "off",
            "longer_than_window": f"cut from the left to the model's {self.max_len} tokens (flagged)",
            "row_tokens": self.row_tokens if self.tree_mask else None,
        }

    # -- public verbs ---------------------------------------------------------------------------
    def token_logprobs(
        self, texts: Sequence[str], progress: Progress | None = None
    ) -> list[list[TokenScore]]:
        with self.clock.stage("tokenize"):
            encs = encode_batch(self.tokenizer, texts)
        units = [self._unit(e, None) for e in encs]
        values = self._run([u[0] for u in units], [u[1] for u in units], progress, self.tree_mask)
        out = []
        for enc, (_, targets, first), vals in zip(encs, units, values, strict=True):
            toks = self.tokenizer.convert_ids_to_tokens(enc.ids)
            scores = dict(zip([t - first for t in targets], vals.tolist(), strict=True))
            out.append(
                [
                    TokenScore(
                        token=toks[i],
                        logprob=scores.get(i, float("nan")),
                        start=enc.offsets[i][0],
                        end=enc.offsets[i][1],
                    )
                    for i in range(len(enc.ids))
                ]
            )
        return out

    def score(
        self,
        texts: Sequence[str],
        spans: Sequence[Span | None] | None = None,
        progress: Progress | None = None,
    ) -> list[tuple[float, int]]:
        """(summed log-prob, number of scored tokens) per text, over ``spans`` where given."""
        spans = spans if spans is not None else [None] * len(texts)
        with self.clock.stage("tokenize"):
            encs = encode_batch(self.tokenizer, texts)
            units = [self._unit(e, s) for e, s in zip(encs, spans, strict=True)]
        values = self._run([u[0] for u in units], [u[1] for u in units], progress, self.tree_mask)
        return [(float(v.astype(np.float64).sum()), len(v)) for v in values]

    def continuation_logprob(self, prefixes: Sequence[str], conts: Sequence[str]) -> list[float]:
        texts = [p + c for p, c in zip(prefixes, conts, strict=True)]
        return self.span_logprob(texts, [(len(p), len(t)) for p, t in zip(prefixes, texts, strict=True)])

    @torch.no_grad()
    def shared_prefix(
        self, ctx: list[list[int]], sufs: list[list[list[int]]], score_context: bool = False
    ) -> tuple[list[float], list[int], list[list[float]]]:
        """For each row: the context ids run once with a KV cache, then each suffix scored after it.

        Returns (context log-prob sums, context tokens scored, per-suffix log-prob sums). The context's
        own tokens are scored (position 0 never) only with ``score_context``. Every suffix needs >= 1 id.
        """
        if self.sliding_layers and len({len(c) for c in ctx}) > 1:
            # right padding shifts the cache indices that sliding-window masks count: one row at a time
            parts = [self.shared_prefix([c], [s], score_context) for c, s in zip(ctx, sufs, strict=True)]
            return [p[0][0] for p in parts], [p[1][0] for p in parts], [p[2][0] for p in parts]
        dev, model = self.device, self.model
        ids, mask = pad_right(ctx, self.pad_id)
        ids, mask = ids.to(dev), mask.to(dev)
        last = torch.tensor([len(c) - 1 for c in ctx], device=dev)
        base = self.split.base if self.split.ok else model
        from transformers import DynamicCache

        # a full-length cache, also for sliding-window layers (whose own cache would drop the states the
        # suffixes after a long context still need to be masked correctly); the mask applies the window
        out = base(input_ids=ids, attention_mask=mask, **with_cache(base, DynamicCache()), use_cache=True)
        states = out.last_hidden_state if self.split.ok else out.logits
        head = self.split.head if self.split.ok else (lambda h: h)
        csum, cn = [0.0] * len(ctx), [0] * len(ctx)
        if score_context:
            cr = [b for b, c in enumerate(ctx) for _ in range(1, len(c))]
            cc = [t - 1 for c in ctx for t in range(1, len(c))]
            if cr:
                tgt = torch.tensor([ctx[b][t + 1] for b, t in zip(cr, cc, strict=True)], device=dev)
                lp = gather_logprobs(head(states[cr, cc]), tgt).double().cpu().numpy()
                sums = np.zeros(len(ctx))
                np.add.at(sums, cr, lp)
                csum, cn = sums.tolist(), [len(c) - 1 for c in ctx]
        rows = [(b, k) for b, s in enumerate(sufs) for k in range(len(s))]
        which = torch.tensor([b for b, _ in rows], device=dev)
        first = torch.tensor([sufs[b][k][0] for b, k in rows], device=dev)
        totals = gather_logprobs(head(states[torch.arange(len(ctx), device=dev), last][which]), first)
        totals = totals.double().cpu().numpy().copy()
        rest = [sufs[b][k][:-1] for b, k in rows]  # inputs that predict suffix tokens 1..
        if max(map(len, rest)) > 0:
            cache = cache_of(out)
            cache.reorder_cache(which)
            rin, rmask = pad_right([r or [self.pad_id] for r in rest], self.pad_id)
            rmask[[r for r, seq in enumerate(rest) if not seq], 0] = 0
            rin, rmask = rin.to(dev), rmask.to(dev)
            pos = last[which].unsqueeze(1) + 1 + torch.arange(rin.shape[1], device=dev).unsqueeze(0)
            o2 = base(
                input_ids=rin,
                attention_mask=torch.cat([mask[which], rmask], dim=1),
                position_ids=pos,
                **with_cache(base, cache),
                use_cache=True,
            )
            sr = [r for r, seq in enumerate(rest) for _ in seq]
            sc = [j for seq in rest for j in range(len(seq))]
            tgt = torch.tensor(
                [sufs[rows[r][0]][rows[r][1]][j + 1] for r, j in zip(sr, sc, strict=True)], device=dev
            )
            states2 = o2.last_hidden_state if self.split.ok else o2.logits
            np.add.at(totals, sr, gather_logprobs(head(states2[sr, sc]), tgt).double().cpu().numpy())
        res: list[list[float]] = [[] for _ in sufs]
        for (b, _), v in zip(rows, totals, strict=True):
            res[b].append(float(v))
        return csum, cn, res

    # -- internals ------------------------------------------------------------------------------
    def _unit(self, enc: Encoded, span: Span | None) -> tuple[list[int], list[int], int]:
        """(input ids, positions scored, index of the first text token in the ids). A text longer than
        the model's window is cut from the left to fit it (counted in ``n_cut``): only its last tokens
        are scored, each with the context the window leaves."""
        if self.prefix_id is not None:
            ids, first = [self.prefix_id, *enc.ids], 1
        else:
            ids, first = list(enc.ids), 0
        cut = max(0, len(ids) - self.max_len)
        if cut:
            ids, first = ids[cut:], first - cut
            self.n_cut += 1
        targets = [first + i for i in overlapping(enc.offsets, span) if first + i >= 1]
        return ids, targets, first

    @torch.no_grad()
    def _run(
        self,
        seqs: list[list[int]],
        targets: list[list[int]],
        progress: Progress | None,
        tree_mask: str | None,
    ) -> list[np.ndarray]:
        """Log-probs at ``targets`` of each id list; through prefix trees when ``tree_mask`` names the
        mask kind ("bool" or "float"), plainly for the rest (and for sequences past a sliding window)."""
        out: list[np.ndarray] = [np.zeros(0, dtype=np.float32)] * len(seqs)
        todo = [i for i, t in enumerate(targets) if t]
        if tree_mask:
            fits = [i for i in todo if self.window is None or max(targets[i]) <= self.window]
            self._run_tree(seqs, targets, fits, out, progress, tree_mask)
            todo = sorted(set(todo) - set(fits))
        # the last position is never needed as an input for prediction beyond the last target
        lengths = [max(targets[i]) for i in todo]
        for batch in budget_batches(lengths, self.batch_tokens):
            idx = [todo[b] for b in batch]
            ids, mask = pad_right([seqs[i][: max(targets[i])] for i in idx], self.pad_id)
            ids, mask = ids.to(self.device), mask.to(self.device)
            rows = torch.tensor([r for r, i in enumerate(idx) for _ in targets[i]], device=self.device)
            cols = torch.tensor([t - 1 for i in idx for t in targets[i]], device=self.device)
            tgt = torch.tensor([seqs[i][t] for i in idx for t in targets[i]], device=self.device)
            lp = self._logprobs(ids, mask, rows, cols, tgt).cpu().numpy()
            split_flat(lp, idx, [len(targets[i]) for i in idx], out)
            if progress:
                progress(len(idx))
        skipped = sum(1 for t in targets if not t)
        if progress and skipped:
            progress(skipped)
        return out

    def _run_tree(
        self,
        seqs: list[list[int]],
        targets: list[list[int]],
        todo: list[int],
        out: list[np.ndarray],
        progress: Progress | None,
        tree_mask: str,
    ) -> None:
        """Score ``todo`` through prefix-tree rows: each shared prefix once, the head once per node."""
        if not todo:
            return
        rows = pack_rows([seqs[i][: max(targets[i])] for i in todo], self.row_tokens)
        float_mask = None if tree_mask == "bool" else self.model.dtype
        for batch in budget_batches([len(r) for r in rows], self.batch_tokens):
            brows = [rows[b] for b in batch]
            ids, pos, mask = tree_inputs(brows, self.pad_id, float_mask)
            width = ids.shape[1]
            owners: list[int] = []
            nodes: list[int] = []  # row * width + node that predicts each target
            tgt: list[int] = []
            for r, row in enumerate(brows):
                for k, path in row.paths.items():
                    i = todo[k]
                    owners.append(i)
                    nodes += [r * width + path[t - 1] for t in targets[i]]
                    tgt += [seqs[i][t] for t in targets[i]]
            lp = self._tree_logprobs(ids, pos, mask, np.asarray(nodes), np.asarray(tgt))
            split_flat(lp, owners, [len(targets[i]) for i in owners], out)
            if progress:
                progress(len(owners))

    def _tree_logprobs(
        self, ids: torch.Tensor, pos: torch.Tensor, mask: torch.Tensor, nodes: np.ndarray, tgt: np.ndarray
    ) -> np.ndarray:
        """Log-probs of ``tgt`` after flat node ``nodes``; the head runs once per distinct node."""
        dev = self.device
        uniq, node_of = np.unique(nodes, return_inverse=True)
        vocab = int(tgt.max()) + 1
        edges, edge_of = np.unique(node_of.astype(np.int64) * vocab + tgt, return_inverse=True)
        e_node, e_tok = edges // vocab, edges % vocab
        width = ids.shape[1]
        where = (torch.as_tensor(uniq // width, device=dev), torch.as_tensor(uniq % width, device=dev))
        kwargs = {"input_ids": ids.to(dev), "attention_mask": mask.to(dev), "position_ids": pos.to(dev)}
        if self.split.ok:
            states = self.split.base(**kwargs, use_cache=False).last_hidden_state[where]
            head = self.split.head
        else:
            states, head = self.model(**kwargs, use_cache=False).logits[where], (lambda h: h)
        lp = np.empty(len(edges), dtype=np.float32)
        for s in range(0, len(uniq), 1024):
            logits = head(states[s : s + 1024]).float()
            lse = torch.logsumexp(logits, dim=-1)
            a, b = np.searchsorted(e_node, [s, s + 1024])
            rows = torch.as_tensor(e_node[a:b] - s, device=dev)
            cols = torch.as_tensor(e_tok[a:b], device=dev)
            lp[a:b] = (logits[rows, cols] - lse[rows]).cpu().numpy()
        return lp[edge_of]

    @property
    def model_name(self) -> str:
        return type(self.model).__name__

    def _tree_mask_kind(self) -> str | None:
        """ "bool" (SDPA) or "float" (eager) when tree-packed scoring matches plain scoring on a probe."""
        impl = getattr(self.model.config, "_attn_implementation", None)
        kind = {"sdpa": "bool", "eager": "float"}.get(impl or "")
        if kind is None:
            return None
        vocab = self.model.config.vocab_size
        probe = [[3, 5, 6, 7, 8], [3, 5, 9, 10], [3, 11], [3, 5, 6, 12, 13, 14]]
        probe = [[t % vocab for t in s] for s in probe]
        targets = [list(range(1, len(s))) for s in probe]
        plain = self._run(probe, targets, None, None)
        try:
            tree = self._run(probe, targets, None, kind)
        except Exception as err:  # any failure means: score plainly
            log.info("%s: tree-packed scoring failed on a probe (%s); scoring plainly", self.model_name, err)
            return None
        tol = 1e-3 if self.model.dtype == torch.float32 else 1e-1
        if max(float(np.abs(a - b).max()) for a, b in zip(plain, tree, strict=True)) > tol:
            log.info("%s: tree-packed scores differ from plain ones; scoring plainly", self.model_name)
            return None
        return kind

    def _logprobs(
        self, ids: torch.Tensor, mask: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor, tgt: torch.Tensor
    ) -> torch.Tensor:
        if self.split.ok:
            hidden = self.split.base(input_ids=ids, attention_mask=mask, use_cache=False).last_hidden_state
            h = hidden[rows, cols]
            return torch.cat(
                [
                    gather_logprobs(self.split.head(h[s : s + 1024]), tgt[s : s + 1024])
                    for s in range(0, h.shape[0], 1024)
                ]
            )
        logits = self.model(input_ids=ids, attention_mask=mask, use_cache=False).logits
        return gather_logprobs(logits[rows, cols], tgt)
