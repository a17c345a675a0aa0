"""Masked-LM pseudo-log-likelihood (PLL) scorer.

- ``pll="original"`` (Salazar et al. 2020): each non-special token is masked in turn and scored.
- ``pll="within_word_l2r"`` (Kauf & Ivanova 2023): the target token *and the later tokens of the
  same word* are masked, so multi-token words are not overestimated. Both agree on one-token words.

All masked copies of all sentences are flattened, length-sorted and packed into token-budget
batches; the MLM head runs only at the masked target position of each copy. Identical copies
(same ids, same target) are computed once. Special tokens (CLS/SEP/PAD) are never targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from corpusbench.errors import ConfigError
from corpusbench.eval.batching import Progress, SummedScores, budget_batches, pad_right
from corpusbench.eval.causal import overlapping
from corpusbench.eval.models import HeadSplit, masked_head, max_positions
from corpusbench.eval.records import Span, TokenScore
from corpusbench.eval.timing import StageClock, count_tokens

Pll = Literal["original", "within_word_l2r"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MlmEncoded:
    ids: list[int]
    offsets: list[tuple[int, int]]
    word_ids: list[int | None]  # None for special tokens
    special: list[bool]


@dataclass(frozen=True, slots=True)
class Copy:
    """One masked input (mask ids already in place); score ``target_id`` at position ``target``."""

    ids: tuple[int, ...]
    target: int
    target_id: int


def make_copy(ids: Sequence[int], masked: Sequence[int], target: int, mask_id: int) -> Copy:
    m = set(masked)
    return Copy(tuple(mask_id if k in m else t for k, t in enumerate(ids)), target, ids[target])


def plan_copies(enc: MlmEncoded, targets: Sequence[int], pll: Pll, mask_id: int) -> list[Copy]:
    """The masked copies that score ``targets`` (token indices) under the PLL variant."""
    copies = []
    for j in targets:
        masked = [j]
        if pll == "within_word_l2r" and enc.word_ids[j] is not None:
            masked += [k for k in range(j + 1, len(enc.ids)) if enc.word_ids[k] == enc.word_ids[j]]
        copies.append(make_copy(enc.ids, masked, j, mask_id))
    return copies


class MaskedPllScorer(SummedScores):
    """PLL from any ``*ForMaskedLM`` with a fast tokenizer."""

    name = "mlm-pll.v1"

    def __init__(
        self, model: Any, tokenizer: Any, *, pll: Pll = "within_word_l2r", batch_tokens: int = 2048
    ) -> None:
        if pll not in ("original", "within_word_l2r"):
            raise ConfigError(f"unknown PLL metric {pll!r}: use original or within_word_l2r")
        if tokenizer.mask_token_id is None:
            raise ConfigError(f"{type(tokenizer).__name__} has no mask token; is this a masked LM?")
        if not getattr(tokenizer, "is_fast", True):
            raise ConfigError("masked PLL needs a fast tokenizer (offsets and word ids)")
        self.model, self.tokenizer, self.pll, self.batch_tokens = model, tokenizer, pll, batch_tokens
        self.device = next(model.parameters()).device
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.split = HeadSplit(model, masked_head(model))
        self.max_len = max_positions(model, tokenizer)
        self.n_cut = 0  # texts longer than the window, cut from the left (their first tokens unscored)
        self.clock = StageClock()
        count_tokens(model.base_model, self.clock)

    def conventions(self) -> dict[str, Any]:
        return {
            "scorer": self.name,
            "pll": self.pll,
            "special_tokens_scored": False,
            "reduction": "sum",
            "log_base": "e",
            "logprob": "logit - logsumexp (fp32)",
            "head_split": self.split.ok,
            "batch_tokens": self.batch_tokens,
            "longer_than_window": f"cut from the left to the model's {self.max_len} tokens (flagged)",
        }

    def encode(self, text: str) -> MlmEncoded:
        """Ids, offsets, word ids and special-token flags of ``text``; cut to the window (:meth:`fit`)."""
        enc = self.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)
        special = [bool(x) for x in enc["special_tokens_mask"]]
        return self.fit(
            MlmEncoded(
                ids=list(enc["input_ids"]),
                offsets=[tuple(o) for o in enc["offset_mapping"]],
                word_ids=[None if sp else w for w, sp in zip(enc.word_ids(), special, strict=True)],
                special=special,
            )
        )

    def fit(self, enc: MlmEncoded) -> MlmEncoded:
        """``enc`` cut from the left to the model's window (``max_len``) when longer: the leading special
        tokens stay, the first text tokens after them go (not scored), and the cut is counted in ``n_cut``.
        Before, such a text failed in the position embeddings or was scored past the trained positions."""
        extra = len(enc.ids) - self.max_len
        if extra <= 0:
            return enc
        lead = next((i for i, sp in enumerate(enc.special) if not sp), len(enc.ids))
        if len(enc.ids) - lead - sum(enc.special[lead:]) <= extra:  # nothing of the text would be left
            raise ConfigError(f"the model's window ({self.max_len} tokens) holds no text token")
        self.n_cut += 1
        keep = list(range(lead)) + list(range(lead + extra, len(enc.ids)))
        return MlmEncoded(
            ids=[enc.ids[i] for i in keep],
            offsets=[enc.offsets[i] for i in keep],
            word_ids=[enc.word_ids[i] for i in keep],
            special=[enc.special[i] for i in keep],
        )

    def _targets(self, enc: MlmEncoded, span: Span | None) -> list[int]:
        return (
            [i for i in overlapping(enc.offsets, span) if not enc.special[i]]
            if span
            else [i for i, sp in enumerate(enc.special) if not sp]
        )

    # -- public verbs ---------------------------------------------------------------------------
    def score(
        self,
        texts: Sequence[str],
        spans: Sequence[Span | None] | None = None,
        progress: Progress | None = None,
    ) -> list[tuple[float, int]]:
        spans = spans if spans is not None else [None] * len(texts)
        encs = [self.encode(t) for t in texts]
        plans = [
            plan_copies(e, self._targets(e, s), self.pll, self.tokenizer.mask_token_id)
            for e, s in zip(encs, spans, strict=True)
        ]
        values = self.score_copies(plans, progress)
        return [(float(v.astype(np.float64).sum()), len(v)) for v in values]

    def token_logprobs(self, texts: Sequence[str]) -> list[list[TokenScore]]:
        out = []
        encs = [self.encode(t) for t in texts]
        plans = [plan_copies(e, self._targets(e, None), self.pll, self.tokenizer.mask_token_id) for e in encs]
        for enc, plan, vals in zip(encs, plans, self.score_copies(plans), strict=True):
            toks = self.tokenizer.convert_ids_to_tokens(enc.ids)
            out.append(
                [
                    TokenScore(
                        token=toks[c.target],
                        logprob=float(v),
                        start=enc.offsets[c.target][0],
                        end=enc.offsets[c.target][1],
                    )
                    for c, v in zip(plan, vals, strict=True)
                ]
            )
        return out

    # -- the flattened copy engine (also used by determiner choice) -------------------------------------
    @torch.no_grad()
    def score_copies(
        self, plans: Sequence[Sequence[Copy]], progress: Progress | None = None
    ) -> list[np.ndarray]:
        """Log-prob of each copy's target token; one array per plan, in plan order.

        Copies with the same masked input and target position share one forward row (a determiner site.s
        one-token candidates differ only in the id read off).
        """
        keys: dict[tuple[tuple[int, ...], int], int] = {}
        for plan in plans:
            for c in plan:
                keys.setdefault((c.ids, c.target), len(keys))
        flat = list(keys)
        wanted: list[dict[int, float]] = [{} for _ in flat]
        for plan in plans:
            for c in plan:
                wanted[keys[(c.ids, c.target)]][c.target_id] = 0.0
        for batch in budget_batches([len(ids) for ids, _ in flat], self.batch_tokens):
            ids_t, mask_t = pad_right([flat[b][0] for b in batch], self.pad_id)
            pairs = [(r, tid) for r, b in enumerate(batch) for tid in wanted[b]]
            rows = torch.arange(len(batch), device=self.device)
            cols = torch.tensor([flat[b][1] for b in batch], device=self.device)
            lp = self._logprobs(
                ids_t.to(self.device),
                mask_t.to(self.device),
                rows,
                cols,
                torch.tensor([r for r, _ in pairs]),
                torch.tensor([t for _, t in pairs]),
            )
            for (r, tid), v in zip(pairs, lp.cpu().tolist(), strict=True):
                wanted[batch[r]][tid] = v
            if progress:
                progress(len(batch))
        return [
            np.array([wanted[keys[(c.ids, c.target)]][c.target_id] for c in plan], dtype=np.float32)
            for plan in plans
        ]

    def _logprobs(
        self,
        ids: torch.Tensor,
        mask: torch.Tensor,
        rows: torch.Tensor,
        cols: torch.Tensor,
        pair_rows: torch.Tensor,
        pair_ids: torch.Tensor,
    ) -> torch.Tensor:
        """Head at (rows, cols) only; log-prob of ``pair_ids`` at row ``pair_rows`` of that selection."""
        if self.split.ok:
            hidden = self.split.base(input_ids=ids, attention_mask=mask).last_hidden_state
            logits = self.split.head(hidden[rows, cols]).float()
        else:
            logits = self.model(input_ids=ids, attention_mask=mask).logits[rows, cols].float()
        pair_rows, pair_ids = pair_rows.to(logits.device), pair_ids.to(logits.device)
        return logits[pair_rows, pair_ids] - torch.logsumexp(logits, dim=-1)[pair_rows]
