"""Interpolated Kneser-Ney n-gram models over integer token ids, counted with numpy.

Every k-gram gets a dense id: the id of its (k-1)-gram prefix times the vocabulary size plus its last
token, made dense with ``np.unique``; so all orders are sorted int64 key arrays (no per-n-gram Python
objects), and a 10M-token corpus needs a few hundred MB.

Sentences are padded with ``order - 1`` BOS ids on the left and one EOS on the right. Events are the
positions of real tokens (words and EOS); all-BOS windows exist only as contexts. The estimator is
interpolated Kneser-Ney (Chen & Goodman 1999): raw counts at the highest order, continuation counts
N1+(• c w) below it, and three discounts D1, D2, D3+ per order ("modified" KN), estimated from count-of-counts
or fixed. With one fixed discount and ``uniform=False`` the probabilities are those of
``nltk.lm.KneserNeyInterpolated`` trained on the same n-grams. With ``uniform=True`` (the default) the
unigram level is interpolated with a uniform distribution over the vocabulary plus ``<unk>``, so unseen
words get a non-zero probability and every context's distribution sums to one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

UNK, BOS, EOS = 0, 1, 2
SPECIALS = ("<unk>", "<s>", "</s>")


@dataclass(slots=True, kw_only=True)
class Order:
    """One order k: k-gram keys (context id * V + token), the count used by KN, per-context sums."""

    keys: np.ndarray  # int64, sorted; position = the k-gram's dense id
    counts: np.ndarray  # int64: raw counts at the highest order, continuation counts below
    total: np.ndarray  # float64 per context id of order k-1: sum of counts of its followers
    gamma_mass: np.ndarray  # float64 per context id: D1*N1 + D2*N2 + D3*N3+ (the back-off mass)
    discounts: np.ndarray  # float64 (D1, D2, D3+)


def _padded(sentences: Sequence[np.ndarray], order: int) -> tuple[np.ndarray, np.ndarray]:
    """(token stream, offset of each position within its padded sentence)."""
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    flat = np.concatenate(sentences).astype(np.int64) if len(sentences) else np.zeros(0, np.int64)
    return padded_stream(flat, lengths, order)


def padded_stream(
    flat: np.ndarray, lengths: np.ndarray, order: int, dtype: type = np.int64
) -> tuple[np.ndarray, np.ndarray]:
    """Sentences given as concatenated tokens + lengths -> (padded stream, int32 offsets)."""
    pad = order - 1
    lengths = np.asarray(lengths, dtype=np.int64)
    sizes = lengths + pad + 1
    starts = np.zeros(len(sizes), dtype=np.int64)
    if len(sizes):
        starts[1:] = np.cumsum(sizes)[:-1]
    stream = np.full(int(sizes.sum()), BOS, dtype=dtype)
    tok_starts = np.cumsum(lengths) - lengths
    stream[np.repeat(starts + pad - tok_starts, lengths) + np.arange(len(flat))] = flat
    stream[starts + pad + lengths] = EOS
    offsets = (np.arange(len(stream), dtype=np.int64) - np.repeat(starts, sizes)).astype(np.int32)
    return stream, offsets


def estimate_discounts(counts: np.ndarray) -> np.ndarray:
    """Chen & Goodman's D1, D2, D3+ from count-of-counts; Ney's single D (or 0.5) where they are undefined."""
    n = [int(np.count_nonzero(counts == i)) for i in range(1, 5)]
    if n[0] and n[1]:
        y = n[0] / (n[0] + 2 * n[1])
        if all(n):
            d = np.array([1 - 2 * y * n[1] / n[0], 2 - 3 * y * n[2] / n[1], 3 - 4 * y * n[3] / n[2]])
            if all(0 < d[i] <= i + 1 for i in range(3)):
                return d
        return np.full(3, y)
    return np.full(3, 0.5)


def _context_sums(ctx: np.ndarray, counts: np.ndarray, n_ctx: int, d: np.ndarray) -> tuple[np.ndarray, ...]:
    seen = counts > 0
    c, k = ctx[seen], counts[seen]
    total = np.bincount(c, weights=k.astype(np.float64), minlength=n_ctx)
    n1 = np.bincount(c[k == 1], minlength=n_ctx)
    n2 = np.bincount(c[k == 2], minlength=n_ctx)
    n3 = np.bincount(c[k >= 3], minlength=n_ctx)
    return total, d[0] * n1 + d[1] * n2 + d[2] * n3


class KneserNey:
    """An interpolated (modified) Kneser-Ney model of order ``order`` over ids ``0..vocab_size-1``."""

    def __init__(
        self, orders: list[Order], vocab_size: int, unigram_raw: np.ndarray, *, uniform: bool = True
    ) -> None:
        self.orders = orders
        self.order = len(orders)
        self.V = vocab_size
        self.unigram_raw = unigram_raw  # raw token counts (SLOR's unigram model)
        self.uniform = uniform

    # ---- training ---------------------------------------------------------------------------
    @classmethod
    def fit(
        cls,
        sentences: Sequence[np.ndarray],
        vocab_size: int,
        order: int = 5,
        *,
        discount: float | None = None,
        uniform: bool = True,
    ) -> KneserNey:
        """Count and estimate; ``discount=None`` estimates D1, D2, D3+ per order, a number fixes all."""
        lengths = np.array([len(x) for x in sentences], dtype=np.int64)
        flat = np.concatenate(sentences) if len(sentences) else np.zeros(0, np.int64)
        return cls.fit_flat(flat, lengths, vocab_size, order, discount=discount, uniform=uniform)

    @classmethod
    def fit_flat(
        cls,
        flat: np.ndarray,
        lengths: np.ndarray,
        vocab_size: int,
        order: int = 5,
        *,
        discount: float | None = None,
        uniform: bool = True,
    ) -> KneserNey:
        """``fit`` on sentences given as concatenated token ids and their lengths (no per-sentence arrays)."""
        if order < 1:
            raise ValueError("order must be at least 1")
        V = vocab_size
        # int32 positions (ids < 2^31); keys are int64
        stream, offsets = padded_stream(flat, lengths, order, np.int32)
        real = np.flatnonzero(stream != BOS)
        unigram_raw = np.bincount(stream[real], minlength=V).astype(np.int64)
        prev_g = stream  # dense ids of the (k-1)-grams ending at each position (k=1: the tokens)
        raw: list[np.ndarray] = [unigram_raw]
        keys_by_k: list[np.ndarray] = [np.arange(V, dtype=np.int64)]
        cont: list[np.ndarray] = []
        for k in range(2, order + 1):
            valid = offsets >= k - 1
            idx = np.flatnonzero(valid)
            keys, inv = np.unique(prev_g[idx - 1].astype(np.int64) * V + stream[idx], return_inverse=True)
            del idx, valid
            g = np.full(len(stream), -1, dtype=np.int32)
            g[offsets >= k - 1] = inv
            del inv
            rc = np.bincount(g[real], minlength=len(keys))
            suffix = np.zeros(len(keys), dtype=np.int64)  # the (k-1)-gram id each k-gram type ends with
            suffix[g[real]] = prev_g[real]
            cont.append(np.bincount(suffix[rc > 0], minlength=len(keys_by_k[-1])))
            keys_by_k.append(keys)
            raw.append(rc)
            prev_g = g
        del prev_g, stream, offsets
        orders = []
        for k in range(1, order + 1):
            counts = raw[k - 1] if k == order else cont[k - 1]
            keys = keys_by_k[k - 1]
            n_ctx = 1 if k == 1 else len(keys_by_k[k - 2])
            ctx = keys // V if k > 1 else np.zeros(len(keys), dtype=np.int64)
            if k == 1 and not uniform:
                d = np.zeros(3)  # nltk.lm: the unigram level is not discounted
            elif discount is None:
                d = estimate_discounts(counts)
            else:
                d = np.full(3, float(discount))
            total, mass = _context_sums(ctx, counts, n_ctx, d)
            orders.append(Order(keys=keys, counts=counts, total=total, gamma_mass=mass, discounts=d))
        return cls(orders, V, unigram_raw, uniform=uniform)

    # ---- querying ---------------------------------------------------------------------------
    def _lookup(self, k: int, ctx: np.ndarray, tok: np.ndarray) -> np.ndarray:
        """Dense ids of the k-grams (ctx, tok) (``-1`` where unseen or ctx is -1)."""
        keys = self.orders[k - 1].keys
        q = ctx * self.V + tok
        pos = np.searchsorted(keys, q)
        pos = np.minimum(pos, len(keys) - 1)
        hit = (keys[pos] == q) & (ctx >= 0)
        return np.where(hit, pos, -1)

    def logprobs(self, stream: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Natural-log probability of every position of a padded stream (BOS positions: -inf, unused)."""
        stream = np.asarray(stream, dtype=np.int64)
        # ids of the k-grams ending at each position, k = 1..order-1 (the contexts of the next position)
        g = [np.where(stream < self.V, stream, UNK)]
        for k in range(2, self.order):
            prev = np.concatenate(([-1], g[-1][:-1]))
            ids = self._lookup(k, prev, g[0])
            g.append(np.where(offsets >= k - 1, ids, -1))
        tok = g[0]
        floor = 1.0 / (self.V - 1) if self.uniform else 0.0  # uniform over every id but BOS
        p = np.where(tok == BOS, 0.0, floor)
        for k in range(1, self.order + 1):
            o = self.orders[k - 1]
            if k == 1:
                ctx = np.zeros(len(stream), dtype=np.int64)
            else:
                ctx = np.concatenate(([-1], g[k - 2][:-1]))
                ctx = np.where(offsets >= k - 1, ctx, -1)
            known = ctx >= 0
            safe = np.where(known, ctx, 0)
            total = np.where(known, o.total[safe], 0.0)
            has = total > 0
            ids = self._lookup(k, ctx, tok)
            c = np.where(ids >= 0, o.counts[np.maximum(ids, 0)], 0)
            d = np.where(c >= 3, o.discounts[2], np.where(c == 2, o.discounts[1], o.discounts[0]))
            alpha = np.maximum(c - np.where(c > 0, d, 0.0), 0.0)
            mass = np.where(known, o.gamma_mass[safe], 0.0)
            denom = np.where(has, total, 1.0)
            p = np.where(has, (alpha + mass * p) / denom, p)
        with np.errstate(divide="ignore"):
            return np.log(p)

    def sentence_logprobs(self, sentences: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per sentence: log-probs of its tokens and of the final EOS (length ``len(s) + 1``)."""
        stream, offsets = _padded(sentences, self.order)
        lp = self.logprobs(stream, offsets)
        out, start = [], 0
        for s in sentences:
            begin = start + self.order - 1
            out.append(lp[begin : begin + len(s) + 1])
            start = begin + len(s) + 1
        return out

    def unigram_logprob(self, tok: np.ndarray) -> np.ndarray:
        """Add-one unigram log-probability from raw counts (the reference model of SLOR)."""
        tok = np.where(np.asarray(tok) < self.V, tok, UNK)
        n = float(self.unigram_raw.sum())
        return np.log((self.unigram_raw[tok] + 1.0) / (n + self.V - 1))

    # ---- storage ----------------------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {
            "meta": np.array([self.order, self.V, int(self.uniform)], dtype=np.int64),
            "unigram_raw": self.unigram_raw,
        }
        for k, o in enumerate(self.orders, 1):
            for name in ("keys", "counts", "total", "gamma_mass", "discounts"):
                out[f"{name}_{k}"] = getattr(o, name)
        return out

    @classmethod
    def from_arrays(cls, arrays: Any) -> KneserNey:
        order, V, uniform = (int(x) for x in arrays["meta"])
        orders = [
            Order(
                keys=arrays[f"keys_{k}"],
                counts=arrays[f"counts_{k}"],
                total=arrays[f"total_{k}"],
                gamma_mass=arrays[f"gamma_mass_{k}"],
                discounts=arrays[f"discounts_{k}"],
            )
            for k in range(1, order + 1)
        ]
        return cls(orders, V, arrays["unigram_raw"], uniform=bool(uniform))

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            np.savez(fh, **self.arrays())

    @classmethod
    def load(cls, path: Path) -> KneserNey:
        with np.load(path) as z:
            return cls.from_arrays({k: z[k] for k in z.files})

    def n_types(self) -> list[int]:
        return [len(o.keys) for o in self.orders]
