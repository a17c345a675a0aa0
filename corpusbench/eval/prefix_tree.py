"""Prefix-tree packing: score many token sequences with every shared prefix run through the model once.

Minimal pairs and template-built test sets repeat their beginnings ("The author that the guards
like ..."). The sequences of one scorer call are sorted and merged into tries, a row of at most
``row_tokens`` trie nodes each. A row is run with a *tree attention mask*: a node attends to
itself and its ancestors only, and its position id is its depth. Its hidden state is then the
one the same prefix gets when run alone, so every token's log-prob equals a plain forward's (to
float rounding) while a prefix shared by k sequences costs one pass instead of k.

This module only builds the rows and the model inputs; the scorer runs them (see
:class:`corpusbench.eval.causal.CausalScorer`). Rows never cross: a sequence lives in one row,
and a prefix shared across two rows is repeated in each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True, slots=True)
class TreeRow:
    """One packed row: trie nodes in creation order (a parent always precedes its children)."""

    tokens: list[int]
    parents: list[int]  # node index of the parent, -1 for a root
    depths: list[int]  # position id: the node's index within its sequence
    paths: dict[int, list[int]]  # sequence index -> its node at every input position

    def __len__(self) -> int:
        return len(self.tokens)


class _RowBuilder:
    def __init__(self) -> None:
        self.tokens: list[int] = []
        self.parents: list[int] = []
        self.depths: list[int] = []
        self.children: dict[tuple[int, int], int] = {}
        self.paths: dict[int, list[int]] = {}

    def new_nodes(self, seq: Sequence[int]) -> int:
        """How many nodes ``seq`` would add to this row."""
        node = -1
        for j, tok in enumerate(seq):
            nxt = self.children.get((node, tok))
            if nxt is None:
                return len(seq) - j
            node = nxt
        return 0

    def add(self, index: int, seq: Sequence[int]) -> None:
        node, path = -1, []
        for depth, tok in enumerate(seq):
            nxt = self.children.get((node, tok))
            if nxt is None:
                nxt = len(self.tokens)
                self.children[(node, tok)] = nxt
                self.tokens.append(tok)
                self.parents.append(node)
                self.depths.append(depth)
            node = nxt
            path.append(node)
        self.paths[index] = path

    def row(self) -> TreeRow:
        return TreeRow(self.tokens, self.parents, self.depths, self.paths)


LONG_ROW_FACTOR = 8  # a row may grow to this many times row_tokens for sequences that share most of it


def pack_rows(seqs: Sequence[Sequence[int]], row_tokens: int) -> list[TreeRow]:
    """Tries over ``seqs`` (each non-empty), filled in sorted order up to ``row_tokens`` nodes a row.

    Sequences longer than ``row_tokens`` (a pair with a long shared context) still share a row
    when each adds at most half of its tokens as new nodes, up to ``LONG_ROW_FACTOR * row_tokens``
    nodes; otherwise such a sequence gets a row of its own. Deterministic: the same sequences
    give the same rows whatever their order.
    """
    order = sorted(range(len(seqs)), key=lambda i: (list(seqs[i]), i))
    rows: list[TreeRow] = []
    cur = _RowBuilder()
    for i in order:
        if not seqs[i]:
            raise ValueError(f"sequence {i} is empty: every packed sequence needs at least one token")
        new, size = cur.new_nodes(seqs[i]), len(cur.tokens)
        long = len(seqs[i]) > row_tokens
        mostly_shared = long and 2 * new <= len(seqs[i]) and size + new <= LONG_ROW_FACTOR * row_tokens
        if size and size + new > row_tokens and not mostly_shared:
            rows.append(cur.row())
            cur = _RowBuilder()
        cur.add(i, seqs[i])
    if cur.tokens:
        rows.append(cur.row())
    return rows


def ancestor_mask(parents: Sequence[int], width: int) -> np.ndarray:
    """``[width, width]`` booleans: node q may attend to node k iff k is q or one of its ancestors.

    Padding positions (beyond the row) attend to themselves only, so no softmax row is empty.
    """
    mask = np.zeros((width, width), dtype=bool)
    for q, parent in enumerate(parents):
        if parent >= 0:
            mask[q] = mask[parent]
        mask[q, q] = True
    idx = np.arange(len(parents), width)
    mask[idx, idx] = True
    return mask


def tree_inputs(
    rows: Sequence[TreeRow], pad_id: int, float_mask: torch.dtype | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``input_ids``, ``position_ids`` ``[B, W]`` and the 4D mask ``[B, 1, W, W]`` of a batch of rows.

    The mask is boolean (True = attend, for SDPA) unless ``float_mask`` names a dtype, then it is
    additive (0 or the dtype's minimum, for eager attention).
    """
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    pos = torch.zeros((len(rows), width), dtype=torch.long)
    mask = np.zeros((len(rows), 1, width, width), dtype=bool)
    for b, row in enumerate(rows):
        ids[b, : len(row)] = torch.as_tensor(row.tokens, dtype=torch.long)
        pos[b, : len(row)] = torch.as_tensor(row.depths, dtype=torch.long)
        mask[b, 0] = ancestor_mask(row.parents, width)
    attend = torch.from_numpy(mask)
    if float_mask is None:
        return ids, pos, attend
    additive = torch.zeros(attend.shape, dtype=float_mask).masked_fill(~attend, torch.finfo(float_mask).min)
    return ids, pos, additive
