"""Fixtures for release tests: a small spec over real fixture files, and the local Hub stand-in."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:  # `hubserver` lives in tests/ (a test double, not part of the package)
    sys.path.insert(0, str(TESTS))

from hubserver import HubServer  # noqa: E402

ROOT = TESTS.parent
PAIRS = TESTS / "data" / "publish" / "pairs.jsonl"
CORPUS = TESTS / "data" / "genesis_40.txt"
TOKEN = "hf_standin_secret_0123456789"


def spec_dict(**changes: Any) -> dict[str, Any]:
    """A release spec over tests/data (absolute paths, so the YAML can live in any tmp folder)."""
    spec: dict[str, Any] = {
        "name": "test-pairs",
        "version": "0.1.0",
        "repo_id": "tester/test-pairs",
        "pretty_name": "Test pairs",
        "description": "Minimal pairs for the release tests.",
        "license": "cc-by-4.0",
        "language": ["en"],
        "seed": 3,
        "corpora": {"genesis": {"path": str(CORPUS), "language": "en"}},
        "families": [
            {
                "name": "minimal-pairs",
                "id": "fixture",
                "corpus": "genesis",
                "params": {"path": str(PAIRS), "group_column": "UID"},
            }
        ],
    }
    spec.update(changes)
    return spec


def write_spec(folder: Path, filename: str = "spec.yaml", **changes: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    path.write_text(yaml.safe_dump(spec_dict(**changes), sort_keys=False), encoding="utf-8")
    return path


def run_cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """``python -m corpusbench ARGS`` in a fresh process (the HF clients read their env at import)."""
    return subprocess.run(
        [sys.executable, "-m", "corpusbench", *args],
        cwd=cwd,
        env=env or dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="session")
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        yield server


@pytest.fixture
def hub_env(hub: HubServer, tmp_path: Path) -> dict[str, str]:
    return hub.client_env(tmp_path / "hf-cache", token=TOKEN)


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture release, built once per session: releases/build/test-pairs/0.1.0."""
    from corpusbench.publish.build import build_release
    from corpusbench.publish.spec import ReleaseSpec

    folder = tmp_path_factory.mktemp("release")
    result = build_release(ReleaseSpec.load(write_spec(folder)), folder / "build")
    return result.path


DOC = ROOT / "docs" / "release-spec.md"


def doc_example() -> dict[str, Any]:
    """The complete example of docs/release-spec.md (its first ```yaml block), as a mapping."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("```yaml\n", text.index("## A complete example")) + len("```yaml\n")
    return yaml.safe_load(text[start : text.index("```", start)])


@pytest.fixture(scope="session")
def doc_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The docs' example spec built as if saved as releases/my-corpus.yaml (minimal pairs + CAC on eve)."""
    from corpusbench.publish.build import build_release
    from corpusbench.publish.spec import ReleaseSpec

    folder = tmp_path_factory.mktemp("doc-release")
    spec = ReleaseSpec.from_dict(doc_example(), source=ROOT / "releases" / "my-corpus.yaml")
    return build_release(spec, folder / "build", work_root=folder / "work").path
