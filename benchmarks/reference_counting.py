"""A faithful re-implementation of LT-Swap's counting step (reference notes §1.1), the benchmark baseline.

The method, as upstream runs it: one ``multiprocessing.Pool`` worker per input file; each line has
``\\t`` replaced by a space and is split naively on ``'.'``; every piece goes through
``nltk.word_tokenize`` then ``nltk.pos_tag``. Every lowercased token is counted into the vocabulary.
A token becomes a candidate unless it is all digits or shorter than 2 characters, unknown to
pyspellchecker's English dictionary, tagged NNP/NNPS, or capitalised and not the piece's first
token. Candidates are counted per (lowercased form, suffix-collapsed POS), and each (form, POS)
keeps the longest piece (trimmed to 128 tokens around the word) in which the form occurs exactly
once, rejecting pieces with URL-like or over-long tokens. Each file's result is dumped as JSON.

Written from the reference notes, not from upstream code. The upstream quirk that lowercases
earlier-counted words inside a stored context is not reproduced. ``impl="fast"`` swaps in
corpusbench's tokenizer and tagger (same outputs, batched) to check they reproduce the counts.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

MAX_CONTEXT = 128
_CONTEXT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz!\"$%&`'’()*,-.–0123456789:;?@[]")
_BAD_SUBSTRINGS = ("javascript", "html", "http", "www")

TagPieces = Callable[[list[str]], tuple[list[list[str]], list[list[str]]]]


def format_pos(tag: str, word: str) -> str:
    """The reference's suffix-based POS collapse."""
    if tag in ("NN", "NNS"):
        return "NOUN_P" if word.endswith("s") else "NOUN"
    if tag.startswith("VB"):
        if word.endswith("ed"):
            return "VERB_Past"
        if word.endswith("ing"):
            return "VERB_PresC"
        if word.endswith("s"):
            return "VERB_PresT"
        return "VERB"
    return "UNK"


@cache
def _known() -> Callable[[str], bool]:
    """pyspellchecker's English lexicon check, or accept-all when it is not installed."""
    try:
        from spellchecker import SpellChecker
    except ImportError:
        return lambda word: True
    spell = SpellChecker()
    return lambda word: len(spell.known([word])) > 0


def spellchecker_available() -> bool:
    try:
        import spellchecker  # noqa: F401
    except ImportError:
        return False
    return True


def _nltk_pieces(pieces: list[str]) -> tuple[list[list[str]], list[list[str]]]:
    import nltk

    toks, tags = [], []
    for piece in pieces:
        tagged = nltk.pos_tag(nltk.word_tokenize(piece))
        toks.append([w for w, _ in tagged])
        tags.append([t for _, t in tagged])
    return toks, tags


_FAST: Any = None


def _fast_pieces(pieces: list[str]) -> tuple[list[list[str]], list[list[str]]]:
    global _FAST
    from corpusbench.corpus.fasttag import FastPerceptronTagger
    from corpusbench.corpus.tokenize import split_sentences, tokenize

    if _FAST is None:
        _FAST = FastPerceptronTagger()
    toks = [[t for s in split_sentences(p, "en") for t in tokenize(s, "en")] for p in pieces]
    return toks, _FAST.tag_sents(toks)


def _context(tokens: Sequence[str], i: int) -> tuple[str, int, int] | None:
    """The stored context of token ``i``: cleaned text, word index, length; None when rejected."""
    if any(len(t) > 40 or any(b in t.lower() for b in _BAD_SUBSTRINGS) for t in tokens):
        return None
    start = 0
    if len(tokens) > MAX_CONTEXT:
        start = max(0, min(i - MAX_CONTEXT // 2, len(tokens) - MAX_CONTEXT))
    window = list(tokens[start : start + MAX_CONTEXT])
    window[i - start] = window[i - start].lower()
    text = " ".join(window)
    text = "".join(c if c.isalpha() or c in _CONTEXT_CHARS else " " for c in text)
    return text, i - start, len(window)


def _slot() -> dict[str, Any]:
    return {"freq": 0, "context": None, "word_index": -1, "context_len": 0}


def count_pieces(
    toks: list[list[str]], tags: list[list[str]], words: dict[str, Any], voc: Counter[str]
) -> None:
    """Count tagged pieces into the reference's per-word dictionary and vocabulary."""
    known = _known()
    for sent, stags in zip(toks, tags, strict=True):
        lowered = [w.lower() for w in sent]
        voc.update(lowered)
        occurrences = Counter(lowered)
        for i, (w, t) in enumerate(zip(sent, stags, strict=True)):
            if w.isdigit() or len(w) < 2 or t in ("NNP", "NNPS") or (i > 0 and w[0].isupper()):
                continue
            if not known(w):
                continue
            form = lowered[i]
            pos = format_pos(t, form)
            entry = words.setdefault(form, {"freq": 0, "POS": {}})
            entry["freq"] += 1
            slot = entry["POS"].setdefault(pos, _slot())
            slot["freq"] += 1
            if occurrences[form] == 1 and min(len(sent), MAX_CONTEXT) > slot["context_len"]:
                ctx = _context(sent, i)
                if ctx is not None:
                    slot["context"], slot["word_index"], slot["context_len"] = ctx


def count_file(args: tuple[str, str, str]) -> tuple[str, int]:
    """One pool task: count a file, dump ``<out>/<name>`` and ``<out>/<name>.voc``; returns (name, tokens)."""
    path, out_dir, impl = args
    tag_pieces: TagPieces = _fast_pieces if impl == "fast" else _nltk_pieces
    words: dict[str, Any] = {}
    voc: Counter[str] = Counter()
    pieces: list[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            pieces += line.replace("\t", " ").split(".")
            if len(pieces) >= 20_000:
                count_pieces(*tag_pieces(pieces), words, voc)
                pieces = []
    if pieces:
        count_pieces(*tag_pieces(pieces), words, voc)
    name = Path(path).name
    Path(out_dir, name).write_text(json.dumps(words), encoding="utf-8")
    Path(out_dir, name + ".voc").write_text(json.dumps(voc), encoding="utf-8")
    return name, sum(voc.values())


def count_corpus(data_dir: str | Path, out_dir: str | Path, workers: int = 5, impl: str = "nltk") -> int:
    """Run the counting step over every file of ``data_dir`` with a per-file pool; returns tokens counted."""
    files = sorted(str(p) for p in Path(data_dir).iterdir() if p.is_file())
    os.makedirs(out_dir, exist_ok=True)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return sum(n for _, n in pool.imap_unordered(count_file, [(f, str(out_dir), impl) for f in files]))


def load_counts(out_dir: str | Path) -> tuple[dict[str, Any], Counter[str]]:
    """Merge the per-file dumps: summed (form, POS) frequencies with contexts, and the vocabulary."""
    words: dict[str, Any] = {}
    voc: Counter[str] = Counter()
    for p in sorted(Path(out_dir).iterdir()):
        data = json.loads(p.read_text(encoding="utf-8"))
        if p.suffix == ".voc":
            voc.update(data)
            continue
        for form, entry in data.items():
            dst = words.setdefault(form, {"freq": 0, "POS": {}})
            dst["freq"] += entry["freq"]
            for pos, slot in entry["POS"].items():
                d = dst["POS"].setdefault(pos, _slot())
                d["freq"] += slot["freq"]
                if slot["context_len"] > d["context_len"]:
                    d.update(
                        context=slot["context"],
                        word_index=slot["word_index"],
                        context_len=slot["context_len"],
                    )
    return words, voc
