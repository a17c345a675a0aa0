"""The eval runner: minimal-pair dataset × model -> results.json, scores.parquet, plots, summary.

The whole output folder is built in a temporary sibling and renamed at the end, so a failed or
interrupted run leaves nothing half-written. Data is validated before the model is loaded.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from corpusbench.errors import ConfigError, InputError
from corpusbench.eval.data import PairSet, load_pairs, run_folder
from corpusbench.eval.metrics import config_metrics
from corpusbench.eval.records import MinimalPair, PairScore, Span
from corpusbench.eval.release import PAIR_TASKS, ConfigEntry, Release, find_release
from corpusbench.eval.results import (
    EvalReport,
    ci_text,
    fmt,
    tie_text,
    write_eval_folder,
)
from corpusbench.eval.results import headline_lines as headline_lines  # re-exported (tests)
from corpusbench.eval.scorers import open_scorer
from corpusbench.eval.spec import EvalSpec, ProgressFactory, option_values, spec_dict
from corpusbench.eval.timing import StageClock, timing_line
from corpusbench.family import ScoreRun, TaskScores, families, load
from corpusbench.provenance import code_version

log = logging.getLogger(__name__)

CHUNK = 2048  # unique sentences per scorer call (progress granularity; batches are sorted within)
# A scorer that reports progress per text itself (``progress_per_text``) gets more per call: the causal
# scorer's prefix trees then span more sentences, and its batches stay full.
CHUNK_WITH_PROGRESS = 1 << 15


def scored_unit(text: str, span: Span | None, prefix: str | None, scoring: str) -> tuple[str, Span | None]:
    """(text given to the scorer, region scored): a prefix is prepended with a space and never scored."""
    span = span if scoring == "auto" else None
    if not prefix:
        return text, span
    shift = len(prefix) + 1
    region = (shift + span[0], shift + span[1]) if span else (shift, shift + len(text))
    return f"{prefix} {text}", region


def reports_progress(scorer: Any) -> bool:
    """Whether ``scorer.score(texts, spans, progress)`` calls ``progress`` with the texts it finished
    (a scorer says so with ``progress_per_text = True``; others count masked copies or words)."""
    return bool(getattr(scorer, "progress_per_text", False))


def score_pairs(
    scorer: Any,
    pairs: Sequence[MinimalPair],
    *,
    scoring: str = "auto",
    progress: ProgressFactory | None = None,
) -> list[PairScore]:
    """Score both members of every pair; identical units are scored once.

    Units go to the scorer in chunks of ``CHUNK`` (``CHUNK_WITH_PROGRESS`` for a scorer that reports
    its own progress), sorted by text: a causal scorer shares the token prefixes within a chunk (both
    members of a pair, a template's opening), and sorting puts the sentences that share them in the
    same chunk.
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
    inner = reports_progress(scorer)
    size = CHUNK_WITH_PROGRESS if inner else CHUNK
    for s in range(0, len(units), size):
        chunk = units[s : s + size]
        texts, spans = [t for t, _ in chunk], [sp for _, sp in chunk]
        got = scorer.score(texts, spans, advance) if inner else scorer.score(texts, spans)
        done.update(zip(chunk, got, strict=True))
        if advance and not inner:
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


def scoring_modes(pairs: Sequence[MinimalPair], scoring: str) -> dict[str, str]:
    """Per config: ``critical_region`` (spans scored), ``full_sentence`` or ``mixed``."""
    spans: dict[str, set[bool]] = {}
    for p in pairs:
        spans.setdefault(p.config, set()).add(scoring == "auto" and p.good_span is not None)
    names = {frozenset({True}): "critical_region", frozenset({False}): "full_sentence"}
    return {c: names.get(frozenset(v), "mixed") for c, v in spans.items()}


def build_results(
    data: PairSet,
    scores: Sequence[PairScore],
    provenance: dict[str, Any],
    *,
    release: Release | None = None,
    skipped: dict[str, str] | None = None,
    scoring: str = "auto",
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """results.json's content; ``options``: the families' run options (``option_values``), by name."""
    from corpusbench.eval.benchmarks import TIE_RULE
    from corpusbench.eval.metrics import interval_note

    per_cfg = {cfg: config_metrics([s for s in scores if s.config == cfg]) for cfg in data.configs}
    n = len(scores)
    accs = [m["accuracy"] for m in per_cfg.values() if m["accuracy"] is not None]
    benchmarks: dict[str, Any] = {}
    if release is not None:
        by_cfg: dict[str, list[tuple[MinimalPair, PairScore]]] = {}
        for p, s in zip(data.pairs, scores, strict=True):
            by_cfg.setdefault(p.config, []).append((p, s))
        options = options or {}
        for family in families.with_eval():
            kind = family.eval
            if kind is not None and kind.benchmark is not None:
                given = {k: options.get(k) for k in kind.options}
                block = load(kind.benchmark)(release.configs, by_cfg, **given)
                benchmarks |= {family.name: block} if block else {}
    return {
        "accuracy": sum(s.correct for s in scores) / n if n else None,
        "accuracy_macro_configs": float(np.mean(accs)) if accs else None,
        "n_pairs": n,
        "n_ties": (ties := sum(s.logprob_good == s.logprob_bad for s in scores)),
        "tie_share": ties / n if n else None,
        "accuracy_ties_half": (sum(s.correct for s in scores) + 0.5 * ties) / n if n else None,
        "tie_rule": TIE_RULE,
        "interval": interval_note(),
        "scoring_mode": {"requested": scoring, "per_config": scoring_modes(data.pairs, scoring)},
        "benchmarks": benchmarks,
        "skipped": dict(skipped or {}),
        "configs": per_cfg,
        "provenance": provenance,
    }


def benchmarks_markdown(bench: dict[str, Any]) -> list[str]:
    """The ``benchmarks`` block as Markdown lines, family by family (its ``markdown`` hook, else its
    headline metric); a block of no registered family gets its ``score``."""
    lines: list[str] = []
    known = {f.name: f for f in families.with_eval()}
    for name in [f for f in known if f in bench] + [b for b in bench if b not in known]:
        block = bench[name]
        if not block:
            continue
        family = known.get(name)
        if family is not None and family.eval is not None and family.eval.markdown is not None:
            lines += load(family.eval.markdown)(block)
        else:
            metric = family.eval.headline if family is not None and family.eval is not None else "score"
            title = family.title if family is not None else name
            n = f" (n={block['n']})" if isinstance(block.get("n"), int) else ""
            lines.append(
                f"- **{title} {metric} {fmt(block.get(metric))}**{ci_text(block.get(f'{metric}_ci95'))}{n}"
            )
    return lines


def summary_markdown(results: dict[str, Any]) -> str:
    prov = results["provenance"]
    conventions = ", ".join(f"{k}={v}" for k, v in sorted(prov["scorer"].items()) if k != "scorer")
    modes = sorted(set(results["scoring_mode"]["per_config"].values()))
    lines = [
        f"# Evaluation of `{prov['model']['model_id']}` on `{prov['dataset']['dataset']}`",
        "",
        f"- pairs: {results['n_pairs']}, accuracy (micro): {fmt(results['accuracy'])}, "
        f"macro over configs: {fmt(results['accuracy_macro_configs'])}, "
        f"{tie_text(results['n_ties'], results['n_pairs'], results.get('accuracy_ties_half'))}",
        f"- ties: {results['tie_rule']}",
        f"- intervals: {results.get('interval') or 'n/a'}",
        f"- scoring mode: {', '.join(modes) or 'n/a'} (`--scoring {results['scoring_mode']['requested']}`; "
        "critical_region = only the critical words' log-probabilities, full_sentence = whole sentences)",
        f"- scorer: `{prov['scorer']['scorer']}` ({conventions})",
        f"- model: arch={prov['model']['arch']}, dtype={prov['model']['dtype']}, "
        f"revision={prov['model']['model_revision']}",
        f"- dataset fingerprint: `{prov['dataset']['dataset_fingerprint'][:16]}`",
        *([f"- time: {timing_line(results['timing'])}"] if "timing" in results else []),
        "",
    ]
    if results["benchmarks"]:
        lines += ["## Benchmarks", "", *benchmarks_markdown(results["benchmarks"]), ""]
    if results["skipped"]:
        lines += ["## Skipped configs", ""]
        lines += [f"- `{c}`: {why}" for c, why in results["skipped"].items()]
        lines.append("")
    lines += [
        "## Configs",
        "",
        "| config | group | n | accuracy [95% CI] | ties (share) | accuracy, ties as ½ | mean ΔP |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for cfg, m in results["configs"].items():
        rows = [("(all)", m)] + [(g, c) for g, c in m["by_group"].items() if g != cfg]
        for g, c in rows:
            acc, delta = f"{fmt(c['accuracy'])}{ci_text(c.get('ci95'))}", fmt(c["mean_delta"], ".3f")
            share = f"{c['n_ties']}" + (f" ({c['n_ties'] / c['n']:.1%})" if c["n_ties"] and c["n"] else "")
            half = fmt(c.get("accuracy_ties_half")) if c["n_ties"] else "="
            lines.append(f"| {cfg} | {g} | {c['n']} | {acc} | {share} | {half} | {delta} |")
    return "\n".join(lines) + "\n"


def skip_reason(entry: ConfigEntry) -> str | None:
    """Why ``corpusbench eval`` does not score this config (None: it does)."""
    if entry.kind == "pairs" or entry.kind in [f.name for f in families.with_eval()]:
        return None
    by = [f.scored_by for f in families.all() if f.scored_by is not None and f.scored_by.task == entry.task]
    elsewhere = "; ".join(f"{b.what}: use `corpusbench {b.command}`" for b in by)
    why = "has no pairwise scoring" if entry.task == "other" else "is not scored by corpusbench eval"
    return f"task {entry.task!r} {why}" + (f" ({elsewhere})" if elsewhere else "")


def plan_release(release: Release, wanted: Sequence[str]) -> tuple[list[ConfigEntry], dict[str, str]]:
    """(configs to score, {config: why skipped}) for the selected configs (all when none named)."""
    names = {c.name for c in release.configs}
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise ConfigError(
            f"{release.source}: unknown config(s) {', '.join(unknown)}; available: {', '.join(sorted(names))}"
        )
    chosen = [c for c in release.configs if not wanted or c.name in wanted]
    skipped = {c.name: r for c in chosen if (r := skip_reason(c))}
    return [c for c in chosen if c.name not in skipped], skipped


def run_eval(
    spec: EvalSpec, progress: ProgressFactory | None = None, clock: StageClock | None = None
) -> EvalReport:
    """Validate the data, load the model, score, compute metrics and write ``spec.out`` atomically;
    ``results.json`` records the seconds per stage (``clock``, which may already hold the CLI's imports).

    A release (build folder, its ``eval/corpusbench.yaml`` or ``ORG/NAME@rev``) is evaluated config by
    config with its task and roles; configs not scored are listed in ``skipped``. A family that scores its
    own configs (``EvalKind.score``: a task that is not pairs) gets them with the open scorer, and a
    family's own output folder goes to its ``EvalKind.folder`` hook.
    """
    clock = clock or StageClock()
    own = {f.name: f.eval for f in families.with_eval() if f.eval is not None and f.eval.score is not None}
    for kind in own.values():
        if kind.folder is not None and (report := load(kind.folder)(spec, progress, clock)) is not None:
            return report  # type: ignore[no-any-return]
    t0 = time.perf_counter()
    started = t0 - sum(clock.seconds.values())  # the CLI's imports count in the total
    release = find_release(spec.dataset, verify=spec.verify) or run_folder(spec.dataset)  # or a run folder
    skipped: dict[str, str] = {}
    own_entries: list[ConfigEntry] = []  # configs scored by their family's ``score`` hook
    if release is not None:
        todo, skipped = plan_release(release, spec.configs)
        own_entries = [c for c in todo if c.kind in own and c.task not in PAIR_TASKS]
        pair_names = [c.name for c in todo if c not in own_entries]
        if not pair_names and not own_entries:
            raise InputError(
                f"{spec.dataset}: no config to score; skipped: "
                + "; ".join(f"{k} ({v})" for k, v in skipped.items())
            )
        data = (
            load_pairs(
                spec.dataset,
                configs=pair_names,
                limit=spec.limit,
                limit_mode=spec.limit_mode,
                seed=spec.seed,
                release=release,
            )
            if pair_names
            else None
        )
    else:
        data = load_pairs(
            spec.dataset,
            configs=spec.configs or None,
            group_col=spec.group_col,
            limit=spec.limit,
            limit_mode=spec.limit_mode,
            seed=spec.seed,
        )
    pairs = data.pairs if data else ()
    scorer, model_provenance = open_scorer(spec)
    clock.add("load", time.perf_counter() - t0)  # the data and the model
    for name, kind in own.items():  # e.g. an n-gram baseline: listed, not an error
        why = load(kind.refuses)(scorer) if kind.refuses is not None else None
        if why is not None:
            skipped |= {e.name: why for e in own_entries if e.kind == name}
            own_entries = [e for e in own_entries if e.kind != name]
    if data is None and not own_entries:
        raise InputError(f"{spec.dataset}: no config {spec.model} can score; skipped: " + "; ".join(skipped))
    n_units = len({(t, s) for p in pairs for t, s in ((p.good, p.good_span), (p.bad, p.bad_span))})
    t1 = time.perf_counter()
    with clock.stage("score"):
        scores = score_pairs(scorer, pairs, scoring=spec.scoring, progress=progress)
    t_score = time.perf_counter() - t1
    conventions = scorer.conventions()
    run = ScoreRun(
        spec=spec,
        release=release,
        scorer=scorer,
        model_provenance=model_provenance,
        progress=progress,
        clock=clock,
    )
    own_scores: dict[str, TaskScores] = {
        name: load(kind.score)([e for e in own_entries if e.kind == name], run)
        for name, kind in own.items()
        if any(e.kind == name for e in own_entries)
    }
    del run
    clock.merge(getattr(scorer, "clock", None))
    n_cut = getattr(scorer, "n_cut", 0)
    if n_cut:
        log.warning(
            "%d sentence(s) longer than the model's window (%s tokens): cut from the left, only their last "
            "tokens scored (results.json: n_cut_to_window)",
            n_cut,
            getattr(scorer, "max_len", "?"),
        )
    del scorer
    if data is not None:
        dataset_prov = data.provenance()
    else:
        assert release is not None
        dataset_prov = {
            "dataset": release.source,
            "dataset_revision": release.revision,
            "dataset_fingerprint": "",
        }
    if release is not None:
        dataset_prov |= {
            "release_fingerprint": release.release_fingerprint,
            "release_verification": release.verification,
        }
    provenance = {
        "model": model_provenance,
        "dataset": dataset_prov,
        "scorer": conventions,
        "scoring": spec.scoring,
        "spec": spec_dict(spec),
        "code": code_version(),
    }
    empty = PairSet(pairs=(), configs=(), source="", revision=None, fingerprint="", group_column=None)
    t_metrics = time.perf_counter()
    results = build_results(
        data or empty,
        scores,
        provenance,
        release=release,
        skipped=skipped,
        scoring=spec.scoring,
        options=option_values(spec),
    )
    for name, s in own_scores.items():  # beside the family's block of pair configs, if it has one
        if s.block:
            results["benchmarks"][name] = {**results["benchmarks"].get(name, {}), **s.block}
    results["n_cut_to_window"] = n_cut
    frame = _scores_frame(pairs, scores)
    clock.add("metrics", time.perf_counter() - t_metrics)

    def plots(folder: Path) -> None:
        from corpusbench.eval.plots import plot_results

        plot_results(results, folder)
        for s in own_scores.values():  # the figures of the families that scored their own configs
            if s.figures is not None:
                s.figures(folder)

    report = write_eval_folder(
        spec,
        results,
        frame,
        started=started,
        scoring_seconds=t_score,
        unit="sentences",
        n_units=n_units,
        n_items=results["n_pairs"],
        extras=plots,
        summary=summary_markdown,
        clock=clock,
    )
    return replace(report, skipped=skipped, benchmarks=results["benchmarks"])
