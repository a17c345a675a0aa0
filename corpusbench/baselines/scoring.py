"""Score sentences with a trained n-gram baseline: the scorer the eval runner uses for ``--model ngram:DIR``.

A text is split, tokenised and tagged by the model's own pipeline (the stats tagger it was trained
with); each sentence is padded with ``order - 1`` ``<s>``. ``score`` sums the natural-log
probabilities of the tokens that overlap the character span, or of every token plus each sentence's
``</s>`` when the span is None. ``ngram:DIR#slor`` scores SLOR instead: (log P(s) - log P_unigram(s))
divided by the number of tokens scored (Pauls & Klein 2012; Lau et al. 2017).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.baselines.kn import UNK, KneserNey
from corpusbench.baselines.train import model_manifest, token_of
from corpusbench.corpus.taggers import make_tagger
from corpusbench.errors import ConfigError
from corpusbench.provenance import file_sha256

NORMALISATIONS = ("logprob", "slor")
_QUOTES = {"``": ('"', "“", "``"), "''": ('"', "”", "''")}


def align(text: str, tokens: Sequence[str], start: int = 0) -> tuple[list[tuple[int, int]], int]:
    """Character offsets of tokens in ``text`` (searched in order from ``start``); unfound ones are empty."""
    spans = []
    pos = start
    for tok in tokens:
        best = None
        for cand in _QUOTES.get(tok, (tok,)):
            i = text.find(cand, pos)
            if i >= 0 and (best is None or i < best[0]):
                best = (i, i + len(cand))
        if best is None:
            spans.append((pos, pos))
            continue
        spans.append(best)
        pos = best[1]
    return spans, pos


class NgramScorer:
    """Scores texts with one word or tag KN model."""

    def __init__(self, path: Path, normalisation: str = "logprob") -> None:
        if normalisation not in NORMALISATIONS:
            raise ConfigError(
                f"unknown n-gram normalisation {normalisation!r}: use {', '.join(NORMALISATIONS)}"
            )
        self.path = Path(path)
        self.manifest = model_manifest(self.path)
        self.kind = self.manifest["model_kind"]
        self.normalisation = normalisation
        self.model = KneserNey.load(self.path / "model.npz")
        vocab = (self.path / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
        self.ids = {w: i for i, w in enumerate(vocab)}
        tp = self.manifest["tagger_params"]
        self.tagger = make_tagger(tp["name"], self.manifest["language"], tp["spacy_model"], tp["fast"])

    def tokens(self, texts: Sequence[str]) -> list[list[tuple[list[str], list[tuple[int, int]]]]]:
        """Per text, per sentence: (model tokens, character spans)."""
        out = []
        for text, sents in zip(texts, self.tagger.tag_texts(list(texts)), strict=True):
            pos = 0
            per = []
            for sent in sents:
                spans, pos = align(text, [t[0] for t in sent], pos)
                per.append(([token_of(self.kind, t) for t in sent], spans))
            out.append(per)
        return out

    def score(self, texts: Sequence[str], spans: Sequence[tuple[int, int] | None]) -> list[tuple[float, int]]:
        tokenised = self.tokens(texts)
        flat = [
            np.array([self.ids.get(t, UNK) for t in toks], dtype=np.int64)
            for per in tokenised
            for toks, _ in per
        ]
        lps = iter(self.model.sentence_logprobs(flat) if flat else [])
        out = []
        for per, span, ids in zip(tokenised, spans, _group(flat, tokenised), strict=True):
            total, unigram, n = 0.0, 0.0, 0
            for (_, char_spans), sent_ids in zip(per, ids, strict=True):
                lp = next(lps)
                if span is None:
                    keep = np.ones(len(lp), dtype=bool)  # every token and the final </s>
                else:
                    s, e = span
                    keep = np.array([a < e and b > s for a, b in char_spans] + [False], dtype=bool)
                total += float(lp[keep].sum())
                n += int(keep.sum())
                if self.normalisation == "slor":
                    full = np.append(sent_ids, 2)  # </s>
                    unigram += float(self.model.unigram_logprob(full[keep]).sum())
            if self.normalisation == "slor":
                out.append(((total - unigram) / n if n else 0.0, n))
            else:
                out.append((total, n))
        return out

    def conventions(self) -> dict[str, Any]:
        m = self.manifest
        return {
            "scorer": f"ngram-{self.kind}",
            "order": m["order"],
            "estimator": m["estimator"],
            "normalisation": self.normalisation,
            "bos": f"{m['order'] - 1} x <s> per sentence",
            "eos": "</s> scored for whole sentences, not for spans",
            "span_tokens": "tokens overlapping the character span",
            "oov": m["oov"],
            "tokens": "lowercased forms" if self.kind == "word" else "tagger tags",
            "tagger": m["tagger"].get("implementation", m["tagger"].get("name")),
        }

    def provenance(self) -> dict[str, Any]:
        m = self.manifest
        return {
            "model_id": str(self.path),
            "model_revision": file_sha256(self.path / "model.npz")[:16],
            "arch": f"ngram-{self.kind}",
            "dtype": "n/a",
            "order": m["order"],
            "corpus_fingerprint": m["corpus"]["fingerprint"],
            "ngram_types": m["ngram_types"],
            "tagger": m["tagger"],
            "trained_with": m["code"],
        }


def _group(flat: list[np.ndarray], tokenised: list[list[Any]]) -> list[list[np.ndarray]]:
    out, i = [], 0
    for per in tokenised:
        out.append(flat[i : i + len(per)])
        i += len(per)
    return out


def parse_model_ref(ref: Path | str) -> tuple[Path, str]:
    """``DIR`` or ``DIR#slor`` / ``DIR#logprob`` -> (folder, normalisation)."""
    text = str(ref)
    base, sep, norm = text.rpartition("#")
    if sep and norm in NORMALISATIONS:
        return Path(base), norm
    return Path(text), "logprob"


def load_ngram_scorer(path: Path | str) -> tuple[NgramScorer, dict[str, Any]]:
    """(scorer, model provenance) for the eval runner's ``--model ngram:DIR[#slor]`` (the ``ngram`` scheme
    of :mod:`corpusbench.eval.scorers`)."""
    folder, norm = parse_model_ref(path)
    scorer = NgramScorer(folder, norm)
    return scorer, scorer.provenance()
