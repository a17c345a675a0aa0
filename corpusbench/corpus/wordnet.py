"""English WordNet 3.0 from the NLTK data `make nltk-data` builds, read once per process."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def english_wordnet():  # type: ignore[no-untyped-def]
    """English WordNet 3.0 without NLTK's OMW version mapping, which re-reads index.sense twice on every
    load (nltk 3.9/3.10 compare the version string "3.0" with the corpus name) and is not needed here."""
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _EnglishWordNet(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            return None

    try:
        root = nltk.data.find("corpora/wordnet")
    except LookupError as e:
        from corpusbench.errors import ConfigError

        raise ConfigError("NLTK WordNet not found; run `make nltk-data` and set NLTK_DATA") from e
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": expected, English only
        return _EnglishWordNet(root, None)
