"""``corpusbench ltswap``: LT-Swap quadruplets (WordSwap, InflectionSwap, AgreementSwap) and their judge.

``ltswap build CORPUS --out DIR`` generates; ``ltswap judge ITEMS.jsonl --out OUT.jsonl`` re-judges
given quadruplets; ``ltswap judge-check`` measures a judge on the shipped calibration set. The LLM
that writes and judges takes the shared ``--llm-*`` options (:mod:`corpusbench.llm.options`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from corpusbench.console import make_console
from corpusbench.errors import ConfigError, option_names
from corpusbench.families.ltswap.params import LtswapFamilyParams, labelled_filter, run_params
from corpusbench.llm.api import DEFAULT_BACKEND, DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT
from corpusbench.llm.options import (
    LLMApiKey,
    LLMBackend,
    LLMBaseUrl,
    LLMCache,
    LLMConcurrency,
    LLMRetries,
    LLMTimeout,
    MaxLLMFailures,
    TrustRemoteCode,
    llm_model,
    with_help,
)
from corpusbench.params import cli_params

if TYPE_CHECKING:
    from corpusbench.families.ltswap.session import LLMOptions

console = make_console()


ltswap_app = typer.Typer(
    help="LT-Swap: `ltswap build` quadruplets from a corpus; `ltswap judge` re-judges quadruplets; "
    "`ltswap judge-check` measures a judge on the calibration set.",
    no_args_is_help=True,
)

FILTER_RULE = typer.Option(
    None, "--filter-rule", help="strict (paper: all 4 answers right), debiased or pointwise (default)."
)
THRESHOLD = typer.Option(
    None, "--threshold", help="Margin threshold (default: 0.1 for pointwise, 0 for debiased and strict)."
)
# the shared --llm-* options, with what LT-Swap's commands do without them
JudgeModel = llm_model(
    "Qwen2.5-Coder-1.5B-Instruct from `make judge-model` (on a GPU the paper's "
    "meta-llama/Llama-3.1-8B-Instruct); at a server: its first model."
)
JudgeBaseUrl = with_help(LLMBaseUrl, "ltswap without it starts a vllm-server for the run.")
BuildCache = with_help(LLMCache, "Default: OUT/llm-cache.sqlite.")


def register(app: typer.Typer) -> None:
    app.add_typer(ltswap_app, name="ltswap")


def _llm_options(
    timeout: float,
    retries: int,
    max_failures: str,
    api_key: str | None,
    trust_remote_code: bool,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> LLMOptions:
    from corpusbench.families.ltswap.session import LLMOptions
    from corpusbench.llm.records import FailureBudget

    with option_names(timeout="--llm-timeout", retries="--llm-retries", concurrency="--llm-concurrency"):
        return LLMOptions(
            timeout=timeout,
            retries=retries,
            concurrency=concurrency,
            max_failures=FailureBudget.parse(max_failures),
            api_key=api_key,
            trust_remote_code=trust_remote_code,
        )


def ltswap(
    corpus: str = typer.Argument(..., help="The corpus (anything `corpusbench stats` reads)."),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder: <subtask>.parquet, funnel, manifest."),
    stats: Path | None = typer.Option(
        None, "--stats", help="A stats folder of CORPUS (default: OUT/stats, computed if missing or stale)."
    ),
    llm_backend: LLMBackend = DEFAULT_BACKEND,
    model: JudgeModel = None,
    base_url: JudgeBaseUrl = None,
    cache: BuildCache = None,
    params: LtswapFamilyParams | None = None,
    workers: int = typer.Option(1, "--workers", "-w", help="Workers for the stats step."),
    llm_timeout: LLMTimeout = DEFAULT_TIMEOUT,
    llm_retries: LLMRetries = DEFAULT_RETRIES,
    llm_concurrency: LLMConcurrency = DEFAULT_CONCURRENCY,
    max_llm_failures: MaxLLMFailures = "0",
    api_key: LLMApiKey = None,
    trust_remote_code: TrustRemoteCode = False,
) -> None:
    """Generate LT-Swap quadruplets for the rare words of CORPUS (paper §2, Appendices A, C, D)."""
    from corpusbench.families.ltswap.pipeline import plan_ltswap, run_ltswap
    from corpusbench.progress_llm import LLMProgress

    assert params is not None  # cli_params builds it from the options
    p = params
    plan_only, lang, batch_size = p.plan, p.lang, p.batch_size
    with option_names():  # a bad value names its option (--per-cell)
        params = run_params(p)
        labelled = labelled_filter(p)
    from corpusbench.families.ltswap.session import corpus_stats, open_run_llm

    options = _llm_options(
        llm_timeout, llm_retries, max_llm_failures, api_key, trust_remote_code, llm_concurrency
    )
    err = make_console(stderr=True)
    st = corpus_stats(corpus, stats, out, lang, workers, say=console.print)
    with contextlib.ExitStack() as stack:
        progress = stack.enter_context(LLMProgress(err, "ltswap plan" if plan_only else "ltswap build"))
        # unreadable stats fail here, before OUT gets a cache
        plan = plan_ltswap(st, params, progress, labelled)
        llm = stack.enter_context(
            open_run_llm(
                backend=llm_backend,
                model=model,
                base_url=base_url,
                cache=cache or out / "llm-cache.sqlite",
                log_dir=out,
                batch_size=batch_size,
                say=err.print,
                options=options,
            )
        )
        stack.enter_context(progress.watch(llm))
        if plan_only:
            from corpusbench.families.ltswap.sizing import price

            priced = price(plan, llm, params, progress, labelled)
            served = llm.describe().get("model")
        else:
            result = run_ltswap(st, llm, params, out, progress, plan, labelled)
    if plan_only:
        _print_plan(priced, params, plan, served, cache or out / "llm-cache.sqlite")
        return
    _print(result, params)


ltswap_app.command("build")(cli_params(LtswapFamilyParams)(ltswap))


def _print_plan(priced, params, plan, model: str | None, cache: Path) -> None:  # type: ignore[no-untyped-def]
    """The estimate per subtask as ranges over the pilot's shares, the cells, and what the pilot measured."""
    from corpusbench.families.ltswap import cellview, sizing

    size = f"--per-cell {params.per_cell}" if params.per_cell else f"--max-per-bin {params.max_per_bin}"
    table = Table(
        "subtask", "candidates", "writer req.", "judge req.", "gen. tokens", "kept (est.)", "wall",
        title=f"LT-Swap plan ({size}; {model}): the pilot's value (range)",
    )  # fmt: skip
    for col in table.columns[1:]:
        col.justify = "right"
    ends = {end: [*rows, _plan_total(rows)] for end, rows in priced.rows.items()}
    for k, mid in enumerate(ends["mid"]):
        rows = [ends[end][k] for end in sizing.ENDS]

        def cell(key: str, show=lambda v: f"{v:,}", rows=rows, mid=mid) -> str:  # type: ignore[no-untyped-def]
            lo, hi = min(getattr(r, key) for r in rows), max(getattr(r, key) for r in rows)
            return show(getattr(mid, key)) + ("" if show(lo) == show(hi) else f" ({show(lo)}–{show(hi)})")

        table.add_row(
            mid.subtask, cell("candidates"), cell("writer"), cell("judge"), cell("tokens"), cell("kept"),
            cell("seconds", _duration),
        )  # fmt: skip
    console.print(table)
    cells = cellview.plan_rows(params, plan.pools, priced.draws["mid"], priced.kept["mid"])
    console.print(cellview.table(cells, "cells (at the pilot's shares)", plan=True))
    for line in cellview.no_candidates(cells):
        console.print(line, soft_wrap=True)
    p, t = priced.pilot, priced.timing
    shares = ", ".join(
        f"{s} {k}/{n} ({k / n:.0%})" if n else f"{s} none" for s, (k, n) in p.sentences.items()
    )
    kept = f"{p.kept}/{p.judged} ({p.kept / p.judged:.0%})" if p.judged else "none judged (demo: 82%)"
    timed = (
        f"timed apart on {sizing.TIMED} uncached writer and judge calls in a batch of {sizing.TIMED} (the "
        "pilot's answers came from the cache): an upper bound"
        if priced.timed_apart
        else "measured on the pilot's calls at the backend's own concurrency"
    )
    console.print(
        f"pilot on this corpus: {p.requests:,} requests ({p.sent:,} sent now, {_duration(p.seconds)}); its "
        f"answers are in {cache}, where the run finds them. Sentences passing the checks: {shares}; judged "
        f"drafts kept: {kept}. Per request: {t.writer_s:.2f} s and {t.writer_tokens:.0f} generated tokens a "
        f"sentence, {t.judge_s:.2f} s a judge prompt ({timed}). Ranges: the 95% intervals of the pilot's "
        "shares (a subtask the pilot did not reach: the demo run's rate).",
        soft_wrap=True,
    )


