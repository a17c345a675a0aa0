"""The ``corpusbench`` command line: thin typer commands that call library functions."""

from __future__ import annotations

import logging
import os
import sys

import typer
from rich.markup import escape

from corpusbench.console import make_console
from corpusbench.errors import CorpusbenchError, disk_full_error, redact

console = make_console(stderr=True)


class _Group(typer.core.TyperGroup):
    """Turns expected failures (``CorpusbenchError``, and a full disk anywhere) into one line on stderr,
    without tokens (:func:`~corpusbench.errors.redact`), and the error's exit code."""

    def invoke(self, ctx):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except Exception as e:
            error = e if isinstance(e, CorpusbenchError) else disk_full_error(e)
            if error is None or os.environ.get("CORPUSBENCH_DEBUG"):
                raise
            console.print(
                f"[bold red]error:[/] {escape(redact(str(error)))}", highlight=False, soft_wrap=True
            )
            ctx.exit(error.exit_code)


app = typer.Typer(
    cls=_Group,
    name="corpusbench",
    help="Turn a text corpus into corpus-specific benchmarks for language models.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _setup_logging(verbose: int) -> None:
    from rich.logging import RichHandler

    level = os.environ.get("CORPUSBENCH_VERBOSITY", "").upper() or (
        "DEBUG" if verbose > 1 else "INFO" if verbose else "WARNING"
    )
    handler = RichHandler(console=console, show_path=False)
    handler.addFilter(_redact_record)
    logging.basicConfig(level=level, format="%(message)s", handlers=[handler])


def _redact_record(record: logging.LogRecord) -> bool:
    """A log record's message without tokens (the filter of the console's log handler)."""
    message = record.getMessage()
    clean = redact(message)
    if clean != message:
        record.msg, record.args = clean, None
    return True


def _print_version(value: bool) -> None:
    if value:
        from corpusbench import __version__

        typer.echo(f"corpusbench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: int = typer.Option(0, "--verbose", "-v", count=True, help="More log output (-vv for debug)."),
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    _setup_logging(verbose)


def _register_commands() -> None:
    """Each component registers its commands here, the benchmark families theirs through their
    ``cli`` hook (:mod:`corpusbench.family`); imports are light, heavy ones happen inside commands."""
    from corpusbench import demo as demo_cli
    from corpusbench.baselines import cli as baselines_cli
    from corpusbench.corpus import cli as corpus_cli
    from corpusbench.eval import cli as eval_cli
    from corpusbench.family import families, load
    from corpusbench.llm import cli as llm_cli
    from corpusbench.publish import cli as publish_cli

    corpus_cli.register(app)
    llm_cli.register(app)
    for family in families.all():
        if family.cli is not None:
            load(family.cli)(app)
    for module in (eval_cli, baselines_cli, publish_cli, demo_cli):
        module.register(app)
    load("corpusbench.review.cli:register")(app)  # review PATH, review report PATH


_register_commands()


NARROW = 100  # columns below which rich's option table cuts option names ("--llm-mod…")


def _plain_help_when_narrow() -> None:
    """In a terminal narrower than ``NARROW``, ``--help`` uses click's plain layout, which wraps the help
    text and never cuts an option name."""
    import shutil

    if shutil.get_terminal_size().columns < NARROW:
        typer.core.HAS_RICH = False  # read by every command's format_help


def main() -> None:
    """Entry point (``corpusbench``)."""
    from corpusbench.procs import exit_on_sigterm

    exit_on_sigterm()  # SIGTERM/SIGHUP: exit 143/129 through every `with`/finally (servers stop)
    _plain_help_when_narrow()
    try:
        app()
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)
    except SystemExit as done:
        from corpusbench.eval import fast_exit

        if fast_exit.allowed():  # eval run: its files are written; skip the interpreter's teardown
            fast_exit.exit_now(done.code)
        raise
