"""io helpers turn the usual bad inputs into one InputError: a file where a folder is wanted, a
corrupt JSON file, a YAML bomb."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusbench.errors import ConfigError, InputError
from corpusbench.io import atomic_dir, atomic_write, ensure_dir, load_yaml, read_json


def test_a_file_in_the_way_of_an_output_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    for target in (blocker, blocker / "sub", blocker / "sub" / "deeper"):
        with pytest.raises(InputError, match=r"taken: is a file, not a folder"), atomic_dir(target):
            pass
        with pytest.raises(InputError, match=r"taken: is a file, not a folder"):
            ensure_dir(target)
    with pytest.raises(InputError, match=r"taken: is a file, not a folder"), atomic_write(blocker / "f.json"):
        pass
    with pytest.raises(InputError, match=r"is a folder, not a file"), atomic_write(tmp_path):
        pass
    assert blocker.read_text() == "x" and sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_read_json_names_a_damaged_file(tmp_path: Path) -> None:
    bad = tmp_path / "m.json"
    bad.write_text('{\n  "a": 1,\n')
    with pytest.raises(InputError, match=r"m\.json:3: not valid JSON"):
        read_json(bad)


def test_load_yaml_bounds_alias_expansion() -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    levels += [
        f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
    with pytest.raises(ConfigError, match=r"spec\.yaml: YAML aliases expand to more than 1,000 values"):
        load_yaml("\n".join(levels), "spec.yaml", error=ConfigError, max_nodes=1000)
    assert load_yaml("\n".join(levels[:2]), "ok.yaml")["b"][9] == ["x"] * 10
    with pytest.raises(InputError, match=r"deep\.yaml: YAML nested too deeply"):
        load_yaml("[" * 50_000, "deep.yaml")
    with pytest.raises(InputError, match=r"bad\.yaml:2: not valid YAML"):
        load_yaml("a: 1\nb: [1,", "bad.yaml")
