"""The labels shipped in docs/review-labels/ (the demo's LT-Swap, pre-change) give the numbers that
docs/review.md reports: the report is recomputed from the labels file alone."""

from __future__ import annotations

import shutil
from pathlib import Path

from corpusbench.review.report import build_report, markdown

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "docs" / "review-labels" / "ltswap-demo-fbb395c"


def test_the_shipped_labels_give_the_documented_report(tmp_path: Path) -> None:
    folder = tmp_path / "ltswap"
    shutil.copytree(LABELS, folder / "review")
    rep = build_report(folder)
    assert rep["items"] == 63 and rep["reviewers"] == {"helper41": 63}
    text = markdown(rep)
    assert (
        text.split("\n| subtask |")[1]
        == (LABELS / "report.md").read_text(encoding="utf-8").split("\n| subtask |")[1]
    )
    doc = (ROOT / "docs" / "review.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith(("| WordSwap", "| InflectionSwap", "| AgreementSwap", "| all")):
            assert line in doc, line
