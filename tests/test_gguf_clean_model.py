"""``assets.gguf.clean_model`` saves the bytes an initialised model given the same weights saves."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, LlamaConfig

from corpusbench.assets.gguf import clean_model


def tiny(tied: bool) -> LlamaConfig:
    return LlamaConfig(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        tie_word_embeddings=tied,
    )


@pytest.mark.parametrize("tied", [True, False])
def test_clean_model_saves_what_an_initialised_copy_saves(tmp_path: Path, tied: bool) -> None:
    torch.manual_seed(0)
    source = AutoModelForCausalLM.from_config(tiny(tied), dtype=torch.float32)  # stands in for the GGUF model
    state = source.state_dict()

    before = AutoModelForCausalLM.from_config(source.config, dtype=torch.bfloat16)  # the old way
    before.load_state_dict(state)
    before.save_pretrained(tmp_path / "before")

    after = clean_model(source.config, state)
    assert not any(p.is_meta for p in after.parameters())
    emb, head = after.get_input_embeddings().weight, after.get_output_embeddings().weight
    assert (emb.data_ptr() == head.data_ptr()) == tied
    assert emb.dtype == torch.bfloat16
    after.save_pretrained(tmp_path / "after")

    names = sorted(p.name for p in (tmp_path / "before").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "after").iterdir())
    for name in names:
        assert (tmp_path / "before" / name).read_bytes() == (tmp_path / "after" / name).read_bytes(), name
