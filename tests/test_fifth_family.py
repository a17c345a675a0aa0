"""A fifth benchmark family defined only under ``tests/families/detagr`` (determiner-noun agreement
pairs) goes through ``release build`` -> ``eval run`` (SmolLM2) -> ``compare``, registered by nothing
but an entry point: the test writes a ``detagr-0.1.0.dist-info`` whose ``entry_points.txt`` names
``detagr.family:FAMILY`` in the group ``corpusbench.families`` and puts it on ``PYTHONPATH``, so
``importlib.metadata`` finds it as it finds an installed package. docs/extending.md walks through it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = Path(__file__).resolve().parent / "families"
SPEC = """\
name: detagr-test
version: 0.1.0
repo_id: test/detagr
license: cc-by-4.0
corpora:
  toy:
    path: {corpus}
    license: cc-by-4.0
families:
  - name: detagr
    corpus: toy
    params: {{max_pairs: 20}}
"""


def _site(root: Path, *, with_entry_point: bool = True) -> Path:
    """A folder holding the family's distribution metadata (what `pip install` of it would write)."""
    info = root / "detagr-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: detagr\nVersion: 0.1.0\n", encoding="utf-8")
    if with_entry_point:
        (info / "entry_points.txt").write_text(
            "[corpusbench.families]\ndetagr = detagr.family:FAMILY\n", encoding="utf-8"
        )
    return root


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(FAMILIES)])}
    return subprocess.run(
        [sys.executable, "-m", "corpusbench", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "detagr.yaml"
    path.write_text(SPEC.format(corpus=FAMILIES / "corpus" / "toy.txt"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, spec: Path) -> tuple[Path, Path]:
    """(site folder, release build folder)."""
    tmp = tmp_path_factory.mktemp("fifth")
    site = _site(tmp / "site")
    done = _cli(site, "release", "build", str(spec), "--out", str(tmp / "build"))
    assert done.returncode == 0, done.stderr
    return site, tmp / "build" / "detagr-test" / "0.1.0"


def test_without_its_entry_point_the_family_is_unknown(tmp_path: Path, spec: Path) -> None:
    site = _site(tmp_path / "site", with_entry_point=False)
    done = _cli(site, "release", "build", str(spec), "--out", str(tmp_path / "build"))
    assert done.returncode != 0
    assert "unknown family 'detagr'" in done.stderr
    assert not (tmp_path / "build" / "detagr-test").exists()


def test_release_build_makes_its_config(built: tuple[Path, Path]) -> None:
    _, release = built
    manifest = json.loads((release / "provenance.json").read_text(encoding="utf-8"))
    config, choice = manifest["configs"]
    assert config["name"] == "detagr-toy" and config["generator"] == "detagr"
    assert config["rows"] == 20 and config["roles"]["det_number"] == "number"
    assert choice["name"] == "detagr-toy-choice" and choice["task"] == "detagr_choice"  # its own task kind
    assert choice["rows"] == 20
    assert (release / "data" / "detagr-toy" / "test-00000-of-00001.parquet").is_file()


def test_its_params_are_checked_when_the_spec_loads(tmp_path: Path, spec: Path) -> None:
    site = _site(tmp_path / "site")
    bad = tmp_path / "bad.yaml"
    bad.write_text(spec.read_text(encoding="utf-8").replace("max_pairs", "max_pair"), encoding="utf-8")
    done = _cli(site, "release", "build", str(bad), "--out", str(tmp_path / "build"))
    assert done.returncode != 0
    assert "unknown key families.detagr.params.max_pair; did you mean max_pairs?" in done.stderr


@pytest.mark.slow  # loads SmolLM2 (about a minute on 2 CPU cores)
def test_eval_reports_its_headline_and_compare_shows_it(
    built: tuple[Path, Path], smollm2_dir: Path, tmp_path: Path
) -> None:
    site, release = built
    run = tmp_path / "eval"
    done = _cli(site, "eval", "run", str(release), "--model", str(smollm2_dir), "--out", str(run))
    assert done.returncode == 0, done.stderr
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    block = results["benchmarks"]["detagr"]
    assert block["n"] == 20 and block["configs"] == ["detagr-toy"]
    assert set(block["per_determiner"]) == {"this", "that", "these", "those"}
    assert 0.0 <= block["accuracy"] <= 1.0
    assert f"**DetAgr accuracy {block['accuracy']:.4f}**" in (run / "summary.md").read_text(encoding="utf-8")
    assert (run / "detagr_by_determiner.png").is_file()  # its run figure (EvalKind.run_figures)
    assert block["choice"]["n"] == 20 and 0.0 <= block["choice"]["accuracy"] <= 1.0  # its score hook

    done = _cli(site, "compare", str(run), "--out", str(tmp_path / "compare"))
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "compare" / "compare.md").read_text(encoding="utf-8").splitlines()
    head = lines.index("| model | DetAgr accuracy |")  # the family's headline metric is the headline
    assert lines[head + 2].startswith(f"| smollm2-135m-instruct | {block['accuracy']:.3f} [")


def test_no_file_under_corpusbench_names_the_family() -> None:
    hits = [p for p in (ROOT / "corpusbench").rglob("*") if p.is_file() and b"detagr" in p.read_bytes()]
    assert hits == []


def test_the_excerpts_in_docs_extending_are_the_family_code() -> None:
    page = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    excerpts = re.findall(r"^```python excerpt (\S+)\n(.*?)^```", page, re.M | re.S)
    assert len(excerpts) >= 4
    stale = [path for path, body in excerpts if body not in (ROOT / path).read_text(encoding="utf-8")]
    assert stale == []
