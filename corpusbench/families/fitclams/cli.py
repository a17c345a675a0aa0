"""``corpusbench fitclams build``: frequency-informed agreement minimal pairs from one or more corpora.

``--llm-check`` asks an LLM, set with the shared ``--llm-*`` options (:mod:`corpusbench.llm.options`).
The options that are the family's parameters (``--lang``, ``--paradigms``, ``--nouns`` ...) are generated
from :class:`~corpusbench.families.fitclams.params.FitClamsParams`; the others are this run's arguments.
"""

from __future__ import annotations

from pathlib import Path

import typer

from corpusbench.errors import ConfigError
from corpusbench.families.fitclams.params import FitClamsParams
from corpusbench.families.fitclams.records import PARADIGMS
from corpusbench.llm.api import DEFAULT_BACKEND, DEFAULT_BASE_URL, DEFAULT_CACHE
from corpusbench.llm.options import LLMApiKey, LLMBackend, LLMBaseUrl, LLMModel, llm_spec
from corpusbench.params import cli_params

fitclams_app = typer.Typer(
    help="FIT-CLAMS: `fitclams build` makes subject-verb agreement minimal pairs from corpus frequencies.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(fitclams_app, name="fitclams")
    fitclams_app.command("build")(cli_params(FitClamsParams)(fitclams))


def _load_overrides(path: Path | None):  # type: ignore[no-untyped-def]
    from corpusbench.families.fitclams.lexicon import Overrides

    if path is None:
        return Overrides()
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{path}: cannot read the lexicon config ({e})") from None
    unknown = sorted(set(data) - {"preps", "rc_verbs", "complements"})
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {unknown}; allowed: preps, rc_verbs, complements")
    rc = data.get("rc_verbs")
    try:
        rc_pairs = (
            None
            if rc is None
            else tuple(tuple(str(x).split("/")) if isinstance(x, str) else tuple(x) for x in rc)
        )
        if rc_pairs and any(len(p) != 2 for p in rc_pairs):
            raise ValueError
    except (TypeError, ValueError):
        raise ConfigError(f"{path}: rc_verbs must be a list of 'sg/pl' strings or [sg, pl] pairs") from None
    preps = data.get("preps")
    return Overrides(
        preps=None if preps is None else tuple(str(p) for p in preps),
        rc_verbs=rc_pairs,
        complements=tuple(sorted((str(k), str(v)) for k, v in (data.get("complements") or {}).items())),
    )


def fitclams(
    corpus: list[str] = typer.Option(
        ...,
        "--corpus",
        "-c",
        help="NAME=PATH: a stats folder or a raw corpus; repeat "
        "for FIT-CLAMS-C/-W style sets over the shared vocabulary.",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder (replaced atomically)."),
    config: Path | None = typer.Option(
        None, "--config", help="YAML with preps, rc_verbs, complements overrides."
    ),
    llm_backend: LLMBackend = DEFAULT_BACKEND,
    llm_model: LLMModel = None,
    llm_base_url: LLMBaseUrl = DEFAULT_BASE_URL,
    llm_api_key: LLMApiKey = None,
    stats: Path | None = typer.Option(
        None,
        "--stats",
        help="Folder of the raw corpora's stats folders, STATS/NAME (default: OUT-stats); existing ones are "
        "reused.",
    ),
    workers: int = typer.Option(1, "--workers", "-w", help="Worker processes for computing stats."),
    tagger: str | None = typer.Option(
        None,
        "--tagger",
        help="Tagger for raw corpora (default: spacy for en/fr, "
        "hanta for de; nltk is faster for English but gives no lemmas/morphology).",
    ),
    params: FitClamsParams | None = None,
) -> None:
    """Generate FIT-CLAMS subject-verb agreement minimal pairs (7 CLAMS paradigms) from corpus frequencies."""
    import contextlib

    from rich.progress import Progress
    from rich.table import Table

    from corpusbench.console import make_console
    from corpusbench.families.fitclams.generator import (
        FitClamsSpec,
        ensure_stats,
        generate,
        parse_corpus_args,
    )

    assert params is not None  # cli_params builds it from the options
    lang = params.language
    assert lang is not None  # --lang is required
    sel = params.selection
    chosen = PARADIGMS if params.paradigms is None else tuple(params.paradigms)
    pairs = parse_corpus_args(corpus)
    FitClamsSpec(corpora=pairs, language=lang, selection=sel, paradigms=chosen)  # check options before work
    console = make_console(stderr=True)
    with contextlib.ExitStack() as stack:
        work = stats or out.with_name(f"{out.name}-stats")
        resolved = tuple(
            (n, ensure_stats(n, p, lang, work, tagger=tagger, workers=workers)) for n, p in pairs
        )
        spec = FitClamsSpec(
            corpora=resolved,
            language=lang,
            selection=sel,
            overrides=_load_overrides(config),
            paradigms=chosen,
        )
        judge = None
        if params.llm_check:  # long LLM work: the live display of LLM progress (a plain line in logs)
            from corpusbench.families.fitclams.llm_check import llm_judge
            from corpusbench.llm import open_llm
            from corpusbench.llm.records import FailureBudget
            from corpusbench.progress_llm import LLMProgress

            llm = stack.enter_context(  # a failed call stops the run (exit 3), never a silent "no veto"
                open_llm(
                    llm_spec(llm_backend, llm_model, llm_base_url, llm_api_key, DEFAULT_CACHE),
                    FailureBudget(),
                )
            )
            shown = stack.enter_context(LLMProgress(console, "fitclams --llm-check"))
            stack.enter_context(shown.watch(llm))
            judge = llm_judge(llm, shown)
            report = generate(spec, out, judge=judge, progress=shown)
        else:
            with Progress(console=console, transient=True) as bar:
                task = bar.add_task("fitclams", total=None)

                def progress(label: str, done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total, description=label)

                report = generate(spec, out, judge=judge, progress=progress)
    table = Table(title=f"FIT-CLAMS ({lang}) -> {out}")
    table.add_column("paradigm")
    for name in report.pair_counts:
        table.add_column(name, justify="right")
    for paradigm in spec.paradigms:
        table.add_row(paradigm, *(str(report.pair_counts[n][paradigm]) for n in report.pair_counts))
    table.add_row("total", *(str(sum(c.values())) for c in report.pair_counts.values()))
    make_console().print(table)
    for name, empty in report.empty_bins.items():
        for kind, b in empty.items():
            if b:
                console.print(f"[yellow]{name}: no usable {kind} in bin(s) {b}[/]")
    for note in report.notes:
        console.print(f"[yellow]{note}[/]")
