"""``corpusbench eval`` (score a model on minimal pairs) and ``corpusbench eval report`` (compare runs)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console

console = make_console()
eval_app = typer.Typer(
    help="Evaluate models on minimal pairs.", no_args_is_help=False, invoke_without_command=True
)


def register(app: typer.Typer) -> None:
    from corpusbench.generators.frames.cli import eval_clusters_cmd

    eval_app.command("clusters", help="Score word clusterings by substitutable precision/recall (frames).")(
        eval_clusters_cmd
    )
    app.add_typer(eval_app, name="eval")


@contextmanager
def _progress() -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=make_console(stderr=True),
        transient=True,
    ) as bar:

        def factory(desc: str, total: int) -> Callable[[int], None]:
            task = bar.add_task(desc, total=total)
            return lambda n: bar.advance(task, n)

        yield factory


@eval_app.callback()
def eval_cmd(
    ctx: typer.Context,
    dataset: str = typer.Option(
        None,
        "--dataset",
        "-d",
        help="Pairs: file, folder, saved dataset or ORG/NAME[@rev]; or a `corpusbench cac` folder.",
    ),
    model: str = typer.Option(None, "--model", "-m", help="Model folder or Hub id (ID@revision allowed)."),
    out: Path = typer.Option(None, "--out", "-o", help="Output folder (written atomically)."),
    arch: str = typer.Option("auto", help="auto | causal | mlm | seq2seq"),
    device: str = typer.Option("cpu", help="cpu | cuda[:N]"),
    dtype: str = typer.Option("float32", help="float32 | bfloat16 | float16 (GPU)"),
    batch_tokens: int = typer.Option(2048, help="Token budget per forward batch."),
    configs: str = typer.Option("", help="Comma-separated configs to evaluate (default: all)."),
    group_col: str = typer.Option(
        None, help="Column for per-group accuracy (default: group/subtask/paradigm/UID)."
    ),
    bos: str = typer.Option("prepend", help="Causal first-token convention: prepend (score it) | none."),
    pll: str = typer.Option("within_word_l2r", help="Masked PLL: within_word_l2r | original."),
    scoring: str = typer.Option("auto", help="auto (critical-region spans where given) | full."),
    limit: int = typer.Option(
        None, help="At most this many pairs per config (CAC: first sites per dyad and role); smoke runs."
    ),
    context_utterances: int = typer.Option(
        None, help="CAC: at most this many earlier utterances as context (default: the whole session)."
    ),
    context_step: int = typer.Option(
        0,
        help="CAC, causal models: when a context must be cut to the window, cut this many tokens deeper "
        "and keep the cut for the next sites (KV cache reuse on long dialogues); 0 = exact cut per site.",
    ),
    trust_remote_code: bool = typer.Option(
        False, help="Allow model code from the Hub (only for models you trust)."
    ),
    share_prefixes: bool = typer.Option(
        True, help="Causal: run token prefixes shared by several sentences once (same scores, faster)."
    ),
) -> None:
    """Score a model on minimal pairs: results.json, scores.parquet, plots and summary.md in --out."""
    if ctx.invoked_subcommand is not None:
        return
    from corpusbench.errors import ConfigError
    from corpusbench.eval.runner import EvalSpec, run_eval

    missing = [n for n, v in (("--dataset", dataset), ("--model", model), ("--out", out)) if not v]
    if missing:
        raise ConfigError(f"corpusbench eval needs {', '.join(missing)}")
    if batch_tokens < 16:
        raise ConfigError(f"--batch-tokens must be at least 16, got {batch_tokens}")
    spec = EvalSpec(
        dataset=dataset,
        model=model,
        out=out,
        arch=arch,
        device=device,
        dtype=dtype,
        batch_tokens=batch_tokens,
        configs=tuple(c for c in configs.split(",") if c),
        group_col=group_col,
        bos=bos,
        pll=pll,
        scoring=scoring,
        limit=limit,
        context_utterances=context_utterances,
        context_step=context_step,
        trust_remote_code=trust_remote_code,
        share_prefixes=share_prefixes,
    )
    with _progress() as factory:
        report = run_eval(spec, progress=factory)
    console.print(f"{model}: {report.n_pairs} items, accuracy {report.accuracy:.4f}", soft_wrap=True)
    table = Table()
    table.add_column("config")
    table.add_column("accuracy", justify="right")
    for cfg, acc in report.per_config.items():
        table.add_row(cfg, "n/a" if acc is None else f"{acc:.4f}")
    console.print(table)
    console.print(f"wrote {report.out} in {report.seconds:.1f}s")


@eval_app.command("report")
def report_cmd(
    runs: list[Path] = typer.Argument(..., help="Eval output folders to compare."),
    out: Path = typer.Option(None, "--out", "-o", help="Also write the table as markdown here."),
) -> None:
    """Compare several eval runs in one table."""
    from corpusbench.eval.report import compare_runs
    from corpusbench.io import atomic_write

    cmp = compare_runs(runs)
    table = Table(title="corpusbench eval report")
    for col in ("model", "dataset", "accuracy", "macro", *cmp.configs):
        table.add_column(col)
    for r in cmp.rows:
        table.add_row(
            r["model"],
            r["dataset"],
            f"{r['accuracy']:.4f}",
            f"{r['accuracy_macro_configs']:.4f}",
            *["" if r["configs"].get(c) is None else f"{r['configs'][c]:.4f}" for c in cmp.configs],
        )
    console.print(table)
    for cfg, ratio in cmp.ltswap_spread_ratio.items():
        console.print(f"LT-Swap spread ratio [{cfg}]: {'n/a' if ratio is None else f'{ratio:.3f}'}")
    if out:
        with atomic_write(out) as fh:
            fh.write(cmp.markdown())