def _plan_total(rows):  # type: ignore[no-untyped-def]
    from corpusbench.families.ltswap.sizing import SubtaskEstimate

    return SubtaskEstimate(
        subtask="total",
        **{k: sum(getattr(r, k) for r in rows) for k in ("candidates", "writer", "judge", "tokens", "kept")},
        seconds=sum(r.seconds for r in rows),
    )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def _print(result, params) -> None:  # type: ignore[no-untyped-def]
    from corpusbench.families.ltswap.funnel import STAGES, empty_reason, stage_label
    from corpusbench.families.ltswap.records import SUBTASKS

    # One row per stage, one column per subtask: a funnel reads top to bottom and fits 80 columns.
    ran = result.manifest.get("parameters") or {}
    subtasks = [s for s in SUBTASKS if s in ran.get("subtasks", SUBTASKS)]  # the requested ones
    table = Table("stage", *subtasks, title=f"LT-Swap funnel → {result.out}")
    for col in table.columns[1:]:
        col.justify = "right"
    totals = {sub: result.funnel.totals(sub) for sub in subtasks}
    for s in STAGES:
        table.add_row(stage_label(s, ran), *(f"{totals[sub][s]:,}" for sub in subtasks))
    console.print(table)
    for sub in subtasks:
        if not result.quadruplets[sub]:
            why = empty_reason(result.funnel.totals(sub), result.funnel.reason_totals(sub))
            console.print(f"{sub}: [bold yellow]no quadruplets[/]: {why}", soft_wrap=True)
            continue
        reasons = ", ".join(f"{r} {n:,}" for r, n in list(result.funnel.reason_totals(sub).items())[:4])
        console.print(f"{sub}: drops: {reasons or 'none'}", soft_wrap=True)
    for sub in subtasks:
        if rows := [r for r in result.manifest.get("rewrites") or [] if r["subtask"] == sub]:
            sent, passed = sum(r["sent"] for r in rows), sum(r["passed"] for r in rows)
            console.print(f"{sub}: rewrites: {sent:,} sent, {passed:,} passed the checks")
    if sents := result.manifest.get("sentences"):
        console.print(
            "sentences passing the checks: "
            + ", ".join(
                f"{sub} {r['passed']:,}/{r['written']:,} ({r['share']:.0%})" for sub, r in sents.items()
            )
        )
    _print_cells(result, params)
    rep = result.manifest.get("llm_report") or {}
    console.print(
        f"LLM: {rep.get('calls', 0):,} calls, {rep.get('cache_hits', 0):,} cache hits, "
        f"{rep.get('failures', 0):,} failures; {result.manifest['seconds']} s. The run used "
        f"{rep.get('requests_used', 0):,} requests and {rep.get('tokens_out_used', 0):,} generated tokens"
        " (sent now or answered from the cache)"
    )
    _say_failures(rep.get("failures", 0), (result.manifest.get("llm") or {}).get("max_failures"))


