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
    scorer = make_scorer(
        lm, batch_tokens=spec.batch_tokens, bos=spec.bos, pll=spec.pll, share_prefixes=spec.share_prefixes
    )
    return scorer, lm.provenance()
