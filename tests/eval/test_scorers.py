"""The scorer registry: ``--model SCHEME:REF`` opens the registered scorer; anything else is an HF model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpusbench.errors import ConfigError
from corpusbench.eval import scorers
from corpusbench.eval.spec import EvalSpec


def open_echo(ref: str) -> tuple[Any, dict[str, Any]]:
    return f"scorer for {ref}", {"model_id": ref, "arch": "echo"}


def test_registered_scheme_opens_its_scorer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(scorers, "SCORERS", dict(scorers.SCORERS))
    scorers.register_scorer("echo", f"{__name__}:open_echo")
    spec = EvalSpec(dataset="d", model="echo:a/b#x", out=tmp_path)
    assert scorers.open_scorer(spec) == ("scorer for a/b#x", {"model_id": "a/b#x", "arch": "echo"})
    assert scorers.scorer_opener("unknown:a") is None and scorers.scorer_opener("org/model") is None


def test_ngram_is_registered_without_eval_importing_baselines() -> None:
    opener, ref = scorers.scorer_opener("ngram:models/kn#slor") or (None, "")
    assert opener is not None and opener.__module__ == "corpusbench.baselines.scoring"
    assert ref == "models/kn#slor"


def test_scheme_must_be_an_identifier() -> None:
    with pytest.raises(ConfigError, match="identifier"):
        scorers.register_scorer("a b", "x:y")
