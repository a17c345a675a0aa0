"""``corpusbench eval run`` (score a model on a release or minimal pairs), ``eval clusters`` and
``corpusbench compare`` (compare runs).

The families' words in the help texts (``EvalKind.help``, ``OutputFolder.help``, ``Family.scored_by``) and
their options of ``eval run`` (``EvalKind.run_options``) are read from the registered families by
:func:`register`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from corpusbench.console import make_console
from corpusbench.family import families, load

console = make_console()

eval_app = typer.Typer(no_args_is_help=True)

# options whose help names the families' parts: written by register()
_DATASET = typer.Option(None, "--dataset", "-d")
_SCORING = typer.Option("auto")
_LIMIT = typer.Option(None)
_BOOT = typer.Option(2000)


def _and(items: list[str]) -> str:
    """``a, b and c``."""
    return " and ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else "".join(items)


def eval_help() -> str:
    """The ``eval`` group's help: what ``eval run`` scores, family by family, and the families' own
    ``eval`` commands (``Family.scored_by``)."""
    scored = [
        f"{f.title} ({f.eval.help.score})" if f.eval.help.score else f.title for f in families.with_eval()
    ]
    own = "".join(
        f"`{f.scored_by.command}` scores {f.scored_by.what}; "
        for f in families.all()
        if f.scored_by is not None
    )
    return (
        "Evaluate models on corpusbench releases and minimal pairs.\n\n"
        "`corpusbench eval run --dataset RELEASE --model M` scores every config of a release with its task: "
        f"{_and(['minimal pairs (BLiMP-style)', *scored])}; configs it does not score are listed as skipped. "
        f"{own}`corpusbench compare` compares runs (the papers' tables and figures)."
    )


def _dataset_help() -> str:
    folders = "".join(
        f"; or {f.output.help}" for f in families.all() if f.output is not None and f.output.help
    )
    return (
        "A release (build folder, its eval/corpusbench.yaml, ORG/NAME[@rev]); pairs file, folder or "
        f"saved dataset{folders}."
    )


def _scoring_help() -> str:
    regions = ", ".join(f"{f.title} {f.eval.help.region}" for f in families.with_eval() if f.eval.help.region)
    where = f" ({regions})" if regions else ""
    return f"auto: the critical region where the data gives one{where} | full: sentences."


def _limit_help() -> str:
    own = "".join(f"; {f.title}: {f.eval.help.limit}" for f in families.with_eval() if f.eval.help.limit)
    return (
        "At most this many pairs per config: a seeded sample stratified over group × bin (see "
        f"--limit-mode){own}. For quick runs."
    )


def _boot_help() -> str:
    figures = _and([f"{f.title} figure" for f in families.with_eval() if f.eval.help.boot]) or "figures"
    return f"Bootstrap resamples of the {figures} (tables: Wilson/MOVER)."


def run_options_type() -> type:
    """One dataclass of the registered families' ``eval run`` options (their ``run_options`` fields, by
    rank): ``eval run``'s options are generated from it (:func:`corpusbench.params.cli_params`)."""
    from corpusbench.errors import ConfigError
    from corpusbench.eval.spec import run_option_types
    from corpusbench.params import declared

    fields: dict[str, tuple[str, Any, Any]] = {}
    for cls in run_option_types():
        for f, hint in declared(cls):
            if f.name in fields:
                raise ConfigError(f"eval run option {f.name!r} is declared twice ({cls.__qualname__})")
            fields[f.name] = (f.name, hint, dataclasses.field(default=f.default, metadata=f.metadata))
    return dataclasses.make_dataclass("EvalRunOptions", list(fields.values()), frozen=True, kw_only=True)


def register(app: typer.Typer) -> None:
    from corpusbench.params import cli_params

    for option, text in ((_DATASET, _dataset_help()), (_SCORING, _scoring_help()), (_LIMIT, _limit_help())):
        option.help = text
    _BOOT.help = _boot_help()
    eval_app.command("run")(cli_params(run_options_type(), name="options")(run_cmd))
    for family in families.all():  # the families' own ``eval`` subcommands (``Family.eval_cli``)
        if family.eval_cli is not None:
            load(family.eval_cli)(eval_app)
    app.add_typer(eval_app, name="eval", help=eval_help())
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


def run_cmd(
    dataset_arg: str = typer.Argument(
        None, metavar="[DATASET]", help="Same as --dataset (e.g. a release's eval/corpusbench.yaml)."
    ),
    dataset: str = _DATASET,
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
    scoring: str = _SCORING,
    limit: int = _LIMIT,
    limit_mode: str = typer.Option("stratified", help="--limit sample: stratified | first (the first rows)."),
    seed: int = typer.Option(0, help="Seed of the --limit sample."),
    options: Any = None,  # the families' options (``EvalKind.run_options``), generated by register()
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
        if limit is not None and limit < 1:
            raise ConfigError(f"--limit must be at least 1, got {limit}")
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
            options=dataclasses.asdict(options),  # each family checks its own
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
        for family in families.with_eval():  # the configs a family scores itself (``EvalKind.rows``)
            if family.eval.rows is not None and (block := report.benchmarks.get(family.name)):
                for cfg, score in load(family.eval.rows)(block).items():
                    table.add_row(cfg, "n/a" if score is None else f"{score:.4f}")
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
    boot: int = _BOOT,
    seed: int = typer.Option(0, help="Bootstrap seed."),
) -> None:
    """The papers' comparison table (rows models; each family's scores and columns), Wilson/MOVER 95%
    intervals, Spearman averaged across models, spread ratio and figures."""
    from corpusbench.eval.compare import write_comparison

    written = write_comparison(runs, out, n_boot=boot, seed=seed)
    console.print((out / "compare.md").read_text(encoding="utf-8"), soft_wrap=True, markup=False)
    console.print(f"wrote {', '.join(written)} in {out}")
