"""How ``review`` reads FIT-CLAMS's items (its ``ReviewKind`` hooks): a row's paradigm and noun bin."""

from __future__ import annotations

from typing import Any

from corpusbench.review.items import bin_label as _bin_label


def subtask(config: str, row: dict[str, Any], roles: dict[str, str]) -> str:
    """A release row's subtask: its paradigm (its ``paradigm`` role; else the config's name)."""
    return str(row.get(roles.get("paradigm", "paradigm"), config))


def bin_label(row: dict[str, Any], roles: dict[str, str]) -> str:
    """A release row's bin label: ``noun bin <value>`` (``all`` without a bin)."""
    return _bin_label(row, roles, word="noun bin")
