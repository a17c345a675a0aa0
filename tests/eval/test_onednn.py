"""float32 linear layers of a causal model on CPU run by oneDNN: the same scores within float noise (#39)."""

from __future__ import annotations

import pytest
import torch

from corpusbench.eval.causal import CausalScorer
from corpusbench.eval.models import ONEDNN_ENV, OneDnnLinear, load_model

pytestmark = pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="torch built without oneDNN")

TEXTS = ["The cat sat on the mat.", "The cats sat on the mat.", "A dog barks at night", "the the the"]


@pytest.fixture(scope="module")
def tiny_llama(tiny_dir, tmp_path_factory):
    """A random 2-layer Llama with the tiny GPT-2's tokenizer (grouped-query attention, no biases)."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tok = AutoTokenizer.from_pretrained(tiny_dir["gpt2"])
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("llama")
    LlamaForCausalLM(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.mark.parametrize("kind", ["llama", "gpt2"])
def test_onednn_scores_equal_torch_scores(tiny_dir, tiny_llama, kind, monkeypatch):
    monkeypatch.setenv(ONEDNN_ENV, "1")  # on this CPU whatever its vector width
    folder = tiny_llama if kind == "llama" else tiny_dir["gpt2"]
    plain, fast = load_model(str(folder), onednn=False), load_model(str(folder))
    assert plain.cpu_linear == "torch" and fast.cpu_linear == "onednn"
    assert fast.provenance()["cpu_linear"] == "onednn"
    assert any(isinstance(m, OneDnnLinear) for m in fast.model.modules())
    a = CausalScorer(plain.model, plain.tokenizer)
    b = CausalScorer(fast.model, fast.tokenizer)
    assert b.split.ok and b.tree_mask == a.tree_mask  # the head split and the prefix trees still hold
    for x, y in zip(a.score(TEXTS), b.score(TEXTS), strict=True):
        assert x[1] == y[1] and abs(x[0] - y[0]) <= 1e-4
    tokens = b.token_logprobs(TEXTS[:1])[0]
    assert all(t.logprob == t.logprob for t in tokens)


def test_onednn_can_be_turned_off(tiny_llama, monkeypatch):
    monkeypatch.setenv(ONEDNN_ENV, "0")
    lm = load_model(str(tiny_llama))
    assert lm.cpu_linear == "torch" and not any(isinstance(m, OneDnnLinear) for m in lm.model.modules())


def test_onednn_linear_keeps_shapes_and_empty_inputs():
    lin = torch.nn.Linear(8, 5)
    fast = OneDnnLinear(lin)
    x = torch.randn(2, 3, 8)
    assert torch.allclose(fast(x), lin(x), atol=1e-5)
    assert fast(torch.zeros(0, 8)).shape == (0, 5)
    assert fast.weight.shape == lin.weight.shape and fast.weight.dtype == torch.float32


def test_by_default_onednn_follows_the_cpu(tiny_llama, monkeypatch):
    """Unset: oneDNN where torch's CPU kernels use AVX-512 (measured faster there), torch's MKL elsewhere."""
    monkeypatch.delenv(ONEDNN_ENV, raising=False)
    lm = load_model(str(tiny_llama))
    wide = torch.backends.cpu.get_cpu_capability().startswith("AVX512")
    assert lm.cpu_linear == ("onednn" if wide else "torch")
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    assert load_model(str(tiny_llama)).cpu_linear == "torch"
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512")
    assert load_model(str(tiny_llama)).cpu_linear == "onednn"
