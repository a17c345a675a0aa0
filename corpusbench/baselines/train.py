"""``corpusbench baseline train``: tokens and tags from the stats pipeline -> word and tag KN models.

The corpus is read, split, tokenised and tagged exactly as ``corpusbench stats`` does it (same reader,
same tagger, fast NLTK by default), so the tag model sees the stats' tagger output. Word forms are
lowercased like the stats' forms. One pass feeds both models. A model folder holds ``model.npz``
(the count arrays), ``vocab.txt`` (one token per line, line number = id) and ``manifest.json``
(corpus fingerprint, order, kind, tagger, discounts, sizes, code version); it is written atomically.
"""

from __future__ import annotations

import logging
import resource
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.baselines.kn import SPECIALS, KneserNey
from corpusbench.corpus.readers import CorpusSpec, Fingerprinter, read_corpus, resolve_reader
from corpusbench.corpus.taggers import check_tagger, make_tagger, tag_in_chunks
from corpusbench.errors import ConfigError, InputError
from corpusbench.io import atomic_dir, atomic_write, read_json, write_json
from corpusbench.provenance import code_version

log = logging.getLogger(__name__)
KINDS = ("word", "tag")
FORMAT = "corpusbench.ngram"
CHUNK_CHARS = 200_000
Progress = Callable[[int, int], None]  # (documents done, bytes done)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainParams:
    order: int = 5
    lang: str = "en"
    tagger: str | None = None  # default per language, as for stats
    spacy_model: str | None = None
    discount: float | None = None  # None: modified KN discounts estimated per order
    fast: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainReport:
    outs: dict[str, Path]
    sentences: int
    tokens: int
    types: dict[str, int]
    seconds_tagging: float
    seconds_counting: float
    peak_rss_mb: float


def token_of(kind: str, token: tuple[str, ...]) -> str:
    """The model token of one tagged token: the lowercased form (word) or the tag (tag)."""
    return token[0].lower() if kind == "word" else token[1]


class _Encoder:
    """Maps tokens to provisional ids while streaming; ids are re-numbered in sorted order at the end."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {s: i for i, s in enumerate(SPECIALS)}
        self.stream = array("i")
        self.lengths = array("i")

    def add(self, tokens: Sequence[str]) -> None:
        ids = self.ids
        self.stream.extend([ids.setdefault(t, len(ids)) for t in tokens])
        self.lengths.append(len(tokens))

    def finish(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(vocabulary in id order, concatenated token ids, sentence lengths)."""
        words = sorted(w for w in self.ids if w not in SPECIALS)
        vocab = [*SPECIALS, *words]
        remap = np.zeros(len(self.ids), dtype=np.int64)
        for new, w in enumerate(vocab):
            remap[self.ids[w]] = new
        flat = remap[np.frombuffer(self.stream, dtype=np.int32)]
        return vocab, flat, np.frombuffer(self.lengths, dtype=np.int32).astype(np.int64)


def check_stats(stats: Path | None, params: TrainParams) -> tuple[TrainParams, dict[str, Any] | None]:
    """Take language and tagger from a stats folder (so the tags match); returns its manifest."""
    if stats is None:
        return params, None
    path = Path(stats) / "manifest.json"
    if not path.is_file():
        raise InputError(f"{stats}: not a corpusbench stats folder (no manifest.json)")
    m = read_json(path)
    p = m.get("parameters", {})
    tagger = m.get("tagger", {})
    fast = tagger.get("implementation") != "nltk.tag.perceptron"
    return (
        TrainParams(
            order=params.order,
            lang=m.get("language", params.lang),
            tagger=tagger.get("name") or p.get("tagger"),
            spacy_model=p.get("spacy_model"),
            discount=params.discount,
            fast=fast,
        ),
        m,
    )


