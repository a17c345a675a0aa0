"""Shared test fixtures: paths to the assets that `make test` sets up."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
os.environ.setdefault("NLTK_DATA", str(ROOT / "nltk_data"))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def default_corpus() -> Path:
    path = ROOT / "data" / "default"
    assert (path / ".stamp").exists(), "embedded default corpus missing: run `make default-corpus`"
    return path


@pytest.fixture(scope="session")
def smollm2_dir() -> Path:
    path = ROOT / "models" / "smollm2-135m-instruct"
    assert (path / "config.json").exists(), "default model missing: run `make model`"
    return path
