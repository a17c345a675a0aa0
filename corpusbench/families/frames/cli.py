"""``corpusbench frames``: S-clusters from frames, and clustering evaluation against them.

``corpusbench frames build CORPUS --stats STATS --out DIR`` builds the S-clusters; ``frames split``
makes the held-out train/test split of a corpus folder. Clusterings are scored by ``corpusbench eval
clusters`` (``eval_clusters_cmd``, defined here).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console
from corpusbench.families.frames.records import FramesParams
from corpusbench.params import cli_params

console = make_console()


frames_app = typer.Typer(
    help="S-clusters from frames: `frames split` a corpus, `frames build` the S-clusters of its test part; "
    "score word clusterings against them with `corpusbench eval clusters`.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add ``corpusbench frames`` (build, split) to the app."""
    app.add_typer(frames_app, name="frames")


def register_eval(eval_app: typer.Typer) -> None:
    """Add ``corpusbench eval clusters`` to the ``eval`` group."""
    eval_app.command("clusters", help="Score word clusterings by substitutable precision/recall (frames).")(
        eval_clusters_cmd
    )


@frames_app.command("build")
@cli_params(FramesParams)  # --lang, --min-frame-count: declared once, in FramesParams
def build_cmd(
    corpus: str = typer.Argument(..., help="Test corpus: a text file or folder (any corpusbench reader)."),
    stats: Path = typer.Option(..., "--stats", help="Stats folder of the training corpus."),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder (written atomically)."),
    occurrences: bool = typer.Option(
        True, "--occurrences/--no-occurrences", help="Also write token positions (token-level eval)."
    ),
    params: FramesParams | None = None,
) -> None:
    """S-clusters (middle words of each frequent frame) of a test corpus over a training vocabulary."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from corpusbench.corpus.readers import CorpusSpec
    from corpusbench.families.frames.extract import generate_frames

    assert params is not None  # cli_params builds it from the options
    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console
    ) as bar:
        task = bar.add_task("frames", total=None)
        report = generate_frames(
            CorpusSpec(path=corpus),
            stats,
            out,
            params,
            with_occurrences=occurrences,
            progress=lambda stage, n: bar.update(task, description=f"{stage}: {n:,} sentences"),
        )
    table = Table("step", "count", title=f"frames → {out}")
    for k, v in report.funnel.items():
        table.add_row(k, f"{v:,}")
    console.print(table)


def eval_clusters_cmd(
    frames: Path = typer.Option(..., "--frames", help="Output folder of `corpusbench frames build`."),
    clustering: list[Path] = typer.Option(
        [],
        "--clustering",
        help="word<TAB>cluster / token_id<TAB>word<TAB>cluster (.tsv) or .json; repeatable.",
    ),
    frequent_frames: str | None = typer.Option(
        None, "--frequent-frames", help="Training corpus: add the Mintz (2003) frequent-frames baseline."
    ),
    n_frames: int = typer.Option(45, "--n-frames", help="Frames of the frequent-frames baseline."),
    model: Path | None = typer.Option(None, "--model", help="HF model folder: k-means over its embeddings."),
    clusters: list[int] = typer.Option([], "--clusters", "-k", help="K for k-means; repeat for a sweep."),
    embeddings: str = typer.Option("input", "--embeddings", help="input | contextual"),
    embed_corpus: str | None = typer.Option(
        None, "--embed-corpus", help="Sentences for contextual embeddings."
    ),
    max_sentences: int = typer.Option(
        2000, "--max-sentences", help="Sentences read for contextual embeddings."
    ),
    words_from: Path | None = typer.Option(
        None, "--words-from", help="Stats folder of the words to cluster (default: the frames' train vocab)."
    ),
    max_words: int = typer.Option(0, "--max-words", help="Cluster the N most frequent words (0: all)."),
    gold: Path | None = typer.Option(None, "--gold", help="Stats folder whose tags are the gold standard."),
    gold_level: str = typer.Option("pos", "--gold-level", help="pos (universal) | tag (fine)"),
    unclustered: str = typer.Option("both", "--unclustered", help="merge | split | both"),
    unit: str = typer.Option("token", "--unit", help="token (SP/SR over test tokens) | type (set reading)"),
    seed: int = typer.Option(0, "--seed"),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder for results.json and the plot."),
) -> None:
    """Substitutable precision/recall (and, with --gold, matched accuracy and pairwise P/R) of clusterings."""
    from corpusbench.errors import ConfigError
    from corpusbench.families.frames.sweep import ClusterEvalSpec, run_eval

    if embeddings not in ("input", "contextual"):
        raise ConfigError(f"--embeddings must be input or contextual (got {embeddings!r})")
    if gold_level not in ("pos", "tag"):
        raise ConfigError(f"--gold-level must be pos or tag (got {gold_level!r})")
    if unit not in ("token", "type"):
        raise ConfigError(f"--unit must be token or type (got {unit!r})")
    modes = {"both": ("merge", "split"), "merge": ("merge",), "split": ("split",)}.get(unclustered)
    if modes is None:
        raise ConfigError(f"--unclustered must be merge, split or both (got {unclustered!r})")
    spec = ClusterEvalSpec(
        frames=frames,
        clusterings=tuple(clustering),
        frequent_frames_corpus=frequent_frames,
        n_frames=n_frames,
        model=model,
        clusters=tuple(clusters),
        embeddings=embeddings,  # type: ignore[arg-type]
        embed_corpus=embed_corpus,
        max_sentences=max_sentences,
        words_from=words_from,
        max_words=max_words or None,
        gold=gold,
        gold_level=gold_level,  # type: ignore[arg-type]
        unclustered=modes,  # type: ignore[arg-type]
        unit=unit,  # type: ignore[arg-type]
        seed=seed,
    )
    with console.status("evaluating") as status:
        report = run_eval(spec, out, progress=lambda msg: status.update(msg))
    table = Table(
        "clustering", "unclust.", "K", "SP", "SR", "F", "MA", "PP", "PR", title="clustering evaluation"
    )
    for r in report.rows:
        g = r.gold
        table.add_row(
            r.name,
            r.unclustered,
            str(r.n_clusters),
            f"{r.substitutable.precision:.3g}",
            f"{r.substitutable.recall:.3g}",
            f"{r.substitutable.f:.3g}",
            *(
                (f"{g.matched_accuracy:.3f}", f"{g.pairwise_precision:.3f}", f"{g.pairwise_recall:.3f}")
                if g
                else ("",) * 3
            ),
        )
    console.print(table)
    for name, c in report.correlations.items():
        console.print(f"Spearman {name}: rho={c['rho']:.3f} (p={c['p']:.3g}, N={c['n']})")
    if out is not None:
        console.print(f"wrote {out}/results.json")


@frames_app.command("split")
def split_cmd(
    corpus: Path = typer.Argument(..., help="Corpus folder to split by file."),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder: train/, test/, split.json."),
    train_every: int = typer.Option(7, "--train-every", help="Every N-th file goes to train (1:N-1)."),
) -> None:
    """Split a corpus folder by file into train/ and test/ (held-out test corpus for S-clusters)."""
    from corpusbench.families.frames.split import split_files

    parts = split_files(corpus, out, train_every)
    console.print(f"{len(parts['train'])} train / {len(parts['test'])} test files → {out}")
