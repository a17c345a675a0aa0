"""Consoles: wide in logs and pipes, COLUMNS respected; wide result tables keep their headers whole."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from rich.console import Console

from corpusbench.console import LOG_WIDTH, make_console


def test_log_console_is_wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert make_console().width == LOG_WIDTH  # pytest captures stdout: not a terminal


def test_columns_env_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert make_console(stderr=True).width == 100


def test_ltswap_funnel_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    from corpusbench.families.ltswap import cli
    from corpusbench.families.ltswap.funnel import STAGES, Funnel
    from corpusbench.families.ltswap.pipeline import LtswapParams
    from corpusbench.families.ltswap.records import SUBTASKS

    funnel = Funnel()
    for stage, n in zip(STAGES, (140, 140, 140, 82, 34, 6, 6), strict=True):
        funnel.add("wordswap", 3, stage, n)
    funnel.drop(SUBTASKS[1], 2, "not_same_lemma", 64)
    buf = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=buf, width=80, color_system=None))
    result = SimpleNamespace(
        out="out/demo/ltswap",
        funnel=funnel,
        quadruplets={s: [SimpleNamespace(bin=3, rule=None)] * 6 if s == "wordswap" else [] for s in SUBTASKS},
        manifest={"llm_report": {"calls": 231}, "seconds": 64},
        cells=None,  # a run without --per-cell
    )
    cli._print(result, LtswapParams())
    table = buf.getvalue().split("wordswap:")[0]  # the reason lines after it are soft-wrapped on purpose
    assert max(len(line) for line in table.splitlines()) <= 80
    for stage in STAGES:  # whole stage names, not 'candida' / 'confirm' / 'generat'
        assert f" {stage} " in table, table
    assert "…" not in table
