"""Deprecated CLI spellings: kept working, hidden from ``--help``, each run says what to type instead.

The one mechanism for every old spelling: a renamed command (:func:`add_alias`), a group called without
its subcommand (:class:`DefaultCommandGroup`), a renamed option (:func:`renamed_option`) and a renamed
option value (e.g. ``--backend hf``) all print one line through :func:`warn_deprecated`.
"""

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


def renamed_option(value: Any, old_value: Any, *, old: str, new: str, required: bool = False) -> Any:
    """The value of an option given as ``new``, or as its old spelling ``old`` (hidden; warns).

    Declare both options with default None, the old one ``hidden=True``; ``required``: one must be given.
    """
    if old_value is None:
        if value is None and required:
            raise typer.BadParameter("missing (a required option)", param_hint=f"'{new}'")
        return value
    if value is not None:
        raise typer.BadParameter(
            f"given twice (also as its old spelling {old}); keep {new}", param_hint=f"'{new}'"
        )
    warn_deprecated(old, new)
    return old_value


class DefaultCommandGroup(typer.core.TyperGroup):
    """A group whose old spelling ``GROUP ARG ...`` (no subcommand) still means ``GROUP <default> ARG ...``.

    Set ``default_command`` and ``cli_name`` in a subclass (``arg_name``: how the warning names the
    arguments, default the first one given); the rewrite warns that it is deprecated.
    """

    default_command: str = ""
    cli_name: str = ""
    arg_name: str = ""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            shown = self.arg_name or args[0]
            warn_deprecated(
                f"{self.cli_name} {shown} ...", f"{self.cli_name} {self.default_command} {shown} ..."
            )
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)
