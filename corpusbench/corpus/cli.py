"""``corpusbench stats``."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)


def stats() -> None:
    """Tokenise, tag and count a corpus (placeholder)."""
