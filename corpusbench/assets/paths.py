"""Where setup-time assets live, so that commands work without extra environment variables."""

from __future__ import annotations

import os
from pathlib import Path

from corpusbench.errors import ConfigError

SOURCE_ROOT = Path(__file__).resolve().parents[2]  # the checkout, for an editable install


def asset_roots() -> list[Path]:
    """Folders that may hold ``nltk_data/``, ``models/`` and ``data/``: $CORPUSBENCH_HOME, the checkout."""
    roots = []
    if os.environ.get("CORPUSBENCH_HOME"):
        roots.append(Path(os.environ["CORPUSBENCH_HOME"]))
    roots.append(SOURCE_ROOT)
    return roots


def export_nltk_data() -> None:
    """Point ``NLTK_DATA`` at the folder built by ``make nltk-data`` when the user has not set it.

    Cheap (no ``import nltk``); runs when corpusbench is imported, so every module that loads NLTK
    resources (taggers, WordNet, word lists) finds them without extra environment variables.
    """
    if os.environ.get("NLTK_DATA"):
        return
    for root in asset_roots():
        if (root / "nltk_data").is_dir():
            os.environ["NLTK_DATA"] = str(root / "nltk_data")
            return


def ensure_nltk_data() -> None:
    """Put the NLTK data folder built by ``make nltk-data`` on NLTK's search path."""
    from corpusbench.imports import import_nltk

    nltk = import_nltk()

    for root in asset_roots():
        candidate = root / "nltk_data"
        if candidate.is_dir() and str(candidate) not in nltk.data.path:
            nltk.data.path.append(str(candidate))


def require_nltk_resource(resource: str) -> None:
    """Raise a one-line ``ConfigError`` naming the setup step when an NLTK resource is missing."""
    from corpusbench.imports import import_nltk

    nltk = import_nltk()

    ensure_nltk_data()
    try:
        nltk.data.find(resource)
    except LookupError:
        raise ConfigError(
            f"NLTK resource {resource!r} not found; run `make nltk-data` "
            "(or set NLTK_DATA to a folder that has it)"
        ) from None


def default_model_dir() -> Path | None:
    """The SmolLM2-135M-Instruct folder made by ``make model``, if present."""
    for root in asset_roots():
        d = root / "models" / "smollm2-135m-instruct"
        if (d / "config.json").exists():
            return d
    return None
