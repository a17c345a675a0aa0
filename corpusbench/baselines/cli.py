"""CLI: ``corpusbench baseline train`` (n-gram word/tag models) and ``corpusbench audit`` (shallow baselines
on a built release)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console

out = make_console()
baseline_app = typer.Typer(
    help="Shallow baselines trained on the benchmark's own corpus.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    """Add this component's commands to the ``corpusbench`` app."""
    app.add_typer(baseline_app, name="baseline")
    app.command("audit")(audit)


@baseline_app.command("train")
def train(
    corpus: str = typer.Argument(..., help="Corpus path (as for `corpusbench stats`)."),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Model folder (kind both: DIR/word and DIR/tag)."),
    order: int = typer.Option(5, "--order", "-n", help="n-gram order."),
    kind: str = typer.Option("word", "--kind", "-k", help="word, tag or both."),
    stats: Path | None = typer.Option(
        None, "--stats", help="Stats folder: take language and tagger from it."
    ),
    lang: str = typer.Option("en", "--lang", help="Language (when no --stats)."),
    tagger: str | None = typer.Option(None, "--tagger", help="nltk, spacy or hanta (when no --stats)."),
    discount: float | None = typer.Option(
        None, "--discount", help="One fixed KN discount for every order (default: estimated D1, D2, D3+)."
    ),
    reader: str = typer.Option("auto", "--reader", help="Corpus reader (as for stats)."),
) -> None:
    """Train interpolated Kneser-Ney n-gram models over words and/or POS tags of CORPUS."""
    from rich.progress import BarColumn, Progress, TextColumn

    from corpusbench.baselines.train import TrainParams, train_ngrams
    from corpusbench.corpus.readers import CorpusSpec
    from corpusbench.errors import ConfigError

    if kind not in ("word", "tag", "both"):
        raise ConfigError(f"--kind must be word, tag or both (got {kind!r})")
    outs = {"word": out_dir / "word", "tag": out_dir / "tag"} if kind == "both" else {kind: out_dir}
    params = TrainParams(order=order, lang=lang, tagger=tagger, discount=discount)
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed} docs")) as bar:
        task = bar.add_task("tagging", total=None)
        report = train_ngrams(
            CorpusSpec(path=corpus, reader=reader),
            outs,
            params,
            stats=stats,
            progress=lambda docs, _bytes: bar.update(task, completed=docs),
        )
    table = Table("kind", "folder", "types", title=f"{order}-gram KN models")
    for k, p in report.outs.items():
        table.add_row(k, str(p), str(report.types[k]))
    out.print(table)
    out.print(
        f"{report.sentences} sentences, {report.tokens} tokens; tagging {report.seconds_tagging:.1f}s, "
        f"counting {report.seconds_counting:.1f}s, peak RSS {report.peak_rss_mb:.0f} MB"
    )


def audit(
    release: Path = typer.Argument(..., help="A built release folder (releases/build/NAME/VERSION)."),
    spec: Path | None = typer.Option(None, "--spec", help="The release spec (to find the corpus paths)."),
    models: Path | None = typer.Option(
        None,
        "--models",
        help="Where baselines are trained/reused (default: RELEASE/../../.baselines, i.e. "
        "releases/build/.baselines, shared by every release built there).",
    ),
    order: int = typer.Option(5, "--order", "-n", help="n-gram order."),
    retrain: bool = typer.Option(False, "--retrain", help="Train even if matching models exist."),
    scoring: str = typer.Option("auto", "--scoring", help="auto (critical regions, as eval) or full."),
) -> None:
    """Audit RELEASE with shallow baselines: n-gram word/tag models and linear rules (audit.json + card)."""
    from corpusbench.baselines.audit import AuditParams, run_audit

    result = run_audit(
        release,
        AuditParams(order=order, retrain=retrain, scoring=scoring),
        spec=spec,
        models=models,
        say=out.print,
    )
    names = result["baselines"]
    table = Table("config", "n", *names, title="shallow baselines (accuracy; a tie: n-gram 0, rule 0.5)")
    ties = Table("config", *names, title="share of tied pairs (the baseline cannot tell the sentences apart)")
    for name, c in result["configs"].items():
        table.add_row(name, str(c["n"]), *(_cell(c["accuracy"][b], result["threshold"]) for b in names))
        ties.add_row(name, *(f"{c['ties'][b]:.0%}" if c["ties"].get(b) else "-" for b in names))
    out.print(table)
    out.print(ties)
    for kind, text in result["tie_conventions"].items():
        kinds = ", ".join(b for b, k in result["tie_convention"].items() if k == kind)
        out.print(f"ties, {kind}s ({kinds}): {text}", soft_wrap=True)
    out.print(f"wrote {release / 'audit.json'} and the card section in {release / 'README.md'}")


def _cell(acc: float | None, threshold: float) -> str:
    if acc is None:
        return "-"
    return f"[bold red]{acc:.3f}[/]" if acc > threshold else f"{acc:.3f}"


@baseline_app.command("gradient")
def gradient(
    data: Path = typer.Argument(..., help="Gradient judgments: csv/tsv/jsonl/parquet, one sentence per row."),
    model: str = typer.Option(..., "--model", "-m", help="ngram:DIR, or an HF model folder/id."),
    out_file: Path = typer.Option(..., "--out", "-o", help="Output JSON."),
    sentence_col: str = typer.Option("sentence", "--sentence-col"),
    type_col: str = typer.Option(
        "type", "--type-col", help="Sentence type id (sentences of one construction)."
    ),
    human_col: str = typer.Option("z", "--human-col", help="Human judgment, z-scored."),
) -> None:
    """LI-Adger style analysis: per-type mean and SD of z-scored model vs human judgments."""
    from corpusbench.baselines.gradient import gradient_analysis, load_judgments, model_measures
    from corpusbench.eval.scorers import open_scorer
    from corpusbench.eval.spec import NGRAM_SCHEME, EvalSpec
    from corpusbench.io import write_json
    from corpusbench.provenance import code_version, file_sha256

    df = load_judgments(data, sentence_col, type_col, human_col)
    scorer, provenance = open_scorer(EvalSpec(dataset=str(data), model=model, out=out_file))
    slor = None
    if model.startswith(NGRAM_SCHEME):
        from corpusbench.baselines.scoring import NgramScorer, parse_model_ref

        slor = NgramScorer(parse_model_ref(model[len(NGRAM_SCHEME) :])[0], "slor")
    result = gradient_analysis(df, model_measures(scorer, df["sentence"].tolist(), slor))
    result["provenance"] = {
        "data": str(data),
        "data_sha256": file_sha256(data),
        "model": provenance,
        "scorer": scorer.conventions(),
        "code": code_version(),
    }
    write_json(out_file, result)
    table = Table(
        "measure", "within-type SD", "r(type means)", "r(type SDs)", title=f"{result['n_types']} types"
    )
    table.add_row("human", f"{result['human']['mean_within_type_sd']:.3f}", "", "")
    for name, m in result["measures"].items():
        table.add_row(name, f"{m['mean_within_type_sd']:.3f}", _num(m["r_type_means"]), _num(m["r_type_sds"]))
    out.print(table)


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"
