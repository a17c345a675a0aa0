"""Length-sorted, token-budget batches and small tensor helpers shared by the scorers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

Progress = Callable[[int], None]  # called with the number of items just finished


def budget_batches(lengths: Sequence[int], batch_tokens: int, max_rows: int | None = None) -> list[list[int]]:
    """Group item indices into batches of similar length whose padded size fits the budget.

    Items are sorted by length, longest first (so an out-of-memory shows up at once), ties
    broken by index for determinism. A batch holds ``rows * max_len <= batch_tokens`` tokens
    (always at least one row).
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    cur: list[int] = []
    cur_max = 0
    for i in order:
        n = max(1, lengths[i])
        new_max = max(cur_max, n)
        too_many = max_rows is not None and len(cur) >= max_rows
        if cur and (new_max * (len(cur) + 1) > batch_tokens or too_many):
            batches.append(cur)
            cur, new_max = [], n
        cur.append(i)
        cur_max = new_max
    if cur:
        batches.append(cur)
    return batches


def pad_right(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded ``input_ids`` and ``attention_mask`` (long tensors) for a list of id lists."""
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for r, s in enumerate(seqs):
        ids[r, : len(s)] = torch.as_tensor(list(s), dtype=torch.long)
        mask[r, : len(s)] = 1
    return ids, mask


def split_flat(flat: Any, owners: Sequence[int], sizes: Sequence[int], out: list[Any]) -> None:
    """Cut ``flat`` into consecutive pieces of ``sizes`` and store piece k at ``out[owners[k]]``."""
    at = 0
    for owner, size in zip(owners, sizes, strict=True):
        out[owner] = flat[at : at + size]
        at += size


def gather_logprobs(logits: torch.Tensor, targets: torch.Tensor, chunk: int = 1024) -> torch.Tensor:
    """``logit[target] - logsumexp(logits)`` in fp32, row by row (``logits``: [N, V], ``targets``: [N]).

    ``logit - logsumexp`` stays within ~1e-6 of fp64 where ``log_softmax`` in fp32 drifts ~1e-4.
    """
    out = torch.empty(logits.shape[0], dtype=torch.float32, device=logits.device)
    for s in range(0, logits.shape[0], chunk):
        block = logits[s : s + chunk].float()
        tgt = targets[s : s + chunk].unsqueeze(1)
        out[s : s + chunk] = block.gather(1, tgt).squeeze(1) - torch.logsumexp(block, dim=-1)
    return out


class SummedScores:
    """``sequence_logprob``/``span_logprob`` for any scorer with ``score(texts, spans, progress)``.

    ``score`` returns (summed log-prob, number of scored tokens) per text; reductions are named
    options (``"sum"`` or ``"mean"`` per scored token), never lambdas.
    """

    def score(
        self, texts: Sequence[str], spans: Sequence[Any] | None = None, progress: Progress | None = None
    ) -> list[tuple[float, int]]:
        raise NotImplementedError

    def sequence_logprob(
        self, texts: Sequence[str], reduce: str = "sum", progress: Progress | None = None
    ) -> list[float]:
        if reduce not in ("sum", "mean"):
            raise ValueError(f"unknown reduction {reduce!r}; use 'sum' or 'mean'")
        res = self.score(texts, None, progress)
        return [s if reduce == "sum" else (s / n if n else float("nan")) for s, n in res]

    def span_logprob(
        self, texts: Sequence[str], spans: Sequence[Any], progress: Progress | None = None
    ) -> list[float]:
        return [s for s, _ in self.score(texts, spans, progress)]
