"""A family's parameters declared once (corpusbench.params, prototyped on frames): the command's options
and the release spec's params are both made from ``FramesParams``'s fields."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ConfigError
from corpusbench.families.frames.records import FramesParams, FramesSpec
from corpusbench.params import declared, option_name
from corpusbench.publish.plugins import parse_params


def _help(*cmd: str) -> str:
    return " ".join(CliRunner().invoke(app, [*cmd, "--help"], env={"COLUMNS": "300"}).output.split())


def test_the_spec_params_are_the_spec_fields_with_their_defaults() -> None:
    spec = {f.name: f.default for f in dataclasses.fields(FramesSpec)}
    assert spec == {"train": dataclasses.MISSING, "min_frame_count": 2, "config_name": "frames-sclusters"}
    assert parse_params(FramesSpec, {"train": "t"}, "w").min_frame_count == FramesParams().min_frame_count
    with pytest.raises(ConfigError, match=r"w: unknown key\(s\) lang"):  # an option only
        parse_params(FramesSpec, {"train": "t", "lang": "fr"}, "w")
    with pytest.raises(ConfigError, match="train"):  # required in a spec
        parse_params(FramesSpec, {}, "w")


def test_the_command_options_are_the_cli_fields_with_their_help() -> None:
    text = _help("frames", "build")
    for f, _ in declared(FramesParams):
        shown = option_name(f) in text
        assert shown is f.metadata["cli"], f.name
        if shown:
            assert " ".join(f.metadata["help"].split()) in text, f.name
    assert "--train " not in text and "--config-name" not in text  # spec keys only


def test_a_bad_option_value_is_refused_before_any_work(tmp_path) -> None:
    res = CliRunner().invoke(
        app,
        ["frames", "build", "c.txt", "--stats", "s", "--out", str(tmp_path / "o"), "--min-frame-count", "x"],
    )
    assert res.exit_code == 2 and "--min-frame-count" in res.output and not (tmp_path / "o").exists()
