"""Fixtures for the frames tests: a tiny train/test corpus pair and a real stats folder of its train part."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.stats import compute_stats

TRAIN = "The cat sat.\nThe dog sat.\n"
# "ran" is not in the training vocabulary: as a middle word it is dropped, as a frame word its frame is.
TEST = "The cat sat.\nThe dog sat.\nThe cat ran.\n"


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("frames-tiny")
    (root / "train.txt").write_text(TRAIN, encoding="utf-8")
    (root / "test.txt").write_text(TEST, encoding="utf-8")
    compute_stats(CorpusSpec(path=str(root / "train.txt")), root / "train-stats")
    return {
        "root": root,
        "train": root / "train.txt",
        "test": root / "test.txt",
        "stats": root / "train-stats",
    }
