"""CLI commands (placeholder until the component lands)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this component's commands to the ``corpusbench`` app."""
