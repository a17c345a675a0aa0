"""Batched, exact re-implementation of NLTK's averaged-perceptron POS tagger (inference only).

``FastPerceptronTagger().tag_sents(sents)`` returns the tags ``nltk.pos_tag`` gives each sentence,
from the same ``averaged_perceptron_tagger_eng`` weights, 10-30x faster on large batches.

How it stays exact. NLTK scores a token with 14 features (``PerceptronTagger._get_features``):
the tag-dictionary shortcut first, then ``bias``, the word's suffix/first letter/normalised form,
the normalised neighbours (words and suffixes at -2..+2), and four features of the previous two
*predicted* tags. Here the word-only features are gathered for all tokens of a batch at once
(one weight row per feature string, rows found once per word type and cached), the tag features
come from a precomputed ``(prev, prev2)`` table plus a sorted table of the ``prev tag + word``
features, and the greedy left-to-right decoding runs one position at a time across all sentences
of the batch. The arg-max breaks ties by the larger label, as NLTK's
``max(classes, key=lambda l: (score, l))``. Summation order differs from NLTK's, so scores may
differ in the last bits; every weight is a multiple of 0.001 (``round(x, 3)`` at training), so two
labels whose scores are within ``_TIE_EPS`` are an exact tie in decimal arithmetic that NLTK's
float order decides: those tokens (rare) are rescored with NLTK's own feature order in pure Python.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from corpusbench.errors import ConfigError
from corpusbench.io import atomic_path, cache_dir

START = ("-START-", "-START2-")
END = ("-END-", "-END2-")
_TIE_EPS = 1e-6  # distinct decimal scores differ by >= 1e-3; float64 summation error is < 1e-12
_PW_PREFIX = "i-1 tag+i word "
# per-type columns: rows of the static weight matrix, then the prev-tag+word id and the tagdict tag
_SUF, _PREF, _WORD, _M1W, _M1S, _M2W, _P1W, _P1S, _P2W, _PW, _TD = range(11)
_TYPE_CACHE_MAX = 300_000  # word types whose feature rows are cached (cleared when exceeded)


def _normalize(word: str) -> str:
    """``PerceptronTagger.normalize``."""
    if "-" in word and word[0] != "-":
        return "!HYPHEN"
    if word.isdigit() and len(word) == 4:
        return "!YEAR"
    if word and word[0].isdigit():
        return "!DIGITS"
    return word.lower()


def _model_dir() -> Path:
    """The tagger's folder: under ``$NLTK_DATA`` first (no ``import nltk`` needed), else NLTK's path."""
    name = "taggers/averaged_perceptron_tagger_eng"

    def found(roots: list[str]) -> Path | None:
        for root in roots:
            d = Path(root) / name
            if (d / "averaged_perceptron_tagger_eng.weights.json").is_file():
                return d
        return None

    d = found([p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p])
    if d is None:
        import nltk.data

        d = found([str(p) for p in nltk.data.path])
    if d is None:
        raise ConfigError(
            "NLTK's averaged_perceptron_tagger_eng data is not installed "
            "(set NLTK_DATA; `make nltk-data` builds it)"
        )
    return d


_ARRAYS_VERSION = "1"


def _build_arrays(path: Path) -> dict[str, np.ndarray]:
    """Dense weight tables from NLTK's three JSON files (classes sorted descending)."""
    stem = path / "averaged_perceptron_tagger_eng"
    weights: dict[str, dict[str, float]] = json.loads(stem.with_suffix(".weights.json").read_text("utf-8"))
    tagdict: dict[str, str] = json.loads(stem.with_suffix(".tagdict.json").read_text("utf-8"))
    classes = sorted(json.loads(stem.with_suffix(".classes.json").read_text("utf-8")), reverse=True)
    names = [*classes, *START]
    cid = {t: i for i, t in enumerate(names)}
    ncls, n_prev = len(classes), len(names)
    feats = list(weights)
    rr: list[int] = []
    cc: list[int] = []
    vv: list[float] = []
    for i, f in enumerate(feats):  # one dense row per feature, filled in bulk
        d = weights[f]
        rr += [i] * len(d)
        cc += [cid[label] for label in d]
        vv += d.values()
    dense = np.zeros((len(feats) + 1, ncls))  # last row: an absent feature
    dense[rr, cc] = vv
    fid = {f: i for i, f in enumerate(feats)}

    def rows(names_: list[str]) -> np.ndarray:
        return dense[[fid.get(f, -1) for f in names_]]

    dynamic = ("i-1 tag ", "i-2 tag ", "i tag+i-2 tag ", _PW_PREFIX, "bias")
    static = [f for f in feats if not f.startswith(dynamic)]
    pw_words: dict[str, int] = {}
    keys, pw_rows = [], []
    for f in feats:
        if f.startswith(_PW_PREFIX):
            prev, word = f[len(_PW_PREFIX) :].split(" ", 1)
            if prev in cid:  # NLTK's previous tag is always a class or a START symbol
                keys.append(pw_words.setdefault(word, len(pw_words)) * n_prev + cid[prev])
                pw_rows.append(fid[f])
    order = np.argsort(keys)
    return {
        "classes": np.asarray(classes),
        "static_feats": np.asarray(static),
        "W": np.concatenate([np.zeros((1, ncls)), rows(static)]),  # row 0: an absent feature
        "bias": rows(["bias"])[0],
        "p1": rows([f"i-1 tag {t}" for t in names]),
        "p2": rows([f"i-2 tag {t}" for t in names]),
        "p12": rows([f"i tag+i-2 tag {t} {u}" for t in names for u in names]).reshape(n_prev, n_prev, ncls),
        "pw_words": np.asarray(list(pw_words)),
        "pw_keys": np.asarray(keys, dtype=np.int64)[order],
        "pw_rows": dense[np.asarray(pw_rows, dtype=np.int64)[order]],
        "td_words": np.asarray(list(tagdict)),
        "td_tags": np.asarray(list(tagdict.values())),
    }


