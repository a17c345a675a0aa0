"""The tiny models' saved tokenizers carry the special tokens the cross-check rebuilds them with."""

from __future__ import annotations

import pytest

from benchmarks.crosscheck_minicons import saved_special_tokens
from corpusbench.eval.tiny import SPECIAL_TOKENS


@pytest.mark.parametrize("kind", ["bert", "roberta", "gpt2", "t5"])
def test_saved_special_tokens_round_trip(tiny_dir, tiny, kind):
    assert saved_special_tokens(tiny_dir[kind]) == SPECIAL_TOKENS[kind]
    tok = tiny[kind].tokenizer
    assert all(getattr(tok, k) == v for k, v in SPECIAL_TOKENS[kind].items())
