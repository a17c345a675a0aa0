"""``corpusbench ltswap``: LT-Swap quadruplets (WordSwap, InflectionSwap, AgreementSwap) from a corpus."""

from __future__ import annotations

import contextlib
from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console

console = make_console()


def register(app: typer.Typer) -> None:
    app.command("ltswap")(ltswap)


def _csv(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


def ltswap(
    corpus: str = typer.Argument(..., help="The corpus (anything `corpusbench stats` reads)."),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder: <subtask>.parquet, funnel, manifest."),
    stats: Path | None = typer.Option(
        None, "--stats", help="A stats folder of CORPUS (default: OUT/stats, computed if missing or stale)."
    ),
    llm_backend: str = typer.Option(
        "transformers",
        "--llm-backend",
        help="transformers (local, default), "
        "vllm-server (at --base-url, or one started for the run without --base-url), openai, vllm-engine.",
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        help="Model folder / hub id, or the served name (default: SmolLM2-135M-Instruct).",
    ),
    base_url: str | None = typer.Option(None, "--base-url", help="Server URL for vllm-server/openai."),
    cache: Path | None = typer.Option(
        None, "--cache", help="LLM result cache (default OUT/llm-cache.sqlite); a killed run resumes from it."
    ),
    max_per_bin: int = typer.Option(
        200,
        "--max-per-bin",
        help="Words per (bin, tag); inflection pairs per (bin, POS); agreement noun pairs per bin.",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of every sampling step."),
    lang: str = typer.Option("en", "--lang", help="Corpus language: en (all subtasks), fr or de (WordSwap)."),
    subtasks: str | None = typer.Option(
        None, "--subtasks", help="Comma-separated: wordswap,inflswap,agrswap."
    ),
    rules: str | None = typer.Option(
        None, "--rules", help="AgreementSwap rules: SVSHORT,SVLONG,ANAPHORSHORT,ANAPHORLONG,DET."
    ),
    pairs_per_word: int = typer.Option(1, "--pairs-per-word", help="WordSwap quadruplets per word at most."),
    agreement_samples: int = typer.Option(2, "--agreement-samples", help="Samples per (noun pair, rule)."),
    max_tokens: int = typer.Option(96, "--max-tokens", help="Generation budget per sentence."),
    pos_check: bool = typer.Option(
        True,
        "--pos-check/--no-pos-check",
        help="Tag generated sentences and drop targets used as another part of speech.",
    ),
    confirm: bool = typer.Option(
        True,
        "--confirm-inflections/--no-confirm-inflections",
        help="Ask the LLM whether each inflection pair is one lemma before generating (paper: yes).",
    ),
    llm_filter: bool = typer.Option(
        True,
        "--llm-filter/--no-llm-filter",
        help="Judge each quadruplet with 4 LLM prompts (paper: yes); off keeps all checked drafts unjudged.",
    ),
    batch_size: int = typer.Option(8, "--batch-size", help="transformers backend: prompts per batch."),
    workers: int = typer.Option(1, "--workers", "-w", help="Workers for the stats step."),
) -> None:
    """Generate LT-Swap quadruplets for the rare words of CORPUS (paper §2, Appendices A, C, D)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from corpusbench.generators.ltswap.pipeline import LtswapParams, run_ltswap

    params = LtswapParams(
        lang=lang,
        seed=seed,
        max_per_bin=max_per_bin,
        pairs_per_word=pairs_per_word,
        agreement_samples=agreement_samples,
        max_tokens=max_tokens,
        check_pos=pos_check,
        confirm_inflections=confirm,
        llm_filter=llm_filter,
        **{k: v for k, v in (("subtasks", _csv(subtasks)), ("rules", _csv(rules))) if v},
    )
    from corpusbench.generators.ltswap.session import corpus_stats, open_run_llm

    err = make_console(stderr=True)
    st = corpus_stats(corpus, stats, out, lang, workers, say=console.print)
    columns = (
        TextColumn("[bold]{task.description:<10}[/]"),
        BarColumn(bar_width=None),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with contextlib.ExitStack() as stack:
        llm = stack.enter_context(
            open_run_llm(
                backend=llm_backend,
                model=model,
                base_url=base_url,
                cache=cache or out / "llm-cache.sqlite",
                log_dir=out,
                batch_size=batch_size,
                say=err.print,
            )
        )
        bar = stack.enter_context(
            Progress(*columns, console=err, transient=True, disable=not err.is_terminal)
        )
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        result = run_ltswap(st, llm, params, out, progress)
    _print(result)


def _print(result) -> None:  # type: ignore[no-untyped-def]
    from corpusbench.generators.ltswap.funnel import STAGES, empty_reason
    from corpusbench.generators.ltswap.records import SUBTASKS

    # One row per stage, one column per subtask: a funnel reads top to bottom and fits 80 columns.
    table = Table("stage", *SUBTASKS, title=f"LT-Swap funnel → {result.out}")
    for col in table.columns[1:]:
        col.justify = "right"
    totals = {sub: result.funnel.totals(sub) for sub in SUBTASKS}
    for s in STAGES:
        table.add_row(s, *(f"{totals[sub][s]:,}" for sub in SUBTASKS))
    console.print(table)
    for sub in SUBTASKS:
        if not result.quadruplets[sub]:
            why = empty_reason(result.funnel.totals(sub), result.funnel.reason_totals(sub))
            console.print(f"{sub}: [bold yellow]no quadruplets[/]: {why}", soft_wrap=True)
            continue
        reasons = ", ".join(f"{r} {n:,}" for r, n in list(result.funnel.reason_totals(sub).items())[:4])
        console.print(f"{sub}: drops: {reasons or 'none'}", soft_wrap=True)
    rep = result.manifest.get("llm_report") or {}
    console.print(
        f"LLM: {rep.get('calls', 0):,} calls, {rep.get('cache_hits', 0):,} cache hits, "
        f"{rep.get('failures', 0):,} failures; {result.manifest['seconds']} s"
    )
