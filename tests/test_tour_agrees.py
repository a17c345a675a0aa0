"""The README tour and the docs say what the code does (#32 item 6): the tour's stats keep the contexts
FIT-CLAMS mines its fillers from, its evals start with --limit, and docs/llm.md names each default model."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from corpusbench.assets.judge_model import MODEL_NAME
from corpusbench.families.fitclams.generator import ensure_stats
from corpusbench.llm.server import DEFAULT_MODEL_DIR

ROOT = Path(__file__).resolve().parents[1]


def _tour() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index("## A 5-minute tour") :]


def test_tour_stats_keep_the_contexts_fitclams_uses() -> None:
    wanted = inspect.signature(ensure_stats).parameters["max_contexts"].default
    (stats,) = re.findall(r"^corpusbench stats .*$", _tour(), re.M)
    assert f"--contexts-per-form {wanted}" in stats
    assert f"`--contexts-per-form {wanted}`" in (ROOT / "docs" / "fitclams.md").read_text(encoding="utf-8")


def test_tour_evals_start_with_a_limit() -> None:
    evals = re.findall(r"^corpusbench eval run .*$", _tour(), re.M)
    assert evals and all(re.search(r"--limit \d+", line) for line in evals)


def test_llm_doc_names_each_default_model() -> None:
    text = (ROOT / "docs" / "llm.md").read_text(encoding="utf-8")
    rows = {ln.split("|")[1].strip(): ln.split("|")[-2] for ln in text.splitlines() if ln.startswith("| `")}
    serve = next(v for k, v in rows.items() if "llm serve" in k)
    ltswap = next(v for k, v in rows.items() if k.startswith("`ltswap build"))
    assert f"models/{DEFAULT_MODEL_DIR.name}" in serve
    assert f"models/{MODEL_NAME}" in ltswap
    assert "the default model, SmolLM2" not in text
