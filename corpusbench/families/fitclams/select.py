"""Binning and the automatic, seeded selection of one noun and one verb per frequency bin.

Per corpus and POS: structural survivors are binned with the reference's log-spaced edges
(``bins.log_bin_edges``); within each scheduled bin the eligible candidates (animate / intransitive,
gender known) are ranked by evidence strength and by distance to the bin's log-midpoint, and one of the
best ``top_k`` is drawn with ``random.Random(f"{seed}:{role}:{bin}")`` (role: noun, object, verb): the
choice depends on the corpus's counts and the seed only, never on the name the corpus is given. Empty bins
are reported; with ``fill_empty`` they are filled from the nearest non-empty bin (flagged ``fill:<bin>``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from corpusbench.families.fitclams.bins import log_bin_edges, log_bins
from corpusbench.families.fitclams.records import Candidate
from corpusbench.params import param

Judge = Callable[[Sequence[str]], list[bool | None]]


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectionConfig:
    """How the words are chosen, declared once (:mod:`corpusbench.params`): the options of ``fitclams build``
    (``--nouns`` ...) and the keys of a release spec's ``selection`` mapping are these fields."""

    n_nouns: int = param(10, help="Subject nouns per pair set (one per bin).", option="--nouns")
    n_verbs: int = param(10, help="Verbs per pair set (one per bin).", option="--verbs")
    n_bins: int = param(10, help="Log-spaced frequency bins.", option="--bins")
    n_objects: int = param(2, help="Attractor/object nouns per pair set.", option="--objects")
    seed: int = param(
        0, help="Selection seed (a release: default the spec's seed).", doc_default="the spec's `seed`"
    )
    top_k: int = param(5, help="Draw each word among the k best-ranked candidates of its bin.")
    fill_empty: bool = param(
        False,
        help="Fill empty bins from the nearest non-empty bin (flagged).",
        option="--fill-empty/--no-fill-empty",
    )
    min_intransitive_share: float = param(
        0.6, help="Share of a verb's corpus contexts with no object after it, for an intransitive verb."
    )
    min_verb_contexts: int = param(
        3, help="Fewer corpus contexts than this are too little evidence of intransitive use."
    )
    coord_order: str = param(
        "file",
        help="file (the released sets: verbs in list order, lower frequency first) | seeded (a seeded "
        "coin flips each verb pair's order).",
    )
    # "paper": the reference drops AUX, so copulas, auxiliaries and modals are never binned; light verbs
    # ("say", "seem") are binned, never chosen (docs/fitclams.md)
    bin_counts: str = param(
        "paper",
        help="paper (App. D: EN plural = VB+VBP over lexical verbs; copulas, auxiliaries and modals are "
        "never binned) | agreement (VBP only; light verbs such as say/seem dropped before binning too).",
    )


@dataclass
class Selection:
    chosen: list[Candidate]
    empty_bins: list[int] = field(default_factory=list)
    judged_out: int = 0


def bin_candidates(cands: Sequence[Candidate], n_bins: int) -> tuple[list[Candidate], np.ndarray | None]:
    """Assign bins to the kept candidates (others keep bin -1); returns the new list and the edges."""
    kept = [c for c in cands if c.keep]
    if not kept:
        return list(cands), None
    edges = log_bin_edges([c.total for c in kept], n_bins)
    idx = iter(log_bins([c.total for c in kept], edges))
    return [replace(c, bin=next(idx)) if c.keep else c for c in cands], edges


def bin_schedule(n_items: int, n_bins: int) -> list[int]:
    """Which bin each pick comes from: evenly spread over the bins, one per bin when n_items == n_bins."""
    out: list[int] = []
    while len(out) < n_items:
        k = min(n_items - len(out), n_bins)
        out += [n_bins // 2] if k == 1 else [round(i * (n_bins - 1) / (k - 1)) for i in range(k)]
    return out


def _rank_key(c: Candidate, edges: np.ndarray) -> tuple[int, float, str]:
    lo, hi = float(edges[c.bin]), float(edges[c.bin + 1])
    mid = (math.log(lo) + math.log(hi)) / 2
    weak = int(c.evidence in ("unverified",) or c.evidence.startswith(("feminine:", "contexts:")))
    return weak, abs(math.log(c.total) - mid), c.lemma


def select_per_bin(
    eligible: Sequence[Candidate],
    edges: np.ndarray | None,
    schedule: Sequence[int],
    cfg: SelectionConfig,
    rng_key: str,
    *,
    fill_empty: bool,
    judge: Judge | None = None,
    question: Callable[[str], str] | None = None,
    exclude: set[str] | None = None,
) -> Selection:
    """One candidate per scheduled bin (see module doc). ``eligible`` have passed every check."""
    if edges is None:
        return Selection(chosen=[], empty_bins=sorted(set(schedule)))
    taken = set(exclude or ())
    by_bin: dict[int, list[Candidate]] = {}
    for c in sorted(eligible, key=lambda c: _rank_key(c, edges)):
        by_bin.setdefault(c.bin, []).append(c)
    sel = Selection(chosen=[])
    vetoed: set[str] = set()

    def pick(b: int) -> Candidate | None:
        pool = [c for c in by_bin.get(b, []) if c.lemma not in taken and c.lemma not in vetoed]
        while pool:
            short = pool[: cfg.top_k]
            if judge is not None and question is not None:
                answers = judge([question(c.sg) for c in short])
                no = {c.lemma for c, a in zip(short, answers, strict=True) if a is False}
                if no:
                    vetoed.update(no)
                    sel.judged_out += len(no)
                    pool = [c for c in pool if c.lemma not in no]
                    continue
            return random.Random(f"{rng_key}:{b}").choice(short)
        return None

    for b in schedule:
        c = pick(b)
        if c is None:
            if b not in sel.empty_bins:
                sel.empty_bins.append(b)
            if not fill_empty:
                continue
            for nb in sorted(range(len(edges) - 1), key=lambda x: (abs(x - b), x)):
                c = pick(nb)
                if c is not None:
                    c = replace(c, evidence=f"{c.evidence};fill:{b}")
                    break
        if c is not None:
            taken.add(c.lemma)
            sel.chosen.append(c)
    sel.chosen.sort(key=lambda c: (c.total, c.lemma))
    return sel


def object_schedule(n_objects: int, n_bins: int) -> list[int]:
    """Attractor bins spread inside the range (2 objects over 10 bins: bins 3 and 6)."""
    return [round((n_bins - 1) * (i + 1) / (n_objects + 1)) for i in range(n_objects)]