def _cache_dir() -> Path:
    return cache_dir("fasttag")


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    """``_build_arrays`` through a cache keyed by the data files' hash (a .npz loads ~10x faster)."""
    h = hashlib.sha256(_ARRAYS_VERSION.encode())
    for kind in ("weights", "tagdict", "classes"):
        h.update((path / f"averaged_perceptron_tagger_eng.{kind}.json").read_bytes())
    cached = _cache_dir() / f"averaged_perceptron_tagger_eng-{h.hexdigest()[:16]}.npz"
    try:
        with np.load(cached, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError):
        pass
    arrays = _build_arrays(path)
    try:
        with atomic_path(cached) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
    except OSError:  # a read-only cache only costs speed
        pass
    return arrays


class _Model:
    """The tagger's weights as dense rows over the classes (sorted descending: arg-max = max label)."""

    def __init__(self, a: dict[str, np.ndarray]) -> None:
        self.classes: list[str] = a["classes"].tolist()
        self.tag_names = [*self.classes, *START]  # ids of possible previous tags
        self.tag_id = {t: i for i, t in enumerate(self.tag_names)}
        self.n_prev = n_prev = len(self.tag_names)
        self.row = {f: i + 1 for i, f in enumerate(a["static_feats"].tolist())}
        self.W, self.bias, self.p1, self.p2, self.p12 = a["W"], a["bias"], a["p1"], a["p2"], a["p12"]
        # "i-1 tag", "i-2 tag", "i tag+i-2 tag" summed per (prev, prev2)
        self.D = (self.p1[:, None, :] + self.p2[None, :, :] + self.p12).reshape(n_prev * n_prev, -1)
        # "i-1 tag+i word": sorted keys word_id * n_prev + prev_id
        self.pw_word = {w: i for i, w in enumerate(a["pw_words"].tolist())}
        self.pw_keys, self.pw_rows = a["pw_keys"], a["pw_rows"]
        td = zip(a["td_words"].tolist(), a["td_tags"].tolist(), strict=True)
        self.td_id = {w: self.tag_id[t] for w, t in td}
        self.zero = np.zeros(len(self.classes))

    def type_row(self, word: str, raw: bool = True) -> list[int]:
        """The 11 per-type columns of ``word`` (``raw=False``: a START/END pseudo-word, not normalised)."""
        n = _normalize(word) if raw else word
        r = self.row.get
        return [
            r("i suffix " + word[-3:], 0),
            r("i pref1 " + (word[0] if word else ""), 0),
            r("i word " + n, 0),
            r("i-1 word " + n, 0),
            r("i-1 suffix " + n[-3:], 0),
            r("i-2 word " + n, 0),
            r("i+1 word " + n, 0),
            r("i+1 suffix " + n[-3:], 0),
            r("i+2 word " + n, 0),
            self.pw_word.get(n, -1),
            self.td_id.get(word, -1) if raw else -1,
        ]

    def _pw(self, prev: int, word: str) -> np.ndarray:
        wid = self.pw_word.get(word)
        if wid is None:
            return self.zero
        key = wid * self.n_prev + prev
        at = int(np.searchsorted(self.pw_keys, key))
        return self.pw_rows[at] if at < len(self.pw_keys) and self.pw_keys[at] == key else self.zero

    def exact(self, words: Sequence[str], i: int, prev: int, prev2: int) -> int:
        """NLTK's feature order and summation for token ``i`` (used on near-ties only).

        Per label, NLTK adds the feature weights in feature order starting from 0.0; adding the
        dense rows in that order performs the same float additions (an absent label adds 0.0).
        """
        ctx = [*START, *(_normalize(w) for w in words), *END]
        word, c = words[i], i + 2
        W, row = self.W, self.row

        def st(f: str) -> np.ndarray:
            return W[row.get(f, 0)]

        vecs = [
            self.bias,
            st("i suffix " + word[-3:]),
            st("i pref1 " + (word[0] if word else "")),
            self.p1[prev],
            self.p2[prev2],
            self.p12[prev, prev2],
            st("i word " + ctx[c]),
            self._pw(prev, ctx[c]),
            st("i-1 word " + ctx[c - 1]),
            st("i-1 suffix " + ctx[c - 1][-3:]),
            st("i-2 word " + ctx[c - 2]),
            st("i+1 word " + ctx[c + 1]),
            st("i+1 suffix " + ctx[c + 1][-3:]),
            st("i+2 word " + ctx[c + 2]),
        ]
        scores = np.zeros(len(self.classes))
        for v in vecs:
            scores = scores + v
        values = scores.tolist()
        best = max(range(len(values)), key=lambda k: (values[k], self.classes[k]))
        return best


