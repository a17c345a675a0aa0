"""Tiny *randomly initialised* models with real trained tokenizers, for tests, benchmarks and demos.

No masked-LM or T5 weights exist on the package registries, so the masked and seq2seq code
paths are exercised with models built from a config. ``initializer_range=0.1`` (instead of
0.02) makes a random encoder react to its input. Tokenizers are trained deterministically with
``tokenizers`` on the given text lines. Never use these models for real measurements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

import torch

Kind = Literal["bert", "roberta", "t5", "gpt2"]
N_SENTINELS = 16
SPECIAL_TOKENS: dict[str, dict[str, str]] = {  # saved in each model's tokenizer_config.json
    "bert": dict(
        unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]"
    ),
    "roberta": dict(
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        cls_token="<s>",
        sep_token="</s>",
        mask_token="<mask>",
    ),
    "gpt2": dict(bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>"),
    "t5": dict(eos_token="</s>", unk_token="<unk>", pad_token="<pad>"),
}


def _encoder(pad: int, positions: int, **extra: int) -> Callable[[int, int, float], dict]:
    """BERT-style sizes: 2 heads, FFN 2 × hidden."""
    return lambda h, n, init: dict(
        hidden_size=h,
        num_hidden_layers=n,
        num_attention_heads=2,
        intermediate_size=2 * h,
        max_position_embeddings=positions,
        pad_token_id=pad,
        initializer_range=init,
        **extra,
    )


# kind -> (transformers config class, model class, (hidden, layers, init range) -> config kwargs)
_ARCHS: dict[str, tuple[str, str, Callable[[int, int, float], dict]]] = {
    "bert": ("BertConfig", "BertForMaskedLM", _encoder(pad=0, positions=256)),
    "roberta": (
        "RobertaConfig",
        "RobertaForMaskedLM",
        _encoder(pad=1, positions=258, bos_token_id=0, eos_token_id=2),
    ),
    "gpt2": (
        "GPT2Config",
        "GPT2LMHeadModel",
        lambda h, n, init: dict(
            n_embd=h,
            n_layer=n,
            n_head=2,
            n_positions=512,
            bos_token_id=0,
            eos_token_id=0,
            initializer_range=init,
        ),
    ),
    "t5": (
        "T5Config",
        "T5ForConditionalGeneration",
        lambda h, n, init: dict(
            d_model=h,
            d_ff=2 * h,
            d_kv=h // 2,
            num_layers=n,
            num_heads=2,
            pad_token_id=0,
            eos_token_id=1,
            decoder_start_token_id=0,
            initializer_factor=init * 10,
        ),
    ),
}


def _train_tokenizer(kind: Kind, lines: list[str], vocab_size: int):  # -> tokenizers.Tokenizer
    from tokenizers import (
        AddedToken,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    if kind == "bert":
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(
            vocab_size=vocab_size, special_tokens=specials, show_progress=False
        )
        tok.train_from_iterator(lines, trainer)
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B [SEP]",
            special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
        )
        return tok
    if kind in ("roberta", "gpt2"):
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"] if kind == "roberta" else ["<|endoftext|>"]
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=specials,
            show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tok.train_from_iterator(lines, trainer)
        if kind == "roberta":
            tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
            tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True)
        else:
            tok.post_processor = processors.ByteLevel(trim_offsets=True)
        return tok
    specials = ["<pad>", "</s>", "<unk>"] + [f"<extra_id_{i}>" for i in range(N_SENTINELS)]
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size, special_tokens=specials, unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(lines, trainer)
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    return tok


def build_tiny_model(
    kind: Kind,
    out: str | Path,
    lines: Iterable[str],
    *,
    vocab_size: int = 2000,
    hidden: int = 64,
    layers: int = 2,
    seed: int = 0,
    init_range: float = 0.1,
) -> Path:
    """Train a tokenizer on ``lines``, build a random ``kind`` model and save both to ``out``."""
    import transformers as tf

    lines = [ln for ln in lines if ln.strip()]
    raw = _train_tokenizer(kind, lines, vocab_size)
    tok = tf.PreTrainedTokenizerFast(tokenizer_object=raw, **SPECIAL_TOKENS[kind])
    config_cls, model_cls, size = _ARCHS[kind]
    cfg = getattr(tf, config_cls)(vocab_size=len(tok), **size(hidden, layers, init_range))
    torch.manual_seed(seed)
    model = getattr(tf, model_cls)(cfg)
    out = Path(out)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out
