"""Scorers by model reference: a Hugging Face model (causal, masked or seq2seq), or ``SCHEME:REF``.

A scorer kind outside ``eval`` registers once under a scheme with the target of its opener
(``"module:function"``, imported on first use, as release generators register in
:mod:`corpusbench.publish.plugins`); the opener takes ``REF`` and returns ``(scorer, model provenance)``.
The n-gram baselines are registered as ``ngram`` (``--model ngram:DIR[#slor]``), so ``eval`` imports no
module of ``baselines`` (which builds on ``eval``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from corpusbench.errors import ConfigError
from corpusbench.eval.models import LoadedModel, load_model
from corpusbench.eval.spec import NGRAM_SCHEME, EvalSpec

Opener = Callable[[str], tuple[Any, dict[str, Any]]]
#: scheme -> opener target; ``register_scorer`` adds one.
SCORERS: dict[str, str] = {NGRAM_SCHEME.rstrip(":"): "corpusbench.baselines.scoring:load_ngram_scorer"}


def make_scorer(
    lm: LoadedModel,
    *,
    batch_tokens: int = 2048,
    bos: str = "prepend",
    pll: str = "within_word_l2r",
    share_prefixes: bool = True,
) -> Any:
    """The scorer for the loaded model's architecture."""
    if lm.arch == "causal":
        from corpusbench.eval.causal import CausalScorer

        return CausalScorer(
            lm.model,
            lm.tokenizer,
            bos=bos,  # type: ignore[arg-type]
            batch_tokens=batch_tokens,
            share_prefixes=share_prefixes,
        )
    if lm.arch == "mlm":
        from corpusbench.eval.masked import MaskedPllScorer

        return MaskedPllScorer(lm.model, lm.tokenizer, pll=pll, batch_tokens=batch_tokens)  # type: ignore[arg-type]
    from corpusbench.eval.seq2seq import Seq2SeqScorer

    return Seq2SeqScorer(lm.model, lm.tokenizer, batch_tokens=batch_tokens)


CPU_BATCH_TOKENS = 2048  # fastest on the 2-core CPU (docs/benchmarks.md); a GPU gets more
MAX_BATCH_TOKENS = 1 << 18
GPU_MEMORY_SHARE = 0.4  # of the free GPU memory, for the activations of one batch


def auto_batch_tokens(lm: LoadedModel) -> tuple[int, str]:
    """(token budget, why): the CPU value on a CPU; on a GPU, the power of two whose activations (an
    estimate from the model's widths and dtype) fill ``GPU_MEMORY_SHARE`` of its free memory."""
    if lm.device.type != "cuda":
        return CPU_BATCH_TOKENS, f"auto: {lm.device.type}"
    import torch

    free, _ = torch.cuda.mem_get_info(lm.device)
    cfg = getattr(lm.model.config, "text_config", None) or lm.model.config
    hidden = getattr(cfg, "hidden_size", None) or getattr(cfg, "d_model", 1024)
    inter = getattr(cfg, "intermediate_size", None) or getattr(cfg, "d_ff", None) or 4 * hidden
    heads = getattr(cfg, "num_attention_heads", None) or getattr(cfg, "num_heads", 16)
    per_token = lm.dtype.itemsize * (6 * hidden + 3 * inter) + 4 * heads * 512  # + attention scores
    fit = int(free * GPU_MEMORY_SHARE / per_token)
    budget = max(CPU_BATCH_TOKENS, min(MAX_BATCH_TOKENS, 1 << max(0, fit.bit_length() - 1)))
    return budget, f"auto: {free / 2**30:.1f} GiB free on {lm.device}, ~{per_token / 1024:.0f} KiB a token"


def register_scorer(scheme: str, target: str) -> None:
    """Make ``--model SCHEME:REF`` open its scorer through ``target`` (``"module:function"``)."""
    if not scheme.isidentifier():
        raise ConfigError(f"scorer scheme {scheme!r} must be a Python identifier")
    SCORERS[scheme] = target


def scorer_opener(model: str) -> tuple[Opener, str] | None:
    """(opener, reference) of a ``SCHEME:REF`` model of a registered scheme; None for an HF model."""
    scheme, sep, ref = model.partition(":")
    if not sep or scheme not in SCORERS:
        return None
    module, _, name = SCORERS[scheme].partition(":")
    return getattr(importlib.import_module(module), name), ref


def open_scorer(spec: EvalSpec) -> tuple[Any, dict[str, Any]]:
    """(scorer, model provenance) for ``spec.model``: an HF model, or ``SCHEME:REF`` of a registered
    scorer (``ngram:DIR``: a trained baseline)."""
    if found := scorer_opener(spec.model):
        opener, ref = found
        return opener(ref)
    lm = load_model(
        spec.model,
        arch=spec.arch,
        device=spec.device,
        dtype=spec.dtype,
        trust_remote_code=spec.trust_remote_code,
    )
    if spec.batch_tokens is None:
        budget, why = auto_batch_tokens(lm)
    else:
        budget, why = spec.batch_tokens, "--batch-tokens"
    scorer = make_scorer(
        lm, batch_tokens=budget, bos=spec.bos, pll=spec.pll, share_prefixes=spec.share_prefixes
    )
    dtype_why = "auto: bfloat16 on a GPU that has it, else float32" if spec.dtype == "auto" else "--dtype"
    return scorer, lm.provenance() | {
        "batch_tokens": budget,
        "batch_tokens_choice": why,
        "dtype_choice": dtype_why,
    }
