"""``corpusbench cac build``: CAC sites and human statistics from dialogue; ``cac productivity``: Yang's test.

``corpusbench cac build CHAT... --out DIR`` is the command; its options other than ``--out`` are made
from :class:`~corpusbench.families.cac.params.CacParams`, the family's parameters declared once.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console
from corpusbench.families.cac.params import CacParams
from corpusbench.params import cli_params

console = make_console()


cac_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="CAC (Contextual Alternative Choice): `cac build` extracts determiner sites from dialogue and "
    "computes the human statistics; `cac productivity` is Yang's productivity test.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(cac_app, name="cac")


def build(
    inputs: list[Path] = typer.Argument(
        ...,
        help="CHAT files or folders (*.cha), or dialogue tables "
        "(.jsonl/.csv/.tsv/.parquet) with session, speaker, utterance columns.",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder (written atomically)."),
    params: CacParams | None = None,
) -> None:
    """Extract CAC sites from dialogue and compute the human overlap/TPR statistics and tests."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from corpusbench.errors import option_names
    from corpusbench.families.cac.params import run_config
    from corpusbench.families.cac.pipeline import run_cac
    from corpusbench.io import check_folder_path

    assert params is not None  # cli_params builds it from the options
    p = params
    check_folder_path(out)  # a file in the way: say so before the parsing, not after
    with option_names():
        config = run_config(p)
    err = make_console(stderr=True)
    with Progress(
        TextColumn("[bold]cac[/]"),
        BarColumn(bar_width=None),
        MofNCompleteColumn(),
        TextColumn("utterances"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as bar:
        task = bar.add_task("cac", total=None)
        result = run_cac(
            inputs, out, config, progress=lambda done, total: bar.update(task, completed=done, total=total)
        )
    _print_result(result)


cac_app.command("build")(cli_params(CacParams)(build))


def _f(x: float, nd: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def _print_result(result) -> None:
    table = Table(title=f"CAC human statistics → {result.out}")
    for col in ("dyad", "role", "N", "S", "bias", "overlap", "predicted", "n TPR", "TPR"):
        table.add_column(col, justify="left" if col in {"dyad", "role"} else "right")
    for s in result.stats:
        table.add_row(
            s.dyad,
            s.role,
            str(s.n_types),
            str(s.n_tokens),
            _f(s.bias),
            _f(s.overlap),
            _f(s.predicted_overlap),
            str(s.n_tpr),
            _f(s.tpr),
        )
    console.print(table)
    if not any(t.p_value == t.p_value for t in result.tests):  # all NaN: nothing computed
        for note in result.notes:
            console.print(f"[yellow]note:[/] {note}")
        return _print_funnel(result)
    tests = Table(title="tests across dyads (pass = p > alpha)")
    for col in ("test", "role", "n", "t", "p", "pass", "note"):
        tests.add_column(col)
    for t in result.tests:
        tests.add_row(
            t.name,
            t.role,
            str(t.n),
            _f(t.statistic),
            _f(t.p_value),
            "–" if t.passed is None else ("yes" if t.passed else "no"),
            t.note,
        )
    console.print(tests)
    for note in result.notes:
        console.print(f"[yellow]note:[/] {note}")
    _print_funnel(result)


def _print_funnel(result) -> None:
    console.print(
        f"{len(result.sites)} sites; funnel: " + ", ".join(f"{k}={v}" for k, v in result.counters.items())
    )


@cac_app.command("productivity")
def productivity(
    types: int = typer.Option(..., "--types", "-N", help="Number of noun types N."),
    tokens: int = typer.Option(..., "--tokens", "-S", help="Number of D×N tokens S."),
    bias: float = typer.Option(
        ...,
        "--bias",
        "-b",
        help="Determiner bias b (Eq 1), in [0, 1]; b and 1 - b give the same overlap (Eq 1 gives b >= 0.5).",
    ),
    zipf_exponent: float = typer.Option(1.0, "--zipf-exponent", help="Zipf exponent a (the paper uses 1)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON object instead."),
) -> None:
    """Yang's (2013) expected overlap of a productive grammar for your own N, S and bias.

    The last line printed is the predicted overlap alone (or the JSON object with --json).
    """
    from corpusbench.errors import ConfigError
    from corpusbench.families.cac.stats import yang_predicted_overlap

    if types < 1 or tokens < 1:
        raise ConfigError("--types and --tokens must be >= 1")
    if not 0.0 <= bias <= 1.0:
        raise ConfigError(f"--bias must be in [0, 1], got {bias}")
    value = yang_predicted_overlap(types, tokens, bias, zipf_exponent)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "types": types,
                    "tokens": tokens,
                    "bias": bias,
                    "zipf_exponent": zipf_exponent,
                    "predicted_overlap": value,
                }
            )
        )
    else:
        typer.echo(f"{value:.6f}")
