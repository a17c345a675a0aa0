"""``corpusbench eval run`` (score a model on a release or minimal pairs), ``eval clusters`` and
``corpusbench compare`` (compare runs)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console

console = make_console()
EVAL_HELP = (
    "Evaluate models on corpusbench releases and minimal pairs.\n\n"
    "`corpusbench eval run --dataset RELEASE --model M` scores every config of a release with its task: "
    "minimal pairs (BLiMP-style), LT-Swap (score = mean of bin × subtask accuracies), FIT-CLAMS (mean over "
    "paradigms, per frequency bin, ΔP OLS) and CAC (determiner choice); configs it does not score are "
    "listed as skipped. `eval clusters` scores frames S-clusters; `corpusbench compare` compares runs "
    "(the papers' tables and figures)."
)


eval_app = typer.Typer(help=EVAL_HELP, no_args_is_help=True)


def register(app: typer.Typer) -> None:
    from corpusbench.family import families, load

    for family in families.all():  # the families' own ``eval`` subcommands (``Family.eval_cli``)
        if family.eval_cli is not None:
            load(family.eval_cli)(eval_app)
    app.add_typer(eval_app, name="eval")
    app.command("compare", help="Compare eval runs: the papers' table (Markdown + CSV), CIs, figures.")(
        compare_cmd
    )


@contextmanager
def _progress() -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=make_console(stderr=True),
        transient=True,
    ) as bar:

        def factory(desc: str, total: int) -> Callable[[int], None]:
            task = bar.add_task(desc, total=total)
            return lambda n: bar.advance(task, n)

        yield factory


@eval_app.command("run")
def run_cmd(
    dataset_arg: str = typer.Argument(
        None, metavar="[DATASET]", help="Same as --dataset (e.g. a release's eval/corpusbench.yaml)."
    ),
    dataset: str = typer.Option(
        None,
        "--dataset",
        "-d",
        help="A release (build folder, its eval/corpusbench.yaml, ORG/NAME[@rev]); pairs file, folder or "
        "saved dataset; or a `corpusbench cac` folder.",
    ),
    model: str = typer.Option(
        None, "--model", "-m", help="Model folder, Hub id (ID@revision allowed) or ngram:BASELINE_DIR."
    ),
    out: Path = typer.Option(
        None, "--out", "-o", help="Output folder, written atomically (default: eval-results/<model>)."
    ),
    arch: str = typer.Option("auto", help="auto | causal | mlm | seq2seq"),
    device: str = typer.Option("cpu", help="cpu | cuda[:N]"),
    dtype: str = typer.Option(
        "auto", help="auto (bfloat16 on a GPU that has it, else float32) | float32 | bfloat16 | float16 (GPU)"
    ),
    batch_tokens: str = typer.Option(
        "auto", help="Token budget per forward batch: auto (2048 on CPU, sized to a GPU's free memory) or N."
    ),
    configs: str = typer.Option("", help="Comma-separated configs to evaluate (default: all)."),
    group_col: str = typer.Option(
        None, help="Plain pairs data: column for per-group accuracy (default: group/subtask/paradigm/UID)."
    ),
    bos: str = typer.Option("prepend", help="Causal first-token convention: prepend (score it) | none."),
    pll: str = typer.Option("within_word_l2r", help="Masked PLL: within_word_l2r | original."),
    scoring: str = typer.Option(
        "auto", help="auto: the critical region where the data gives one (FIT-CLAMS verb) | full: sentences."
    ),
    limit: int = typer.Option(
        None,
        help="At most this many pairs per config: a seeded sample stratified over group × bin (see "
        "--limit-mode); CAC: sites per dyad and role, contexts cut to 1024 tokens. For quick runs.",
    ),
    limit_mode: str = typer.Option("stratified", help="--limit sample: stratified | first (the first rows)."),
    seed: int = typer.Option(0, help="Seed of the --limit sample."),
    train_corpus: str = typer.Option(
        None, help="FIT-CLAMS: the release corpus the model was trained on (its bins and counts are used)."
    ),
    context_utterances: int = typer.Option(
        None, help="CAC: at most this many earlier utterances as context (default: the whole session)."
    ),
    context_step: int = typer.Option(
        None,
        help="CAC, causal models: when a context must be cut to the window, cut this many tokens deeper "
        "and keep the cut for the next sites (KV cache reuse on long dialogues); 0 = exact cut per site "
        "(default; 500 with the quick --limit window).",
    ),
    context_tokens: int = typer.Option(
        None,
        help="CAC: cut each context to this many tokens (0 = the model's whole window, the paper's setting). "
        "Default: the whole window, or 1024 with --limit (a quick run, measured in docs/evaluation.md).",
    ),
    trust_remote_code: bool = typer.Option(
        False, help="Allow model code from the Hub (only for models you trust)."
    ),
    share_prefixes: bool = typer.Option(
        True, help="Causal: run token prefixes shared by several sentences once (same scores, faster)."
    ),
    verify: bool = typer.Option(
        True,
        help="A local release: check each scored config's files against provenance.json first "
        "(--no-verify scores them as they are; results.json records it).",
    ),
) -> None:
    """Score a model on a release or on minimal pairs: results.json (with `benchmarks`), scores.parquet,
    plots and summary.md in --out."""
    import time

    from corpusbench.eval.timing import StageClock, fewer_collections, timing_line

    with fewer_collections():  # a run's heap is mostly torch and transformers: collect it less
        start = time.perf_counter()
        from corpusbench.errors import ConfigError
        from corpusbench.eval.runner import run_eval
        from corpusbench.eval.spec import EvalSpec, default_out

        clock = StageClock()
        clock.add("import", time.perf_counter() - start)

        if dataset_arg and dataset and dataset_arg != dataset:
            raise ConfigError(f"give the dataset once (got {dataset_arg!r} and --dataset {dataset!r})")
        dataset = dataset or dataset_arg
        missing = [n for n, v in (("--dataset", dataset), ("--model", model)) if not v]
        if missing:
            raise ConfigError(f"corpusbench eval run needs {', '.join(missing)}")
        budget = None if batch_tokens == "auto" else int(batch_tokens) if batch_tokens.isdigit() else -1
        if budget is not None and budget < 16:
            raise ConfigError(f"--batch-tokens must be auto or at least 16, got {batch_tokens}")
        for name, value in (("--limit", limit), ("--context-utterances", context_utterances)):
            if value is not None and value < 1:
                raise ConfigError(f"{name} must be at least 1, got {value}")
        spec = EvalSpec(
            dataset=dataset,
            model=model,
            out=out or default_out(model),
            arch=arch,
            device=device,
            dtype=dtype,
            batch_tokens=budget,
            configs=tuple(c for c in configs.split(",") if c),
            group_col=group_col,
            bos=bos,
            pll=pll,
            scoring=scoring,
            limit=limit,
            limit_mode=limit_mode,
            seed=seed,
            train_corpus=train_corpus,
            context_utterances=context_utterances,
            context_step=context_step,
            context_tokens=context_tokens,
            trust_remote_code=trust_remote_code,
            share_prefixes=share_prefixes,
            verify=verify,
        )
        with _progress() as factory:
            report = run_eval(spec, progress=factory, clock=clock)
        acc = "n/a" if report.accuracy is None else f"{report.accuracy:.4f}"
        console.print(
            f"{model}: {report.n_pairs} items, accuracy {acc}, ties {report.n_ties}", soft_wrap=True
        )
        for line in report.headline():  # each score with its ties (count, share, ties counted as half)
            console.print(line, soft_wrap=True)
        table = Table()
        table.add_column("config")
        table.add_column("accuracy", justify="right")
        table.add_column("ties (not wins)")
        for cfg, acc_ in report.per_config.items():
            table.add_row(cfg, "n/a" if acc_ is None else f"{acc_:.4f}", report.per_config_ties.get(cfg, ""))
        for cfg, res in (report.benchmarks.get("cac") or {}).get("configs", {}).items():
            table.add_row(cfg, "n/a" if res.get("score") is None else f"{res['score']:.4f}")
        for cfg, why in report.skipped.items():
            table.add_row(cfg, f"skipped: {why}")
        console.print(table)
        console.print(f"time: {timing_line(report.timing)}", soft_wrap=True)
        console.print(f"wrote {report.out} in {report.seconds:.1f}s")
        from corpusbench.eval import fast_exit

        fast_exit.allow()  # everything is written: skip the interpreter's teardown of torch (seconds)


def compare_cmd(
    runs: list[Path] = typer.Argument(..., help="Eval output folders (`corpusbench eval run --out`)."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for compare.md, compare.csv and figures."),
    boot: int = typer.Option(2000, help="Bootstrap resamples of the CAC figure (tables: Wilson/MOVER)."),
    seed: int = typer.Option(0, help="Bootstrap seed."),
) -> None:
    """The papers' comparison table (rows models; benchmark scores, LT-Swap subtasks and bins, FIT-CLAMS
    paradigms, CAC), Wilson/MOVER 95% intervals, Spearman averaged across models, spread ratio and figures."""
    from corpusbench.eval.compare import write_comparison

    written = write_comparison(runs, out, n_boot=boot, seed=seed)
    console.print((out / "compare.md").read_text(encoding="utf-8"), soft_wrap=True, markup=False)
    console.print(f"wrote {', '.join(written)} in {out}")
