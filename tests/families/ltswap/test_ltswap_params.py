"""LT-Swap's parameters declared once (#40): ``ltswap build``'s options and the spec's keys come from
``LtswapFamilyParams``, and both make the same run parameters."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap import cli as ltswap_cli
from corpusbench.families.ltswap.params import LtswapFamilyParams, LtswapSpec, run_params
from corpusbench.families.ltswap.pipeline import LtswapParams
from corpusbench.params import declared


class Stop(Exception):
    pass


def _build_params(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, *args: str) -> tuple[Any, Any]:
    seen: list[Any] = []

    def fake(p: Any) -> Any:
        seen.append(p)
        seen.append(run_params(p))
        raise Stop

    monkeypatch.setattr(ltswap_cli, "run_params", fake)
    result = CliRunner().invoke(app, ["ltswap", "build", "corpus.txt", "--out", str(tmp_path), *args])
    assert isinstance(result.exception, Stop), result.output
    return seen[0], seen[1]


def test_the_options_reach_the_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    decl, run = _build_params(
        monkeypatch, tmp_path,
        "--subtasks", "wordswap,agrswap", "--max-per-bin", "wordswap=3,agrswap=1", "--per-cell", "4",
        "--threshold", "0.3", "--no-pos-check", "--no-confirm-inflections", "--force-form", "agrswap",
        "--plan", "--batch-size", "2", "--rules", "DET",
    )  # fmt: skip
    assert decl.plan is True and decl.batch_size == 2
    assert run.subtasks == ("wordswap", "agrswap") and run.rules == ("DET",)
    assert run.max_per_bin == {"wordswap": 3, "agrswap": 1} and run.per_cell == 4
    assert run.filter_threshold == 0.3 and not run.check_pos and not run.confirm_inflections
    assert run.force_form == ("agrswap",)


def test_no_options_make_the_libraries_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    decl, run = _build_params(monkeypatch, tmp_path)
    assert run == LtswapParams()
    assert decl == LtswapFamilyParams(force_form="", fluent_first="", labelled_first="")  # "": ()
    assert run_params(LtswapSpec()) == LtswapParams()


def test_the_spec_keys_are_the_declared_spec_fields() -> None:
    keys = {f.name for f, _ in declared(LtswapFamilyParams) if f.metadata["spec"]}
    assert keys == set(LtswapSpec.__dataclass_fields__)  # type: ignore[attr-defined]
    assert "plan" not in keys and {"reuse_run", "llm_timeout", "max_per_bin"} <= keys