class FastPerceptronTagger:
    """Drop-in for ``nltk.pos_tag`` over many sentences; weights load on first use (cheap to pickle).

    Call ``tag_sents`` with large batches (thousands of sentences): the decoding loop runs once
    per token position across the whole batch.
    """

    def __init__(self, model_dir: str | Path | None = None, batch_tokens: int = 200_000) -> None:
        self.model_dir = Path(model_dir) if model_dir else None
        self.batch_tokens = batch_tokens
        self._m: _Model | None = None
        self._types: dict[str, int] = {}
        self._cols = np.zeros((0, 11), dtype=np.int32)
        self.n_exact = 0  # tokens rescored in NLTK's order (near-ties)

    def __getstate__(self) -> dict[str, object]:
        return {"model_dir": self.model_dir, "batch_tokens": self.batch_tokens}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    @property
    def model(self) -> _Model:
        if self._m is None:
            path = self.model_dir or _model_dir()
            if not (path / "averaged_perceptron_tagger_eng.weights.json").is_file():
                raise ConfigError(f"{path}: no averaged_perceptron_tagger_eng.*.json files there")
            self._m = _Model(_load_arrays(path))
            self._reset_types()
        return self._m

    def _reset_types(self) -> None:
        m = self.model
        self._types = {}
        self._cols = np.asarray([m.type_row(w, raw=False) for w in (*START, *END)], dtype=np.int32)

    def _type_ids(self, tokens: list[str]) -> np.ndarray:
        if len(self._types) > _TYPE_CACHE_MAX:
            self._reset_types()
        types, get = self._types, self._types.get
        ids = [get(w, -1) for w in tokens]
        new = [w for w, i in zip(tokens, ids, strict=True) if i < 0]
        if new:
            rows, base = [], len(self._cols)
            for w in new:
                if w not in types:
                    types[w] = base + len(rows)
                    rows.append(self.model.type_row(w))
            self._cols = np.concatenate([self._cols, np.asarray(rows, dtype=np.int32)])
            ids = [types[w] for w in tokens]
        return np.asarray(ids, dtype=np.int64)

    def tag(self, tokens: Sequence[str]) -> list[str]:
        return self.tag_sents([tokens])[0]

    def tag_sents(self, sents: Sequence[Sequence[str]]) -> list[list[str]]:
        """Tags of each sentence, identical to ``[t for _, t in nltk.pos_tag(s)]``."""
        out: list[list[str]] = []
        batch: list[Sequence[str]] = []
        size = 0
        for s in sents:
            batch.append(s)
            size += len(s)
            if size >= self.batch_tokens:
                out += self._tag_batch(batch)
                batch, size = [], 0
        if batch:
            out += self._tag_batch(batch)
        return out

    def _tag_batch(self, sents: Sequence[Sequence[str]]) -> list[list[str]]:
        m = self.model
        lens = np.fromiter((len(s) for s in sents), dtype=np.int64, count=len(sents))
        flat = [w for s in sents for w in s]
        n_tok, n_sent = len(flat), len(sents)
        if n_tok == 0:
            return [[] for _ in sents]
        ids = self._type_ids(flat)  # may grow self._cols
        cols = self._cols[ids]  # (n_tok, 11)
        starts = np.zeros(n_sent, dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        # padded layout per sentence: -START- -START2- tokens... -END- -END2-
        sent_of = np.repeat(np.arange(n_sent), lens)
        pos = np.arange(n_tok) + 4 * sent_of + 2
        pad = np.empty(n_tok + 4 * n_sent, dtype=np.int64)
        pstart = starts + 4 * np.arange(n_sent)
        pad[pstart], pad[pstart + 1] = 0, 1
        pad[pstart + lens + 2], pad[pstart + lens + 3] = 2, 3
        pad[pos] = np.arange(n_tok) + 4  # row into cols_ext
        cols_ext = np.concatenate([self._cols[:4], cols])
        td = cols[:, _TD]
        need = np.flatnonzero(td < 0)
        q = pos[need]
        W = m.W
        S = m.bias + W[cols[need, _SUF]]
        S += W[cols[need, _PREF]]
        S += W[cols[need, _WORD]]
        for off, cs in ((-1, (_M1W, _M1S)), (-2, (_M2W,)), (1, (_P1W, _P1S)), (2, (_P2W,))):
            ctx = cols_ext[pad[q + off]]
            for c in cs:
                S += W[ctx[:, c]]
        srow = np.full(n_tok, -1, dtype=np.int64)
        srow[need] = np.arange(len(need))
        pwid = cols[:, _PW]
        tags = self._decode(m, lens, starts, td, srow, pwid, S, sents)
        names = [m.tag_names[i] for i in tags.tolist()]
        return [names[a : a + n] for a, n in zip(starts.tolist(), lens.tolist(), strict=True)]

    def _decode(
        self,
        m: _Model,
        lens: np.ndarray,
        starts: np.ndarray,
        td: np.ndarray,
        srow: np.ndarray,
        pwid: np.ndarray,
        S: np.ndarray,
        sents: Sequence[Sequence[str]],
    ) -> np.ndarray:
        """Greedy left-to-right decoding, one position at a time across all sentences."""
        order = np.argsort(-lens, kind="stable")
        sorted_starts = starts[order]
        sorted_lens = lens[order]
        n_active = np.searchsorted(-sorted_lens, -np.arange(int(sorted_lens[0])), side="left")
        tags = np.empty(len(td), dtype=np.int64)
        npv = m.n_prev
        prev = np.full(len(order), m.tag_id[START[0]], dtype=np.int64)
        prev2 = np.full(len(order), m.tag_id[START[1]], dtype=np.int64)
        for t, n in enumerate(n_active.tolist()):
            tok = sorted_starts[:n] + t
            cur = td[tok]
            p, p2 = prev[:n], prev2[:n]
            sel = np.flatnonzero(cur < 0)
            if len(sel):
                ts = tok[sel]
                ps = p[sel]
                sc = S[srow[ts]] + m.D[ps * npv + p2[sel]]
                pw = pwid[ts]
                hit = np.flatnonzero(pw >= 0)
                if len(hit):
                    keys = pw[hit] * npv + ps[hit]
                    at = np.minimum(np.searchsorted(m.pw_keys, keys), len(m.pw_keys) - 1)
                    ok = m.pw_keys[at] == keys
                    sc[hit[ok]] += m.pw_rows[at[ok]]
                best = sc.argmax(axis=1)
                top = sc[np.arange(len(sel)), best]
                near = np.flatnonzero((sc >= (top - _TIE_EPS)[:, None]).sum(axis=1) > 1)
                for k in near.tolist():
                    j = sel[k]
                    words = sents[int(order[j])]
                    best[k] = m.exact(words, t, int(p[j]), int(p2[j]))
                    self.n_exact += 1
                cur[sel] = best
            tags[tok] = cur
            prev2, prev = p, cur
        return tags
