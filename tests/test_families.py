"""The family registry (corpusbench.family): built-ins from entry points, in-process registration,
which family claims a release config, and the demo summary asking the families."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpusbench import demo
from corpusbench.errors import ConfigError
from corpusbench.eval.release import ConfigEntry
from corpusbench.family import DemoLine, EvalKind, Family, families, register

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy() -> Iterator[Family]:
    family = Family(
        name="toy",
        title="Toy",
        eval=EvalKind(role="toy_marker"),
        demo=(DemoLine(file="manifest.json", recognises=lambda m: m.get("kind") == "toy", line=_toy_line),),
        rank=5,
    )
    register(family)
    yield family
    families.unregister("toy")


def _toy_line(m: dict[str, object], _: Path) -> tuple[str, str]:
    return "toy.parquet", f"{m['n']} toys"


def test_the_built_in_families_are_the_entry_points_of_pyproject() -> None:
    """In a fresh process (other test modules register their own generators in this one)."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    code = (
        "import json; from corpusbench.family import families; "
        "from corpusbench.publish.plugins import generators; "
        "print(json.dumps([families.names(), [f.name for f in families.all()], generators.names()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    names, ranked, gens = json.loads(out.stdout)
    assert sorted(declared["corpusbench.families"]) == names
    assert ranked == ["ltswap", "fitclams", "cac", "frames", "minimal-pairs"]
    assert gens == ["cac", "fitclams", "frames", "ltswap", "minimal-pairs"]


def test_an_unknown_family_is_one_error_with_near_names() -> None:
    with pytest.raises(ConfigError, match=r"unknown family 'fitclam'\. Did you mean: fitclams"):
        families.get("fitclam")


def test_a_family_registers_once(toy: Family) -> None:
    register(toy)  # the same record again: fine
    with pytest.raises(ValueError, match="already registered"):
        register(Family(name="toy", title="Other"))
    assert families.all()[0] is toy  # rank 5 comes first


def test_the_family_whose_marker_a_config_has_claims_it(toy: Family) -> None:
    def kind(task: str, *roles: str) -> str:
        return ConfigEntry(name="c", task=task, roles={r: "col" for r in roles}).kind

    assert kind("minimal_pairs", "good", "bad", "toy_marker") == "toy"
    assert kind("minimal_pairs", "good", "bad", "ltswap_rule:wordswap") == "ltswap"
    assert kind("prefix_pairs", "paradigm") == "fitclams"
    assert kind("cac", "id") == "cac"
    assert kind("minimal_pairs", "good", "bad") == "pairs"
    assert kind("other", "id") == "other"


def test_demo_summary_asks_the_families(toy: Family, tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "toy", "n": 3}), encoding="utf-8")
    row = demo.describe("toy step", tmp_path)
    assert (row.made, row.key) == ("toy.parquet", "3 toys")
    families.unregister("toy")
    assert demo.describe("toy step", tmp_path).key.endswith("no manifest/results/provenance (unfinished?)")
