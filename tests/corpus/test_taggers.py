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


def test_spacy_fast_path_gives_the_plain_pipelines_output(default_corpus):
    from corpusbench.corpus.taggers import SpacyTagger

    lines = (default_corpus / "shakespeare" / "macbeth.txt").read_text("utf-8").splitlines()[:150]
    texts = [ln for ln in lines if ln.strip()] * 2  # every document twice: the second is a cache hit
    fast, plain = SpacyTagger("en", fast=True), SpacyTagger("en", fast=False)
    assert "parser" not in fast.nlp.component_names and "senter" in fast.nlp.pipe_names
    want = plain.tag_texts(texts)
    assert fast.tag_texts(texts[:100]) + fast.tag_texts(texts[100:]) == want
    assert fast.describe() == plain.describe()
