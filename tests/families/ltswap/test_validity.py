"""The labelled validity set (#37): format checks, the per-subtask valid share and the shipped files."""

from __future__ import annotations

import json

import pytest

from corpusbench.errors import InputError
from corpusbench.families.ltswap.validity import VALIDITY_DIR, read_labels, report_lines, validity_report


def row(sub: str, labels: list[str], source: str = "demo") -> dict:
    return {"id": f"{sub}-{labels[0]}-{labels[1]}", "source": source, "subtask": sub, "rule": "NOUN",
            "bin": 3, "w1": "otter", "w2": "anvil", "s1_good": "a", "s2_good": "b", "s1_bad": "c",
            "s2_bad": "d", "labels": labels, "keep": all(x == "valid" for x in labels)}  # fmt: skip


def test_report_counts_pairs_and_quadruplets(tmp_path) -> None:
    f = tmp_path / "l.jsonl"
    rows = [row("wordswap", ["valid", "valid"]), row("wordswap", ["valid", "invalid"]), row("inflectionswap",
            ["marginal", "valid"])]  # fmt: skip
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    rep = validity_report(read_labels([tmp_path]))["demo"]
    assert rep["wordswap"]["pairs"] == 4 and rep["wordswap"]["valid"] == 3
    assert rep["wordswap"]["quadruplets_valid"] == 1 and rep["inflswap"]["marginal"] == 1
    lo, hi = rep["wordswap"]["ci95"]
    assert lo < 0.75 < hi and rep["all"]["pairs"] == 6
    assert "| demo | wordswap | 4 | 3 | 0.75" in "\n".join(report_lines({"demo": rep}))


def test_a_bad_label_names_its_line(tmp_path) -> None:
    f = tmp_path / "l.jsonl"
    f.write_text(json.dumps(row("wordswap", ["valid", "fine"])) + "\n")
    with pytest.raises(InputError, match=r"l\.jsonl:1"):
        read_labels([f])
    f.write_text(json.dumps({**row("wordswap", ["valid", "invalid"]), "keep": True}) + "\n")
    with pytest.raises(InputError, match="'keep'"):
        read_labels([f])


def test_the_shipped_set_is_readable_and_judgeable() -> None:
    from corpusbench.families.ltswap.calibration import read_items

    if not any(VALIDITY_DIR.glob("*.jsonl")):
        pytest.skip("no labelled set shipped yet")
    rows = read_labels([VALIDITY_DIR])
    assert {r["source"] for r in rows}
    for f in VALIDITY_DIR.glob("*.jsonl"):
        read_items(f, labelled=True)  # the same file is a `ltswap judge-check --items` set
