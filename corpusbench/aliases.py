"""Deprecated CLI spellings: kept working, hidden from ``--help``, each run says what to type instead."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer

from corpusbench.console import make_console


def warn_deprecated(old: str, new: str) -> None:
    """One line on stderr: the old spelling still works, the new one is the name to use."""
    make_console(stderr=True).print(
        f"[yellow]deprecated:[/] `{old}` is an old spelling; use `{new}`", highlight=False, soft_wrap=True
    )


def add_alias(group: typer.Typer, name: str, command: Callable[..., Any], *, old: str, new: str) -> None:
    """Register ``command`` under ``name`` in ``group`` as a hidden, deprecated alias of ``new``."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        warn_deprecated(old, new)
        return command(*args, **kwargs)

    group.command(name, hidden=True, help=f"Deprecated spelling of `{new}`.")(run)


class DefaultCommandGroup(typer.core.TyperGroup):
    """A group whose old spelling ``GROUP ARG ...`` (no subcommand) still means ``GROUP <default> ARG ...``.

    Set ``default_command`` and ``cli_name`` in a subclass; the rewrite warns that it is deprecated.
    """

    default_command: str = ""
    cli_name: str = ""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            warn_deprecated(
                f"{self.cli_name} {args[0]} ...", f"{self.cli_name} {self.default_command} {args[0]} ..."
            )
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)
