"""Fixtures: small stats folders tagged in context from real text (default corpus slices, FR/DE sentences)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # fitclams_reference.py / fitclams_stats_fixture.py helpers

from fitclams_stats_fixture import build_stats  # noqa: E402

REPO = HERE.parents[2]
SHAKESPEARE = REPO / "data" / "default" / "shakespeare"
KJV = REPO / "data" / "default" / "kjv"
# A slice of the embedded corpus with many noun/verb homographs ("land", "cry", "lives", "sorrow").
SLICE = {
    KJV: ("01-genesis.txt", "02-exodus.txt"),
    SHAKESPEARE: (
        "the-comedy-of-errors.txt",
        "a-midsummer-night-s-dream.txt",
        "the-tempest.txt",
        "macbeth.txt",
    ),
}


def _lines(files: list[Path], n: int) -> list[str]:
    out: list[str] = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    out.append(line.strip())
                if len(out) >= n:
                    return out
    return out


@pytest.fixture(scope="session")
def en_stats_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two English sub-corpora (two halves of the Shakespeare plays), 1500 lines each."""
    plays = sorted(SHAKESPEARE.glob("*.txt"))
    assert len(plays) >= 10, f"default corpus missing under {SHAKESPEARE}; run `make default-corpus`"
    half = len(plays) // 2
    root = tmp_path_factory.mktemp("fitclams-en")
    a = build_stats(_lines(plays[:half], 1500), "en", root / "plays_a")
    b = build_stats(_lines(plays[half:], 1500), "en", root / "plays_b")
    return a, b


@pytest.fixture(scope="session")
def en_stats(en_stats_pair: tuple[Path, Path]) -> Path:
    return en_stats_pair[0]


@pytest.fixture(scope="session")
def fr_stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = (HERE / "data" / "fr.txt").read_text(encoding="utf-8").splitlines()
    return build_stats(text, "fr", tmp_path_factory.mktemp("fitclams-fr") / "fr")


@pytest.fixture(scope="session")
def de_stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = (HERE / "data" / "de.txt").read_text(encoding="utf-8").splitlines()
    return build_stats(text, "de", tmp_path_factory.mktemp("fitclams-de") / "de")


@pytest.fixture(scope="session")
def default_slice_stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``corpusbench stats`` as the demo runs it (NLTK tagger; 20 contexts per form as ``fitclams``
    computes for raw corpora) over Genesis, Exodus and four plays (~0.7 MB, ~15 s)."""
    import shutil

    from corpusbench.corpus.readers import CorpusSpec
    from corpusbench.corpus.stats import StatsParams, compute_stats

    root = tmp_path_factory.mktemp("fitclams-default-slice")
    for folder, names in SLICE.items():
        (root / "corpus" / folder.name).mkdir(parents=True)
        for name in names:
            assert (folder / name).is_file(), f"{folder / name} missing; run `make default-corpus`"
            shutil.copy(folder / name, root / "corpus" / folder.name / name)
    params = StatsParams(lang="en", tagger="nltk", max_contexts=20, workers=1)
    compute_stats(CorpusSpec(path=str(root / "corpus")), root / "stats", params)
    return root / "stats"
