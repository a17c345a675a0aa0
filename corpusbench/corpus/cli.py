"""``corpusbench stats``: corpus statistics from the command line."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console
from corpusbench.corpus.readers import READERS
from corpusbench.errors import ConfigError

console = make_console()


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)


def stats(
    corpus: str = typer.Argument(
        ...,
        help="Text file or folder (.txt/.gz/.zst/.jsonl/.parquet/.cha), a saved HF "
        "dataset folder, or a Hub dataset id ORG/NAME.",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder (written atomically)."),
    lang: str = typer.Option("en", "--lang", help="Language: en, fr or de."),
    tagger: str | None = typer.Option(
        None,
        "--tagger",
        help="nltk (en), spacy (en/fr; lemmas and morphology) or "
        "hanta (de). Default: nltk for en, spacy for fr, hanta for de.",
    ),
    spacy_model: str | None = typer.Option(None, "--spacy-model", help="spaCy pipeline name to load."),
    workers: str | None = typer.Option(
        None,
        "--workers",
        "-w",
        help="Shards counted at once (identical output for any number), or 'auto': one per CPU when "
        "the corpus is large enough for the tagger to pay (see docs/scaling.md). "
        "Default: 1 locally, every CPU of the cluster on Ray.",
    ),
    executor: str = typer.Option(
        "local", "--executor", help="local (processes on this machine) or ray (tasks on a Ray cluster)."
    ),
    ray_address: str | None = typer.Option(
        None,
        "--ray-address",
        help="Ray cluster to join: auto (the one started with `ray start` here) or HOST:PORT. "
        "Default: RAY_ADDRESS if set, else a local Ray instance started for the run.",
    ),
    shard_mb: float = typer.Option(1.0, "--shard-mb", help="Corpus megabytes per shard (unit of work)."),
    reader: str = typer.Option("auto", "--reader", help=f"One of: {', '.join(READERS)}."),
    text_field: str = typer.Option("text", "--text-field", help="Text field of jsonl/parquet/dataset rows."),
    split: str = typer.Option("train", "--split", help="Dataset split (HF datasets)."),
    config: str | None = typer.Option(None, "--config", help="Dataset config name (Hub datasets)."),
    revision: str | None = typer.Option(None, "--revision", help="Dataset revision (Hub datasets)."),
    doc_unit: str = typer.Option(
        "auto",
        "--doc-unit",
        help="Text files: 'line' (one document per line), 'paragraph' (blank-line separated) or "
        "'auto' (paragraph when the text is hard-wrapped, like a Gutenberg book; else line).",
    ),
    encoding: str = typer.Option("utf-8", "--encoding", help="Text encoding of the corpus files."),
    max_line_bytes: int = typer.Option(1_000_000, "--max-line-bytes", help="Longest accepted line."),
    contexts: int = typer.Option(2, "--contexts-per-form", help="Context sentences kept per noun/verb form."),
    limit: int | None = typer.Option(None, "--limit", help="Read only the first N documents."),
) -> None:
    """Tokenise, tag in context and count a corpus: per-(form, POS) counts, vocabulary, contexts."""
    from dataclasses import replace

    from corpusbench.corpus.progress import StatsProgress
    from corpusbench.corpus.readers import CorpusSpec, resolve_reader
    from corpusbench.corpus.stats import StatsParams, choose_workers, compute_stats
    from corpusbench.corpus.taggers import check_tagger

    spec = CorpusSpec(
        path=corpus,
        reader=reader,
        text_field=text_field,
        split=split,
        config=config,
        revision=revision,
        encoding=encoding,
        doc_unit=doc_unit,
        max_line_bytes=max_line_bytes,
        limit=limit,
    )
    n_workers: int | str = 0 if executor == "ray" else 1
    if workers is not None:
        if workers != "auto" and not workers.isdigit():
            raise ConfigError(f"--workers must be a number or 'auto' (got {workers!r})")
        n_workers = workers if workers == "auto" else int(workers)
    params = StatsParams(
        lang=lang,
        tagger=tagger,
        spacy_model=spacy_model,
        workers=n_workers,
        max_contexts=contexts,
        shard_bytes=max(1, int(shard_mb * 1_000_000)),
        executor=executor,
        ray_address=ray_address,
    )
    check_tagger(params.tagger, params.lang)  # fail before the progress bar starts
    resolve_reader(spec)
    err = make_console(stderr=True)
    if n_workers == "auto":
        n, why = choose_workers(spec, executor, check_tagger(params.tagger, params.lang), params.shard_bytes)
        err.print(f"--workers auto: {n or 'every CPU of the cluster'} ({why})")
        params = replace(params, workers=n)
    with StatsProgress(err) as bar:
        report = compute_stats(spec, out, params, progress=bar.update, on_total=bar.total)
    table = Table(title=f"corpus statistics → {report.out}", show_header=True)
    table.add_column("measure")
    table.add_column("value", justify="right")
    m = report.manifest
    rows = [
        ("corpus", corpus),
        ("fingerprint", m["corpus"]["fingerprint"]["sha256"][:16]),
        (
            "tagger",
            f"{m['tagger']['name']} ({m['tagger'].get('pipeline') or m['tagger'].get('implementation', '')})",
        ),
        ("documents", f"{report.documents:,}"),
        ("sentences", f"{report.sentences:,}"),
        ("tokens", f"{report.tokens:,}"),
        ("types (vocabulary)", f"{report.types:,}"),
        ("noun/verb forms with contexts", f"{report.candidates:,}"),
        (
            "time",
            f"{report.seconds:.1f} s ({report.words_per_second:,.0f} words/s, "
            f"{report.workers} {report.executor} worker(s))",
        ),
    ]
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)
    unit = m["corpus"]["doc_unit"]
    if m["corpus"]["reader"] in ("text", "files"):
        override = " (--doc-unit line|paragraph to override)" if unit["chosen_by"] == "auto" else ""
        console.print(f"one document per {unit['unit']} ({unit['chosen_by']}: {unit['reason']}){override}")
    _print_family_views(report.out)


def _print_family_views(out: Path) -> None:
    """What each family shows of the stats folder (its ``stats_view``): the forms it will draw from."""
    from corpusbench.family import families, load

    for family in families.all():
        if family.stats_view is not None and (view := load(family.stats_view)(out)) is not None:
            console.print(view)
