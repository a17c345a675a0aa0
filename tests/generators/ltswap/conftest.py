"""Fixtures: real corpus statistics of a slice of the embedded default corpus (Macbeth + Ruth)."""

from __future__ import annotations

import shutil

import pytest

from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.stats import StatsParams, compute_stats
from corpusbench.corpus.store import CorpusStats

SLICE = ("shakespeare/macbeth.txt", "kjv/08-ruth.txt")


@pytest.fixture(scope="session")
def slice_corpus(tmp_path_factory, default_corpus):
    d = tmp_path_factory.mktemp("ltswap_slice")
    for rel in SLICE:
        shutil.copy(default_corpus / rel, d / rel.replace("/", "_"))
    return d


@pytest.fixture(scope="session")
def slice_stats(slice_corpus, tmp_path_factory) -> CorpusStats:
    out = tmp_path_factory.mktemp("ltswap_stats") / "stats"
    compute_stats(CorpusSpec(path=str(slice_corpus)), out, StatsParams())
    return CorpusStats.load(out)


@pytest.fixture(scope="session")
def slice_candidates(slice_stats):
    from corpusbench.generators.ltswap.candidates import build_candidates

    return build_candidates(slice_stats)
