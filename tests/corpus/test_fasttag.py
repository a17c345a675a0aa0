"""FastPerceptronTagger gives exactly nltk.pos_tag's tags."""

from __future__ import annotations

import pickle
from pathlib import Path

import nltk
import pytest

import corpusbench.corpus.fasttag as fasttag
from corpusbench.corpus.fasttag import FastPerceptronTagger
from corpusbench.corpus.tokenize import split_sentences, tokenize
from corpusbench.errors import ConfigError

EDGE_SENTENCES = [
    ["Hello"],
    ["1984", "was", "a", "year", "and", "2", "3.5", "-5", "12,000", "are", "numbers", "."],
    ["The", "well-known", "state-of-the-art", "-LRB-", "x", "-RRB-", "co-op", "is", "-", "here", "."],
    ["``", "Quoted", "''", "words", ",", "UPPER", "CASE", "and", "MiXeD", "Words", "!"],
    ["Zyxwvut", "blorfed", "the", "glimmerous", "snarks", "quixotically", "."],
    ["a"] * 3 + ["the"] * 3 + ["run"] * 3,
    ["It", "'s", "n't", "'ll", "'re", "'ve", "'d", "'m", "o'", "th'"],
    ["é", "naïve", "café", "Æsop", "ß"],
    ["", "empty", "", "tokens"],
]


def _nltk_tags(sents: list[list[str]]) -> list[list[str]]:
    return [[t for _, t in nltk.pos_tag(s)] if s else [] for s in sents]


@pytest.fixture(scope="module")
def corpus_sents(default_corpus: Path) -> list[list[str]]:
    lines = [ln for p in sorted(default_corpus.glob("*/*.txt")) for ln in p.read_text("utf-8").splitlines()]
    return [tokenize(s, "en") for ln in lines[::25] for s in split_sentences(ln, "en")]


@pytest.fixture(scope="module")
def tagger() -> FastPerceptronTagger:
    return FastPerceptronTagger()


def test_identical_to_nltk_on_corpus(corpus_sents: list[list[str]], tagger: FastPerceptronTagger) -> None:
    assert len(corpus_sents) > 3000
    ours = tagger.tag_sents(corpus_sents)
    assert ours == _nltk_tags(corpus_sents)


def test_small_batches_give_the_same_tags(corpus_sents: list[list[str]]) -> None:
    sents = corpus_sents[:300]
    big = FastPerceptronTagger().tag_sents(sents)
    small = FastPerceptronTagger(batch_tokens=50)
    assert small.tag_sents(sents) == big
    assert [small.tag(s) for s in sents[:20]] == big[:20]


def test_edge_sentences(tagger: FastPerceptronTagger) -> None:
    sents = [[], *EDGE_SENTENCES, []]
    assert tagger.tag_sents(sents) == _nltk_tags(sents)
    assert tagger.tag_sents([]) == []


def test_exact_path_matches_nltk(corpus_sents: list[list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Force every token through the near-tie rescoring in NLTK's summation order."""
    monkeypatch.setattr(fasttag, "_TIE_EPS", 1e9)
    sents = corpus_sents[:150] + EDGE_SENTENCES
    t = FastPerceptronTagger()
    assert t.tag_sents(sents) == _nltk_tags(sents)
    n_not_tagdict = sum(w not in t.model.td_id for s in sents for w in s)
    assert t.n_exact == n_not_tagdict > 0


# KJV/Shakespeare sentences with exact decimal ties between two labels (e.g. IN vs DT for "that"),
# which NLTK's float summation order decides.
TIED = [
    "He that walketh uprightly walketh surely : but he that perverteth his ways shall be known .",
    "He shall break in pieces mighty men without number , and set others in their stead .",
    "Thou wilt say then , The branches were broken off , that I might be graffed in .",
    "Phrase call you it ?",
]


def test_near_ties_are_resolved_like_nltk(monkeypatch: pytest.MonkeyPatch) -> None:
    sents = [s.split() for s in TIED]
    expected = _nltk_tags(sents)
    exact = FastPerceptronTagger()
    assert exact.tag_sents(sents) == expected
    assert exact.n_exact >= len(TIED)
    # without the rescoring, our summation order breaks some of these ties the other way
    monkeypatch.setattr(fasttag, "_TIE_EPS", -1.0)
    assert FastPerceptronTagger().tag_sents(sents) != expected


def test_pickles_without_weights(tagger: FastPerceptronTagger) -> None:
    tagger.tag(["warm", "up"])
    blob = pickle.dumps(tagger)
    assert len(blob) < 1000
    assert pickle.loads(blob).tag(["The", "cat", "sat", "."]) == ["DT", "NN", "VBD", "."]


def test_missing_model_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="averaged_perceptron_tagger_eng"):
        FastPerceptronTagger(model_dir=tmp_path).tag(["x"])
