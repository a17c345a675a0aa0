"""``corpusbench cac build``: CAC sites and human statistics from dialogue; ``cac productivity``: Yang's test.

``corpusbench cac build CHAT... --out DIR`` is the command.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console
from corpusbench.corpus.readers import MAX_LINE_BYTES

console = make_console()


cac_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="CAC (Contextual Alternative Choice): `cac build` extracts determiner sites from dialogue and "
    "computes the human statistics; `cac productivity` is Yang's productivity test.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(cac_app, name="cac")


def _codes(value: str, what: str) -> tuple[str, ...]:
    from corpusbench.errors import ConfigError

    codes = tuple(c.strip() for c in value.split(",") if c.strip())
    if not codes:
        raise ConfigError(f"{what}: give at least one speaker code")
    return codes


def build(
    inputs: list[Path] = typer.Argument(
        ...,
        help="CHAT files or folders (*.cha), or dialogue tables "
        "(.jsonl/.csv/.tsv/.parquet) with session, speaker, utterance columns.",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder (written atomically)."),
    child: str = typer.Option(
        "CHI", "--child", help="Speaker code(s) of the target speaker (comma-separated)."
    ),
    caretakers: str = typer.Option("MOT", "--caretakers", help="Interlocutor speaker codes, e.g. MOT,FAT."),
    context_utterances: int | None = typer.Option(
        None,
        "--context-utterances",
        help="Context = the N preceding utterances (default: the whole session before the site).",
    ),
    alternatives: str = typer.Option(
        "the,a|an",
        "--alternatives",
        help="Alternation: comma-separated choices, '|'-separated forms (first = label), e.g. 'this,that'.",
    ),
    finder: str = typer.Option("noun_chunk", "--finder", help="noun_chunk (D×N sites) or token."),
    dyads: str = typer.Option(
        "auto",
        "--dyads",
        help="Dyad = 'auto' (a child's folder; a transcript given on its own is one dyad), "
        "'file' (one per transcript) or 'dir' (parent folder).",
    ),
    split_sessions: int = typer.Option(
        1,
        "--split-sessions",
        help="Cut each session into K contiguous "
        "pseudo-dyads (to run the across-dyad tests on one transcript).",
    ),
    baseline: float | None = typer.Option(None, "--baseline", help="Adult TPR baseline (default 0.2155)."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level: pass = p > alpha."),
    session_col: str = typer.Option("session", "--session-col", help="Dialogue tables: session column."),
    speaker_col: str = typer.Option("speaker", "--speaker-col", help="Dialogue tables: speaker column."),
    text_col: str = typer.Option("utterance", "--text-col", help="Dialogue tables: utterance text column."),
    order_col: str | None = typer.Option(
        None, "--order-col", help="Dialogue tables: sort column within a session."
    ),
    max_line_bytes: int = typer.Option(
        MAX_LINE_BYTES, "--max-line-bytes", help="Longest accepted line or utterance (as `stats`)."
    ),
) -> None:
    """Extract CAC sites from dialogue and compute the human overlap/TPR statistics and tests."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from corpusbench.corpus.chat import SpeakerRoles, TableColumns
    from corpusbench.generators.cac.pipeline import CacConfig, run_cac
    from corpusbench.generators.cac.records import ADULT_TPR_BASELINE, Alternation
    from corpusbench.io import check_folder_path

    check_folder_path(out)  # a file in the way: say so before the parsing, not after
    config = CacConfig(
        roles=SpeakerRoles(child=_codes(child, "--child"), caretakers=_codes(caretakers, "--caretakers")),
        alternation=Alternation.parse(alternatives, finder=finder),
        context_utterances=context_utterances,
        dyads=dyads,
        split_sessions=split_sessions,
        baseline=ADULT_TPR_BASELINE if baseline is None else baseline,
        alpha=alpha,
        table=TableColumns(session=session_col, speaker=speaker_col, text=text_col, order=order_col),
        max_line_bytes=max_line_bytes,
    )
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


cac_app.command("build")(build)


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
    from corpusbench.generators.cac.stats import yang_predicted_overlap

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
