"""The ``corpusbench`` command line: thin typer commands that call library functions."""

from __future__ import annotations

import logging
import os
import sys

import typer
from rich.console import Console

from corpusbench.errors import CorpusbenchError

console = Console(stderr=True)


class _Group(typer.core.TyperGroup):
    """Turns expected failures (``CorpusbenchError``) into one line on stderr and the error's exit code."""

    def invoke(self, ctx):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except CorpusbenchError as e:
            if os.environ.get("CORPUSBENCH_DEBUG"):
                raise
            console.print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)
            ctx.exit(e.exit_code)


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
    logging.basicConfig(
        level=level, format="%(message)s", handlers=[RichHandler(console=console, show_path=False)]
    )


@app.callback()
def _root(
    verbose: int = typer.Option(0, "--verbose", "-v", count=True, help="More log output (-vv for debug)."),
) -> None:
    _setup_logging(verbose)


def _register_commands() -> None:
    """Each component registers its commands here (imports are light; heavy ones happen inside commands)."""
    from corpusbench.corpus import cli as corpus_cli

    corpus_cli.register(app)
    for module in (
        "corpusbench.llm.cli",
        "corpusbench.generators.cac.cli",
        "corpusbench.generators.fitclams.cli",
        "corpusbench.generators.ltswap.cli",
        "corpusbench.eval.cli",
        "corpusbench.publish.cli",
    ):
        try:
            mod = __import__(module, fromlist=["register"])
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                continue  # component not present in this build
            raise
        mod.register(app)


_register_commands()


def main() -> None:
    """Entry point (``corpusbench``)."""
    try:
        app()
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)
