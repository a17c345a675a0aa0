"""FIT-CLAMS's parameters declared once (#40): ``fitclams build``'s options and the release spec's params
are both made from FitClamsParams (and its nested SelectionConfig)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.fitclams import generator
from corpusbench.families.fitclams.params import FitClamsParams, FitClamsSpecParams
from corpusbench.families.fitclams.records import PARADIGMS
from corpusbench.families.fitclams.select import SelectionConfig
from corpusbench.params import declared, long_option


class Stop(Exception):
    pass


def _spec_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    """The FitClamsSpec that ``fitclams build ARGS`` hands the generator (which is stopped there)."""
    seen: list[Any] = []

    def fake_generate(spec: Any, out: Any, **_: Any) -> None:
        seen.append(spec)
        raise Stop

    monkeypatch.setattr(generator, "ensure_stats", lambda name, path, *a, **k: str(tmp_path / name))
    monkeypatch.setattr(generator, "generate", fake_generate)
    res = CliRunner().invoke(
        app, ["fitclams", "build", "--corpus", "c=x", "--out", str(tmp_path / "o"), *args]
    )
    assert isinstance(res.exception, Stop), res.output
    return seen[0]


def test_the_options_reach_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _spec_of(
        tmp_path,
        monkeypatch,
        *("--lang", "en", "--paradigms", "simple_agrmt, vp_coord", "--nouns", "3", "--verbs", "4"),
        *("--fill-empty", "--seed", "7", "--coord-order", "seeded", "--min-intransitive-share", "0.5"),
    )
    assert spec.language == "en" and spec.paradigms == ("simple_agrmt", "vp_coord")
    assert spec.selection == SelectionConfig(
        n_nouns=3, n_verbs=4, fill_empty=True, seed=7, coord_order="seeded", min_intransitive_share=0.5
    )
    assert spec.corpora == (("c", str(tmp_path / "c")),)


def test_the_defaults_are_the_declarations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _spec_of(tmp_path, monkeypatch, "--lang", "de", "--paradigms", "")
    assert spec.selection == SelectionConfig() and spec.paradigms == PARADIGMS  # an empty list: all 7


def test_lang_is_required_on_the_command_line_only(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["fitclams", "build", "--corpus", "c=x", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "--lang" in res.output
    assert FitClamsSpecParams().language is None  # a release defaults it from the corpus


def test_the_spec_keys_are_the_declared_spec_fields() -> None:
    keys = {f.name for f in dataclasses.fields(FitClamsSpecParams)}
    assert keys == {"corpora", "language", "paradigms", "selection", "overrides"}  # not llm_check
    assert FitClamsSpecParams().selection == {}  # a mapping of SelectionConfig's fields
    options = {long_option(f) for f, _ in declared(SelectionConfig)}
    assert options == {
        "--nouns",
        "--verbs",
        "--bins",
        "--objects",
        "--seed",
        "--top-k",
        "--fill-empty",
        "--min-intransitive-share",
        "--min-verb-contexts",
        "--coord-order",
        "--bin-counts",
    }
    assert [f.name for f, _ in declared(FitClamsParams) if not f.metadata["spec"]] == ["llm_check"]