def train_ngrams(
    spec: CorpusSpec,
    outs: dict[str, Path],
    params: TrainParams | None = None,
    *,
    stats: Path | None = None,
    progress: Progress | None = None,
) -> TrainReport:
    """Tag the corpus once and write one model folder per kind in ``outs`` (``word``/``tag`` -> folder)."""
    params = params or TrainParams()
    bad = [k for k in outs if k not in KINDS]
    if bad or not outs:
        raise ConfigError(f"unknown model kind(s) {bad or '(none)'}: use {' or '.join(KINDS)}")
    if params.order < 1 or params.order > 9:
        raise ConfigError(f"--order must be between 1 and 9 (got {params.order})")
    params, stats_manifest = check_stats(stats, params)
    tagger_name = check_tagger(params.tagger, params.lang)
    reader = resolve_reader(spec)
    for out in outs.values():
        if out.exists() and not out.is_dir():
            raise InputError(f"{out}: output path exists and is not a directory")
    t0 = time.perf_counter()
    tagger = make_tagger(tagger_name, params.lang, params.spacy_model, params.fast)
    fp = Fingerprinter()
    enc = {k: _Encoder() for k in outs}

    def texts() -> Iterator[str]:
        size = 0
        for doc in read_corpus(spec):
            fp.update(doc)
            size += len(doc.text)
            if progress and size // CHUNK_CHARS != (size - len(doc.text)) // CHUNK_CHARS:
                progress(fp.n_documents, size)
            yield doc.text
        if progress:  # the final count (the ticks above come only every CHUNK_CHARS), as stats counts it
            progress(fp.n_documents, size)

    for sents in tag_in_chunks(tagger, texts(), CHUNK_CHARS):
        for sent in sents:
            for kind, e in enc.items():
                e.add([token_of(kind, t) for t in sent])
    corpus_fp = fp.result().as_dict()
    if stats_manifest is not None:
        want = stats_manifest.get("corpus", {}).get("fingerprint", {}).get("sha256")
        if want and want != corpus_fp["sha256"]:
            raise InputError(f"{stats}: stats were counted on another corpus than {spec.path} (fingerprint)")
    n_sents = len(next(iter(enc.values())).lengths)
    n_tokens = len(next(iter(enc.values())).stream)
    if n_tokens == 0:
        raise InputError(f"{spec.path}: corpus is empty (no tokens)")
    t1 = time.perf_counter()
    types: dict[str, int] = {}
    for kind, out in outs.items():
        vocab, flat, lengths = enc.pop(kind).finish()
        model = KneserNey.fit_flat(flat, lengths, len(vocab), params.order, discount=params.discount)
        del flat, lengths
        types[kind] = len(vocab) - len(SPECIALS)
        manifest = {
            "kind": FORMAT,
            "format_version": 1,
            "model_kind": kind,
            "order": params.order,
            "estimator": "interpolated modified Kneser-Ney (Chen & Goodman 1999)",
            "discount": params.discount if params.discount is not None else "estimated",
            "discounts": [o.discounts.tolist() for o in model.orders],
            "oov": "<unk> via a uniform floor at the unigram level",
            "padding": {"bos": params.order - 1, "eos": 1},
            "lowercase": kind == "word",
            "language": params.lang,
            "tagger": tagger.describe(),
            "tagger_params": {"name": tagger_name, "spacy_model": params.spacy_model, "fast": params.fast},
            "corpus": {"spec": spec.as_dict(), "reader": reader, "fingerprint": corpus_fp},
            "stats": str(stats) if stats else None,
            "totals": {"sentences": n_sents, "tokens": n_tokens, "types": types[kind]},
            "ngram_types": model.n_types(),
            "code": code_version(),
        }
        with atomic_dir(out) as tmp:
            model.save(tmp / "model.npz")
            with atomic_write(tmp / "vocab.txt") as fh:
                fh.write("".join(f"{w}\n" for w in vocab))
            write_json(tmp / "manifest.json", manifest)
        del model
    t2 = time.perf_counter()
    return TrainReport(
        outs=outs,
        sentences=n_sents,
        tokens=n_tokens,
        types=types,
        seconds_tagging=t1 - t0,
        seconds_counting=t2 - t1,
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )


def model_manifest(path: Path) -> dict[str, Any]:
    """The manifest of a model folder, checked."""
    m_path = Path(path) / "manifest.json"
    if not m_path.is_file() or not (Path(path) / "model.npz").is_file():
        raise InputError(
            f"{path}: not an n-gram model folder (run `corpusbench baseline train CORPUS --out {path}`)"
        )
    m = read_json(m_path)
    if m.get("kind") != FORMAT:
        raise InputError(f"{path}: manifest kind {m.get('kind')!r} is not {FORMAT}")
    return m