def _print_cells(result, params) -> None:  # type: ignore[no-untyped-def]
    """Every cell of the requested subtasks, kept of target, and the cells without candidates named."""
    from corpusbench.families.ltswap import cellview

    rows = cellview.run_rows(params, result.cells, result.quadruplets, result.funnel)
    rounds = len(result.manifest.get("rounds") or [1])
    console.print(cellview.table(rows, f"cells after {rounds} round(s)"))
    for line in cellview.no_candidates(rows):
        console.print(line, soft_wrap=True)
    if params.per_cell is not None:
        short = sum(1 for r in rows if r.note)
        console.print(f"{len(rows) - short} of {len(rows)} cells full; {short} short", soft_wrap=True)


def _say_failures(failures: int, budget: str | None) -> None:
    if failures:
        console.print(
            f"[bold yellow]warning:[/] {failures:,} LLM call(s) failed (allowed by --max-llm-failures "
            f"{budget}); their items are dropped as *_llm_error. Rerun the same command to retry them.",
            soft_wrap=True,
        )


def _judge_llm(
    stack: contextlib.ExitStack,
    llm_backend: str,
    model: str | None,
    base_url: str | None,
    cache: Path | None,
    log_dir: Path,
    batch_size: int,
    options: LLMOptions,
):  # type: ignore[no-untyped-def]
    from corpusbench.families.ltswap.session import open_run_llm

    return stack.enter_context(
        open_run_llm(
            backend=llm_backend,
            model=model,
            base_url=base_url,
            cache=cache or Path(".cache") / "llm.sqlite",
            log_dir=log_dir,
            batch_size=batch_size,
            say=make_console(stderr=True).print,
            options=options,
        )
    )


