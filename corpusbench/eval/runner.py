"""The eval runner: minimal-pair dataset × model -> results.json, scores.parquet, plots, summary.

The whole output folder is built in a temporary sibling and renamed at the end, so a failed or
interrupted run leaves nothing half-written. Data is validated before the model is loaded.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from corpusbench.errors import ConfigError
from corpusbench.eval.data import FREQ_PREFIX, PairSet, load_pairs
from corpusbench.eval.metrics import config_metrics
from corpusbench.eval.models import LoadedModel, load_model
from corpusbench.eval.records import MinimalPair, PairScore, Span
from corpusbench.io import atomic_dir, atomic_path, atomic_write, write_json
from corpusbench.provenance import code_version

log = logging.getLogger(__name__)

ProgressFactory = Callable[[str, int], Callable[[int], None]]  # (description, total) -> advance
NGRAM_SCHEME = "ngram:"  # --model ngram:DIR scores with a baseline trained by `corpusbench baseline train`
CHUNK = 2048  # unique sentences per scorer call (progress granularity; batches are sorted within)


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalSpec:
    dataset: str
    model: str
    out: Path
    arch: str = "auto"
    device: str = "cpu"
    dtype: str = "float32"
    batch_tokens: int = 2048
    configs: tuple[str, ...] = ()
    group_col: str | None = None
    bos: str = "prepend"
    pll: str = "within_word_l2r"
    scoring: str = "auto"  # auto: critical-region spans where the data has them; full: whole sentences
    limit: int | None = None  # pairs per config; CAC folders: sites per dyad (the first ones)
    context_utterances: int | None = None  # CAC: at most this many earlier utterances (default: all)
    context_step: int = 0  # CAC, causal: cut contexts this many tokens deeper and keep the cut (KV reuse)
    trust_remote_code: bool = False
    share_prefixes: bool = True  # causal: shared token prefixes run once (prefix-tree rows)


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalReport:
    out: Path
    accuracy: float
    n_pairs: int
    per_config: dict[str, float | None] = field(default_factory=dict)
    seconds: float = 0.0


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


def open_scorer(spec: EvalSpec) -> tuple[Any, dict[str, Any]]:
    """(scorer, model provenance) for ``spec.model``: an HF model, or ``ngram:DIR`` (a trained baseline)."""
    if spec.model.startswith(NGRAM_SCHEME):
        from corpusbench.baselines.scoring import load_ngram_scorer

        return load_ngram_scorer(Path(spec.model[len(NGRAM_SCHEME) :]))
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


def scored_unit(text: str, span: Span | None, prefix: str | None, scoring: str) -> tuple[str, Span | None]:
    """(text given to the scorer, region scored): a prefix is prepended with a space and never scored."""
    span = span if scoring == "auto" else None
    if not prefix:
        return text, span
    shift = len(prefix) + 1
    region = (shift + span[0], shift + span[1]) if span else (shift, shift + len(text))
    return f"{prefix} {text}", region


def score_pairs(
    scorer: Any,
    pairs: Sequence[MinimalPair],
    *,
    scoring: str = "auto",
    progress: ProgressFactory | None = None,
) -> list[PairScore]:
    """Score both members of every pair; identical units are scored once.

    Units go to the scorer in chunks of ``CHUNK``, sorted by text: a causal scorer shares the token
    prefixes within a chunk (both members of a pair, a template's opening), and sorting puts the
    sentences that share them in the same chunk.
    """
    if scoring not in ("auto", "full"):
        raise ConfigError(f"unknown scoring {scoring!r}: use auto or full")
    members = [
        (
            scored_unit(p.good, p.good_span, p.good_prefix, scoring),
            scored_unit(p.bad, p.bad_span, p.bad_prefix, scoring),
        )
        for p in pairs
    ]
    done: dict[tuple[str, Span | None], tuple[float, int]] = {}
    units = sorted(dict.fromkeys(u for m in members for u in m), key=lambda u: (u[0], u[1] or (-1, -1)))
    advance = progress("scoring sentences", len(units)) if progress else None
    for s in range(0, len(units), CHUNK):
        chunk = units[s : s + CHUNK]
        done.update(zip(chunk, scorer.score([t for t, _ in chunk], [sp for _, sp in chunk]), strict=True))
        if advance:
            advance(len(chunk))
    out = []
    for p, (good, bad) in zip(pairs, members, strict=True):
        g, b = done[good], done[bad]
        out.append(
            PairScore(
                id=p.id,
                config=p.config,
                group=p.group,
                bin=p.bin,
                logprob_good=g[0],
                logprob_bad=b[0],
                n_tokens_good=g[1],
                n_tokens_bad=b[1],
            )
        )
    return out


def _scores_frame(pairs: Sequence[MinimalPair], scores: Sequence[PairScore]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": [s.id for s in scores],
            "config": [s.config for s in scores],
            "group": [s.group for s in scores],
            "bin": pd.array([s.bin for s in scores], dtype="Int64"),
            "sentence_good": [p.good for p in pairs],
            "sentence_bad": [p.bad for p in pairs],
            "logprob_good": np.array([s.logprob_good for s in scores]),
            "logprob_bad": np.array([s.logprob_bad for s in scores]),
            "n_tokens_good": [s.n_tokens_good for s in scores],
            "n_tokens_bad": [s.n_tokens_bad for s in scores],
            "delta": np.array([s.delta for s in scores]),
            "correct": [s.correct for s in scores],
        }
    )


def build_results(data: PairSet, scores: Sequence[PairScore], provenance: dict[str, Any]) -> dict[str, Any]:
    freq = {
        p.id: {k[len(FREQ_PREFIX) :]: float(v) for k, v in p.meta if k.startswith(FREQ_PREFIX)}
        for p in data.pairs
    }
    freq = {k: v for k, v in freq.items() if v}
    per_cfg = {cfg: config_metrics([s for s in scores if s.config == cfg], freq) for cfg in data.configs}
    n = len(scores)
    accs = [m["accuracy"] for m in per_cfg.values() if m["accuracy"] is not None]
    return {
        "accuracy": sum(s.correct for s in scores) / n,
        "accuracy_macro_configs": float(np.mean(accs)),
        "n_pairs": n,
        "n_ties": sum(s.logprob_good == s.logprob_bad for s in scores),
        "configs": per_cfg,
        "provenance": provenance,
    }


def summary_markdown(results: dict[str, Any]) -> str:
    prov = results["provenance"]
    conventions = ", ".join(f"{k}={v}" for k, v in sorted(prov["scorer"].items()) if k != "scorer")
    lines = [
        f"# Evaluation of `{prov['model']['model_id']}` on `{prov['dataset']['dataset']}`",
        "",
        f"- pairs: {results['n_pairs']}, accuracy (micro): {results['accuracy']:.4f}, "
        f"macro over configs: {results['accuracy_macro_configs']:.4f}, ties: {results['n_ties']}",
        f"- scorer: `{prov['scorer']['scorer']}` ({conventions})",
        f"- model: arch={prov['model']['arch']}, dtype={prov['model']['dtype']}, "
        f"revision={prov['model']['model_revision']}",
        f"- dataset fingerprint: `{prov['dataset']['dataset_fingerprint'][:16]}`",
        "",
        "| config | group | n | accuracy | mean ΔP |",
        "|---|---|---:|---:|---:|",
    ]
    for cfg, m in results["configs"].items():
        lines.append(f"| {cfg} | (all) | {m['n']} | {m['accuracy']:.4f} | {m['mean_delta']:.3f} |")
        for g, c in m["by_group"].items():
            if g != cfg:
                lines.append(f"| {cfg} | {g} | {c['n']} | {c['accuracy']:.4f} | {c['mean_delta']:.3f} |")
        if m.get("delta_ols"):
            o = m["delta_ols"]
            terms = ", ".join(
                f"{k} {o['coef'][k]:+.3f} (se {o['se'][k]:.3f}, p {o['p'][k]:.3g})" for k in o["coef"]
            )
            r2 = "n/a" if o["r2"] is None else f"{o['r2']:.3f}"
            lines.append(f"\nΔP OLS on z-scored log frequencies ({cfg}, n={o['n']}, R² {r2}): {terms}\n")
        if m.get("ltswap"):
            lt = m["ltswap"]
            drop = "n/a" if lt["accuracy_drop"] is None else f"{lt['accuracy_drop']:.4f}"
            lines.append(f"\nLT-Swap macro ({cfg}): avg {lt['avg']:.4f}, accuracy drop {drop}\n")
    return "\n".join(lines) + "\n"


def spec_dict(spec: EvalSpec) -> dict[str, Any]:
    """The run's options as recorded in ``results.json`` (paths as strings, ``out`` left out)."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(spec).items() if k != "out"}


def write_eval_folder(
    spec: EvalSpec,
    results: dict[str, Any],
    scores: pd.DataFrame,
    *,
    started: float,
    scoring_seconds: float,
    unit: str,
    n_units: int,
    n_items: int,
    extras: Callable[[Path], None],
    summary: Callable[[dict[str, Any]], str] = summary_markdown,
) -> EvalReport:
    """Write ``results.json``, ``timing.json``, ``scores.parquet``, the ``extras`` and ``summary.md``
    into ``spec.out`` atomically (all or nothing) and return the report."""
    timing = {
        "seconds_total": time.perf_counter() - started,
        "seconds_scoring": scoring_seconds,
        f"{unit}_scored": n_units,
        f"{unit}_per_s": n_units / scoring_seconds if scoring_seconds > 0 else None,
    }
    with atomic_dir(spec.out) as tmp:
        write_json(tmp / "results.json", results)
        write_json(tmp / "timing.json", timing)
        with atomic_path(tmp / "scores.parquet") as p:
            scores.to_parquet(p, index=False)
        extras(tmp)
        with atomic_write(tmp / "summary.md") as fh:
            fh.write(summary(results))
    return EvalReport(
        out=spec.out,
        accuracy=results["accuracy"],
        n_pairs=n_items,
        per_config={c: m["accuracy"] for c, m in results["configs"].items()},
        seconds=time.perf_counter() - started,
    )


def run_eval(spec: EvalSpec, progress: ProgressFactory | None = None) -> EvalReport:
    """Validate the data, load the model, score, compute metrics and write ``spec.out`` atomically.

    A CAC output folder (``corpusbench cac run``) goes to :func:`corpusbench.eval.cac_run.run_cac_eval`.
    """
    from corpusbench.eval.cac_run import is_cac_folder, run_cac_eval

    if is_cac_folder(spec.dataset):
        return run_cac_eval(spec, progress)
    t0 = time.perf_counter()
    data = load_pairs(spec.dataset, configs=spec.configs or None, group_col=spec.group_col, limit=spec.limit)
    scorer, model_provenance = open_scorer(spec)
    n_units = len({(t, s) for p in data.pairs for t, s in ((p.good, p.good_span), (p.bad, p.bad_span))})
    t1 = time.perf_counter()
    scores = score_pairs(scorer, data.pairs, scoring=spec.scoring, progress=progress)
    t_score = time.perf_counter() - t1
    provenance = {
        "model": model_provenance,
        "dataset": data.provenance(),
        "scorer": scorer.conventions(),
        "scoring": spec.scoring,
        "spec": spec_dict(spec),
        "code": code_version(),
    }
    results = build_results(data, scores, provenance)

    def plots(folder: Path) -> None:
        from corpusbench.eval.plots import plot_results

        plot_results(results, folder)

    return write_eval_folder(
        spec,
        results,
        _scores_frame(data.pairs, scores),
        started=t0,
        scoring_seconds=t_score,
        unit="sentences",
        n_units=n_units,
        n_items=results["n_pairs"],
        extras=plots,
    )
