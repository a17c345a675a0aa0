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
    from corpusbench.families.ltswap.candidates import build_candidates

    return build_candidates(slice_stats)


@pytest.fixture(scope="session")
def ltswap_vllm_started(tmp_path_factory, smollm2_dir):
    """A real vLLM CPU server with the default model on a free loopback port, started without waiting
    (it warms up while other fixtures work); stopped after the session."""
    from corpusbench.llm.server import ServerSpec, VLLMServer, free_port, vllm_python

    spec = ServerSpec(model=str(smollm2_dir), port=free_port(), python=str(vllm_python()))
    server = VLLMServer(spec, tmp_path_factory.mktemp("ltswap-vllm") / "server.log")
    server.start(wait=False)
    try:
        yield spec, server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def ltswap_vllm(ltswap_vllm_started):
    """The started server once it answers: its ``ServerSpec`` (``base_url``, ``name``)."""
    spec, server = ltswap_vllm_started
    server.wait_healthy(timeout=600)
    return spec


@pytest.fixture(scope="session")
def default_stats(tmp_path_factory, default_corpus, ltswap_vllm_started) -> CorpusStats:
    """Stats of the whole embedded default corpus (about 1.9M tokens; 1-1.5 min on 2 cores): a vocabulary
    broad enough for the default model's sentences to pass the corpus-vocabulary check. Asks for the
    server first so that it warms up meanwhile."""
    out = tmp_path_factory.mktemp("ltswap_default") / "stats"
    compute_stats(CorpusSpec(path=str(default_corpus)), out, StatsParams(workers=2))
    return CorpusStats.load(out)


@pytest.fixture(scope="session")
def judge_model_dir():
    """The default LT-Swap judge (`make judge-model`, in the test setup): missing fails, never skips."""
    from corpusbench.assets.judge_model import judge_model_dir as find

    path = find()
    assert path is not None, "default LT-Swap judge missing: run `make judge-model`"
    return path