@ltswap_app.command("judge")
def judge_cmd(
    items: Path = typer.Argument(
        ...,
        help="Quadruplets, one JSON object a line: id, subtask, w1, w2, "
        "s1_good, s2_good, s1_bad, s2_bad[, judge_rule, context1, context2, tag1, tag2, lang].",
    ),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Verdicts as JSON lines: id, keep, filter_rule, threshold, margins, reason."
    ),
    filter_rule: str | None = FILTER_RULE,
    threshold: float | None = THRESHOLD,
    llm_backend: LLMBackend = DEFAULT_BACKEND,
    model: JudgeModel = None,
    base_url: JudgeBaseUrl = None,
    cache: LLMCache = None,
    nonce: str = typer.Option("blick", "--nonce", help="Nonce word of WordSwap's pairwise game."),
    batch_size: int = typer.Option(8, "--batch-size", help="transformers backend: prompts per batch."),
    llm_timeout: LLMTimeout = DEFAULT_TIMEOUT,
    llm_retries: LLMRetries = DEFAULT_RETRIES,
    llm_concurrency: LLMConcurrency = DEFAULT_CONCURRENCY,
    max_llm_failures: MaxLLMFailures = "0",
    api_key: LLMApiKey = None,
    trust_remote_code: TrustRemoteCode = False,
) -> None:
    """Run only the LT-Swap filter on given quadruplets (e.g. re-filter a release with a stronger judge)."""
    from corpusbench.families.ltswap.calibration import read_items
    from corpusbench.families.ltswap.judging import FilterRule, judge_items
    from corpusbench.io import write_jsonl

    rule = FilterRule(filter_rule or FilterRule().name, threshold)
    options = _llm_options(
        llm_timeout, llm_retries, max_llm_failures, api_key, trust_remote_code, llm_concurrency
    )
    parsed, _ = read_items(items)  # a bad line fails here, before any model is loaded
    with contextlib.ExitStack() as stack:
        from corpusbench.progress_llm import LLMProgress

        llm = _judge_llm(stack, llm_backend, model, base_url, cache, out.parent, batch_size, options)
        progress = stack.enter_context(LLMProgress(make_console(stderr=True), "ltswap judge"))
        stack.enter_context(progress.watch(llm))
        verdicts = judge_items(  # over the failure budget: raises, writes nothing
            llm, parsed, rule, nonce, lambda done, total: progress("judge", done, total)
        )
        describe = llm.describe()
        failures = llm.report.failures
    rows = [
        {
            "id": it.id,
            "keep": v.keep,
            "filter_rule": v.rule,
            "threshold": v.threshold,
            "margins": list(v.margins) if v.margins else None,
            "reason": v.reason,
        }
        for it, v in zip(parsed, verdicts, strict=True)
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(out, rows)
    kept = sum(r["keep"] for r in rows)
    console.print(
        f"{kept:,} of {len(rows):,} kept ({rule.name}, threshold {rule.threshold}; "
        f"judge {describe.get('model')}) → {out}"
    )
    _say_failures(failures, describe.get("max_failures"))


@ltswap_app.command("judge-check")
def judge_check_cmd(
    items: Path | None = typer.Option(
        None, "--items", help="Labelled items (default: the shipped calibration set)."
    ),
    filter_rules: list[str] = typer.Option(
        None,
        "--filter-rule",
        help="Rule(s) to measure (repeatable; default: all, lm only where the backend scores sentences).",
    ),
    threshold: float | None = THRESHOLD,
    llm_backend: LLMBackend = DEFAULT_BACKEND,
    model: JudgeModel = None,
    base_url: JudgeBaseUrl = None,
    cache: LLMCache = None,
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the figures as JSON."),
    batch_size: int = typer.Option(8, "--batch-size", help="transformers backend: prompts per batch."),
    per_subtask: int | None = typer.Option(
        None, "--per-subtask", help="Measure on a balanced subset: N valid and N invalid items per subtask."
    ),
    llm_timeout: LLMTimeout = DEFAULT_TIMEOUT,
    llm_retries: LLMRetries = DEFAULT_RETRIES,
    llm_concurrency: LLMConcurrency = DEFAULT_CONCURRENCY,
    max_llm_failures: MaxLLMFailures = "0",
    api_key: LLMApiKey = None,
    trust_remote_code: TrustRemoteCode = False,
) -> None:
    """Measure a judge on labelled quadruplets: accuracy, first-option rate, keep-precision, keep-recall."""
    from corpusbench.families.ltswap.calibration import (
        CALIBRATION_SET,
        LM_SWEEP,
        SWEEP,
        balanced_subset,
        read_items,
        score,
        threshold_sweep,
    )
    from corpusbench.families.ltswap.judging import RULES, FilterRule, judge_items
    from corpusbench.io import write_json

    src = items or CALIBRATION_SET
    options = _llm_options(
        llm_timeout, llm_retries, max_llm_failures, api_key, trust_remote_code, llm_concurrency
    )
    parsed, labels = read_items(src, labelled=True)
    if per_subtask is not None:
        parsed, labels = balanced_subset(parsed, labels, per_subtask)
    rules = [FilterRule(r, threshold) for r in (filter_rules or RULES)]
    report: dict = {"items": str(src), "n": len(parsed), "rules": {}}
    with contextlib.ExitStack() as stack:
        log_dir = out.parent if out else Path(".cache")
        llm = _judge_llm(stack, llm_backend, model, base_url, cache, log_dir, batch_size, options)
        report["llm"] = llm.describe()
        for rule in rules:
            try:
                verdicts = judge_items(llm, [_no_rule(it) for it in parsed], rule)
            except ConfigError as e:  # lm on a backend without sentence scores: skipped unless asked for
                if filter_rules or not rule.scored:
                    raise
                console.print(f"rule {rule.name} skipped: {e}")
                continue
            rows = score(parsed, labels, verdicts)
            report["rules"][rule.name] = {
                **rule.describe(),
                "scores": [r.as_dict() for r in rows],
                "threshold_sweep": threshold_sweep(labels, verdicts, LM_SWEEP if rule.scored else SWEEP),
                "items": [
                    {"id": it.id, "subtask": it.subtask, "label": lab, "keep": v.keep, "margins": v.margins}
                    for it, lab, v in zip(parsed, labels, verdicts, strict=True)
                ],
            }
            _print_scores(
                f"judge {report['llm'].get('model')} · rule {rule.name} (threshold {rule.threshold})", rows
            )
        _say_failures(llm.report.failures, report["llm"].get("max_failures"))
    if out is not None:
        write_json(out, report)
        console.print(f"figures → {out}")


def _no_rule(item):  # type: ignore[no-untyped-def]
    import dataclasses

    return dataclasses.replace(item, judge_rule=None)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def _print_scores(title: str, rows) -> None:  # type: ignore[no-untyped-def]
    table = Table(title=title)
    for c in ("subtask", "n", "valid", "accuracy", "first-option", "keep-precision", "keep-recall"):
        table.add_column(c, justify="left" if c == "subtask" else "right")
    for r in rows:
        table.add_row(
            r.subtask,
            str(r.n),
            str(r.valid),
            _pct(r.accuracy),
            _pct(r.first_option_rate),
            _pct(r.keep_precision),
            _pct(r.keep_recall),
        )
    console.print(table)


@ltswap_app.command("validity")
def validity_cmd(
    paths: list[Path] = typer.Argument(
        None, help="Labelled items (files or folders; default: the shipped set)."
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the report as JSON."),
) -> None:
    """The valid share of labelled kept items per source and subtask, with 95% Wilson intervals (#37)."""
    from corpusbench.families.ltswap.validity import (
        VALIDITY_DIR,
        read_labels,
        report_lines,
        validity_report,
    )
    from corpusbench.io import write_json

    report = validity_report(read_labels(paths or [VALIDITY_DIR]))
    console.print("\n".join(report_lines(report)))
    if out is not None:
        write_json(out, report)


@ltswap_app.command("audit")
def audit_cmd(
    run: Path = typer.Argument(..., help="An LT-Swap run folder (its <subtask>.parquet files)."),
) -> None:
    """Shortcuts and sameness of a run's kept items (no LLM): openings, length, target-blind rules (#37)."""
    import json

    from corpusbench.families.ltswap.item_audit import audit_items, read_run

    console.print(json.dumps(audit_items(read_run(run)), indent=1))
