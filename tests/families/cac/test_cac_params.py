"""CAC's parameters declared once (#40): ``cac build``'s options and the release spec's params are both
made from CacParams."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.cac import pipeline
from corpusbench.families.cac.params import CacParams, CacSpec
from corpusbench.params import declared


class Stop(Exception):
    pass


def _config_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    seen: list[Any] = []

    def fake_run(inputs: Any, out: Any, config: Any, **_: Any) -> None:
        seen.append(config)
        raise Stop

    monkeypatch.setattr(pipeline, "run_cac", fake_run)
    res = CliRunner().invoke(
        app, ["cac", "build", str(tmp_path / "a.cha"), "--out", str(tmp_path / "o"), *args]
    )
    assert isinstance(res.exception, Stop), res.output
    return seen[0]


def test_the_options_reach_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config_of(
        tmp_path,
        monkeypatch,
        *("--child", "CHI,KID", "--caretakers", "MOT,FAT", "--split-sessions", "3", "--alpha", "0.1"),
        *("--alternatives", "this,that", "--order-col", "n", "--max-line-bytes", "5000"),
    )
    d = config.as_dict()
    assert d["roles"] == {"child": ["CHI", "KID"], "caretakers": ["MOT", "FAT"]}
    assert d["split_sessions"] == 3 and d["alpha"] == 0.1 and d["table_columns"]["order"] == "n"
    assert config.alternation.labels == ("this", "that") and config.max_line_bytes == 5000


def test_the_spec_keys_are_the_options_and_config_name() -> None:
    spec = {f.name: f.default for f in dataclasses.fields(CacSpec)}
    assert spec == {f.name: f.default for f, _ in declared(CacParams)}
    assert [f.name for f, _ in declared(CacParams) if not f.metadata["cli"]] == ["config_name"]
    assert CacSpec().dyads == "auto" and CacSpec().baseline is None  # None: the adult baseline


def test_run_config_is_made_in_one_place_and_names_a_bad_parameter():
    import pytest

    from corpusbench.errors import ParamError
    from corpusbench.families.cac.params import CacParams, CacSpec, run_config

    assert run_config(CacParams()) == run_config(CacSpec())  # cac build and the release make the same run
    with pytest.raises(ParamError) as got:
        run_config(CacParams(child=" , "))
    assert got.value.param == "child"
