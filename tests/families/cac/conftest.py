"""Fixtures for the CAC tests: the real CHILDES transcript fetched by `make childes`, spaCy, CHAT strings."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def eve() -> Path:
    path = ROOT / "data" / "childes" / "eve.cha"
    assert path.exists(), (
        "CHILDES fixture missing: run `make childes` (fetches eve.cha from pylangacq 0.19.1)"
    )
    return path


@pytest.fixture(scope="session")
def nlp():
    from corpusbench.families.cac.sites import load_nlp

    return load_nlp()
