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
    seqs = [[1, 2, 3, 4], [1, 5, 6, 7], [8, 9, 10], [11, 12], [1, 2, 3, 4]]  # little shared
    rows = pack_rows(seqs, row_tokens=5)
    assert all(len(r) <= 5 for r in rows) and len(rows) == 3
    assert sorted(i for r in rows for i in r.paths) == list(range(len(seqs)))
    shuffled = [seqs[i] for i in (3, 0, 4, 2, 1)]
    again = pack_rows(shuffled, row_tokens=5)
    assert [r.tokens for r in again] == [r.tokens for r in rows]
    # a sequence longer than the budget gets a row of its own
    short_row, long_row = pack_rows([[9] * 7, [1]], row_tokens=3)
    assert short_row.tokens == [1] and long_row.tokens == [9] * 7


def test_long_sequences_that_share_most_tokens_share_a_row():
    context = list(range(100, 400))
    a, b, c = [*context, 1, 2], [*context, 3, 4], [*range(500, 800)]
    rows = pack_rows([a, b, c], row_tokens=128)
    assert [len(r) for r in rows] == [304, 300]  # a and b share the 300-token context; c is alone
    assert sorted(rows[0].paths) == [0, 1]
    # a sequence sharing less than half its tokens is not pulled into a long row
    d = [*context[:100], *range(900, 1100)]
    assert len(pack_rows([a, d], row_tokens=128)) == 2
    # short sequences keep to row_tokens however much they share
    short = [[7, 7, 7, 7, 7, 7, k] for k in range(20)]
    assert all(len(r) <= 16 for r in pack_rows(short, row_tokens=16))


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
