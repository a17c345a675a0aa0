"""corpusbench.corpus.tokenize reproduces NLTK's word_tokenize / sent_tokenize."""

from __future__ import annotations

from pathlib import Path

import nltk
import pytest
from nltk.tokenize.destructive import NLTKWordTokenizer

from corpusbench.corpus.tokenize import split_sentences, tokenize
from corpusbench.errors import ConfigError

TRICKY = [
    "I can't believe it isn't done; they'll say we've won, but you're wrong and I'm right.",
    "He said, \"Don't go!\" and she replied: 'Why not?'",
    "``Quoted'' text, “curly quotes” and ‘single curly’ ones — with an em dash – and en dash.",
    "Mr. Smith paid $3.88 (roughly 3,36 euros) on 12/03/2021 at 5:30 p.m. for 1,000 items.",
    "The state-of-the-art, well-known co-operation costs 59th-percentile prices... Really?!",
    "'Tis the season; 'twas brillig. Thou cannot wanna gonna gotta lemme gimme more'n d'ye know.",
    "O, what a rogue and peasant slave am I! Is it not monstrous that this player here, "
    "But in a fiction, in a dream of passion, could force his soul so to his own conceit",
    "Hippolyta, I woo'd thee with my sword, and won thy love, doing thee injuries; o' the",
    "The lovers' quarrel ended -- finally -- with a <tag> and [brackets] {braces} * stars & more @ #1 50%.",
    "He ended with a quote.\" And another one.' Then brackets.) ] }",
    "Ends with a colon: ",
    "  leading and trailing spaces, tabs\there and  double  spaces.  ",
    'A final period after a quote".',
    "Hello world.",
    "Hello",
    "",
    "»Guillemets« and «French ones» are split too.",
    "What?... No!!! Yes.",
    "She's the dog's owner, isn't she? Y'all O'Neil's rock 'n' roll.",
]


def test_tricky_cases_match_nltk() -> None:
    ref = NLTKWordTokenizer()
    for s in TRICKY:
        assert tokenize(s, "en") == ref.tokenize(s), s


def test_word_tokenize_equivalence_on_pieces() -> None:
    # word_tokenize = punkt sentences, then the Treebank rules on each
    for s in TRICKY:
        ours = [t for sent in split_sentences(s, "en") for t in tokenize(sent, "en")]
        assert ours == nltk.word_tokenize(s), s


def test_contractions_and_quotes() -> None:
    assert tokenize("They don't know it's John's.", "en") == [
        "They",
        "do",
        "n't",
        "know",
        "it",
        "'s",
        "John",
        "'s",
        ".",
    ]
    assert tokenize('"Go," he said.', "en") == ["``", "Go", ",", "''", "he", "said", "."]
    assert tokenize("Mr. Smith cannot stay.", "en") == ["Mr.", "Smith", "can", "not", "stay", "."]


def _sample_lines(corpus: Path, step: int) -> list[str]:
    lines = [ln for p in sorted(corpus.glob("*/*.txt")) for ln in p.read_text("utf-8").splitlines()]
    return lines[::step]


def test_default_corpus_sentences_identical(default_corpus: Path) -> None:
    ref = NLTKWordTokenizer()
    sents = [s for ln in _sample_lines(default_corpus, 20) for s in split_sentences(ln, "en")]
    assert len(sents) > 3000
    bad = [s for s in sents if tokenize(s, "en") != ref.tokenize(s)]
    assert bad == []


def test_split_sentences_is_punkt(default_corpus: Path) -> None:
    lines = _sample_lines(default_corpus, 20)
    assert [split_sentences(ln, "en") for ln in lines] == [nltk.sent_tokenize(ln, "english") for ln in lines]
    for text in TRICKY:
        assert split_sentences(text, "en") == nltk.sent_tokenize(text, "english"), text
    assert split_sentences("Mr. Smith went to Washington. He left at 5 p.m. on Monday.", "en") == [
        "Mr. Smith went to Washington.",
        "He left at 5 p.m. on Monday.",
    ]
    assert split_sentences("", "en") == [] and split_sentences("  \n", "en") == []


def test_other_languages() -> None:
    assert split_sentences("Il est venu. Elle est partie.", "fr") == ["Il est venu.", "Elle est partie."]
    for text in (
        "Er kam am 3. Mai. Sie ging, d.h. sofort. Dr. Müller sagt: »Nein!« Gut.",
        "M. Dupont est arrivé à 15 h. Il a dit « bonjour ». Etc. Fin.",
    ):
        for lang, name in (("de", "german"), ("fr", "french")):
            assert split_sentences(text, lang) == nltk.sent_tokenize(text, name)
    assert tokenize("Elle est partie, hélas.", "fr") == ["Elle", "est", "partie", ",", "hélas", "."]


def test_unknown_language() -> None:
    with pytest.raises(ConfigError, match="unknown language"):
        tokenize("x", "xx")
    with pytest.raises(ConfigError, match="unknown language"):
        split_sentences("x", "xx")
