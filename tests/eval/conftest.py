"""Eval test fixtures: the real SmolLM2 (loaded once), tiny random models with trained tokenizers."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
import torch

torch.set_num_threads(2)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[2]
SMOL = ROOT / "models" / "smollm2-135m-instruct"
CORPUS = ROOT / "data" / "default"


def training_lines() -> list[str]:
    """A few thousand lines of the embedded default corpus (real text) for the tiny tokenizers."""
    files = [CORPUS / "shakespeare" / "a-midsummer-night-s-dream.txt", CORPUS / "kjv" / "01-genesis.txt"]
    lines: list[str] = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            lines += list(itertools.islice(fh, 600))
    # sentences the tests score, so their words are in the vocabulary as well
    lines += [
        "The cat sat on the mat.",
        "The children are playing in the park.",
        "I want a dog.",
        "She is reading a book about an apple.",
    ] * 3
    return lines


@pytest.fixture(scope="session")
def smol():
    from corpusbench.eval.models import load_model

    return load_model(str(SMOL))


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory):
    from corpusbench.eval.tiny import build_tiny_model

    base = tmp_path_factory.mktemp("tiny")
    lines = training_lines()
    return {k: build_tiny_model(k, base / k, lines) for k in ("bert", "roberta", "t5", "gpt2")}


@pytest.fixture(scope="session")
def tiny(tiny_dir):
    from corpusbench.eval.models import load_model

    return {k: load_model(str(p)) for k, p in tiny_dir.items()}
