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
    hits = []
    real = fast._tokens._key
    fast._tokens._key = lambda t: hits.append(real(t) in fast._tokens.cache) or real(t)  # type: ignore[method-assign]
    got = [doc for i in range(0, len(texts), 64) for doc in fast.tag_texts(texts[i : i + 64])]
    assert got == want
    assert sum(hits) > len(hits) / 3  # the cache really answered
    if lang == "en":  # and the pairs matter: without their check the cache answers 'ai', 'y' wrongly
        blind = SpacyTagger(lang, fast=True)
        assert blind._tokens is not None
        blind._tokens.pairs = []
        assert [doc for i in range(0, len(texts), 64) for doc in blind.tag_texts(texts[i : i + 64])] != want
