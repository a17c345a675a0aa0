"""Prefix-tree packing: rows, tries and the tree attention mask (no model needed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from corpusbench.eval.prefix_tree import ancestor_mask, pack_rows, tree_inputs

SEQS = [[1, 2, 3, 4], [1, 2, 3, 5], [1, 2, 6], [7, 8], [1, 2, 3, 4]]


def rebuild(row, path):
    return [row.tokens[n] for n in path]


def test_one_row_shares_prefixes_and_keeps_every_sequence():
    (row,) = pack_rows(SEQS, row_tokens=100)
    # nodes: 1 2 3 4 | 5 | 6 | 7 8  -> shared "1 2 3" once, the duplicate adds nothing
    assert len(row) == 8
    assert sorted(row.paths) == list(range(len(SEQS)))
    for i, seq in enumerate(SEQS):
        path = row.paths[i]
        assert rebuild(row, path) == seq
        assert [row.depths[n] for n in path] == list(range(len(seq)))
        assert [row.parents[n] for n in path] == [-1, *path[:-1]]
    assert row.paths[0] == row.paths[4]


def test_rows_respect_the_budget_and_are_order_independent():
    rows = pack_rows(SEQS, row_tokens=5)
    assert all(len(r) <= 5 for r in rows)
    assert sorted(i for r in rows for i in r.paths) == list(range(len(SEQS)))
    shuffled = [SEQS[i] for i in (3, 0, 4, 2, 1)]
    again = pack_rows(shuffled, row_tokens=5)
    assert [r.tokens for r in again] == [r.tokens for r in rows]
    # a sequence longer than the budget gets a row of its own
    short_row, long_row = pack_rows([[9] * 7, [1]], row_tokens=3)
    assert short_row.tokens == [1] and long_row.tokens == [9] * 7


def test_empty_sequence_is_refused():
    with pytest.raises(ValueError, match="empty"):
        pack_rows([[1], []], row_tokens=4)


def test_ancestor_mask_is_the_causal_mask_of_each_path():
    (row,) = pack_rows(SEQS, row_tokens=100)
    mask = ancestor_mask(row.parents, width=10)
    for path in row.paths.values():
        for q, node in enumerate(path):
            assert set(np.flatnonzero(mask[node])) == set(path[: q + 1])
    assert mask[8, 8] and mask[9, 9] and mask[8:].sum() == 2  # padding sees itself only


def test_tree_inputs_pad_and_encode_masks():
    rows = pack_rows(SEQS, row_tokens=5)
    ids, pos, mask = tree_inputs(rows, pad_id=0)
    width = max(len(r) for r in rows)
    assert ids.shape == pos.shape == (len(rows), width)
    assert mask.shape == (len(rows), 1, width, width) and mask.dtype == torch.bool
    for b, row in enumerate(rows):
        assert ids[b, : len(row)].tolist() == row.tokens
        assert pos[b, : len(row)].tolist() == row.depths
    _, _, additive = tree_inputs(rows, pad_id=0, float_mask=torch.float32)
    assert additive.dtype == torch.float32
    assert torch.equal(additive == 0, mask)
    assert float(additive.min()) == torch.finfo(torch.float32).min
