"""CLI consoles: wide in logs and pipes (no cut tables), COLUMNS respected."""

from __future__ import annotations

from rich.table import Table

from corpusbench.console import LOG_WIDTH, make_console


def test_console_is_wide_when_not_a_terminal(monkeypatch, capsys):
    monkeypatch.delenv("COLUMNS", raising=False)
    con = make_console()
    assert not con.is_terminal and con.width == LOG_WIDTH
    table = Table(*(f"baseline-{i}" for i in range(9)))
    table.add_row(*(f"{0.5 + i / 100:.3f}" for i in range(9)))
    con.print(table)
    out = capsys.readouterr().out
    assert "baseline-8" in out and "0.580" in out  # nothing folded away at 80 columns


def test_columns_decides_when_set(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert make_console(stderr=True).width == 100
