"""Stage 4: the LLM filter. Each paired draft becomes a ``JudgeItem`` judged under the run's
``FilterRule`` (``judging.py``: strict, debiased or pointwise; 4 prompts per quadruplet), the second
minimal pair's 2 only when the first passed; under ``--per-cell`` only as many drafts per cell as the
cell still needs (``judge_to_fill``).

An unusable answer drops the quadruplet (``filter_no_answer``). A failed call stops the run unless
the failure budget allows it (then ``filter_llm_error``, for this run only): errors are not cached as
final, so the next run asks again (the reference kept the error row and rejected every retried quadruplet).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, deque
from collections.abc import Hashable, Sequence
from typing import Any

from corpusbench.families.ltswap.checks import detokenise, render
from corpusbench.families.ltswap.generation import Draft
from corpusbench.families.ltswap.judging import (
    FilterRule,
    JudgeItem,
    Judgement,
    fluency_scores,
    judge_items,
    pair_scores,
)
from corpusbench.families.ltswap.records import Quadruplet, quadruplet_id

NONCE_FALLBACKS = ("blick", "dax", "wug", "fep", "zorp", "tupa", "gazzer")


def pick_nonce(preferred: str, vocab: dict[str, int] | set[str]) -> str:
    """The first nonce word whose forms never occur in the corpus."""
    for w in (preferred, *NONCE_FALLBACKS):
        if not any(f in vocab for f in (w, w + "s", w + "ed", w + "ing")):
            return w
    raise ValueError("every nonce word candidate occurs in the corpus")  # pragma: no cover


def good_bad(d: Draft) -> tuple[str, str, str, str]:
    """S1, S2, S1*, S2*."""
    return render(d.p1, d.w1), render(d.p2, d.w2), render(d.p1, d.w2), render(d.p2, d.w1)


def draft_item(d: Draft, lang: str = "en") -> JudgeItem:
    """The judge's view of a draft (id names the words, so a scripted test judge can read them)."""
    s1, s2, b1, b2 = good_bad(d)
    return JudgeItem(
        id=f"{d.subtask}:{d.w1}~{d.w2}:{d.rule}",
        subtask=d.subtask,
        w1=d.w1,
        w2=d.w2,
        s1_good=s1,
        s2_good=s2,
        s1_bad=b1,
        s2_bad=b2,
        context1=detokenise(d.context1) if d.context1 else "",
        context2=detokenise(d.context2) if d.context2 else "",
        tag1=d.tag1,
        tag2=d.tag2,
        lang=lang,
    )


def assemble(d: Draft, item: JudgeItem, judgement: Judgement | None) -> Quadruplet:
    """The kept quadruplet: the draft's words and bin with the sentences and contexts of its ``item``."""
    return Quadruplet(
        id=quadruplet_id(d.subtask, d.rule, d.w1, d.w2, item.s1_good, item.s2_good),
        subtask=d.subtask,  # type: ignore[arg-type]
        rule=d.rule,
        bin=d.bin,
        w1=d.w1,
        w2=d.w2,
        tag1=d.tag1,
        tag2=d.tag2,
        freq_w1=d.freq1,
        freq_w2=d.freq2,
        s1_good=item.s1_good,
        s2_good=item.s2_good,
        s1_bad=item.s1_bad,
        s2_bad=item.s2_bad,
        context1=item.context1,
        context2=item.context2,
        filter_rule=judgement.rule if judgement else "",
        filter_margin=judgement.margin if judgement else None,
        filter_margins=tuple(judgement.margins or ()) if judgement else (),
    )


# the judge's own drops: a verdict, or an answer naming no option (a failed call is no verdict)
JUDGE_DROPS = ("filter_rejected", "filter_below_threshold", "filter_no_answer")


def rejected_row(d: Draft, item: JudgeItem, judgement: Judgement) -> dict[str, Any]:
    """A draft the judge judged and dropped, as ``rejected_drafts.jsonl`` holds it (``corpusbench
    review`` reads it): ``margins`` per minimal pair judged (one: the first pair failed), None without
    an answer."""
    return {
        "id": item.id,
        "subtask": d.subtask,
        "rule": d.rule,
        "bin": d.bin,
        "w1": d.w1,
        "w2": d.w2,
        "s1_good": item.s1_good,
        "s2_good": item.s2_good,
        "s1_bad": item.s1_bad,
        "s2_bad": item.s2_bad,
        "reason": judgement.reason,
        "filter_rule": judgement.rule,
        "margins": None if judgement.margins is None else list(judgement.margins),
        "threshold": judgement.threshold,
    }


def rejected_order(row: dict[str, Any]) -> tuple[Any, ...]:
    """``rejected_drafts.jsonl``'s order: subtask, bin, rule, words, sentences (as the parquets)."""
    return tuple(row[k] for k in ("subtask", "bin", "rule", "w1", "w2", "s1_good", "s2_good", "s1_bad"))


def judge_to_fill(
    llm: Any,
    items: Sequence[JudgeItem],
    cells: Sequence[Hashable],
    order: Sequence[Any],
    rule: FilterRule,
    nonce: str,
    need: int | None = None,
    progress: Any = None,
    *,
    unique_sentences: bool = False,
) -> list[Judgement | None]:
    """Judge drafts only until each cell holds ``need`` kept ones (``--per-cell``), in ``order`` within a
    cell: each pass asks, per cell, for as many drafts as it still lacks, first minimal pair first
    (``judge_items(early_reject=True)``). ``need`` None: every draft. None in the result: not judged,
    its cell was full (a draft judged in an earlier round sorts first, so its cached answers are used).
    ``unique_sentences``: a good sentence goes into one kept quadruplet only (#37: WordSwap pairs a word's
    sentence with two partners); a draft whose good sentence a kept one already holds is not judged
    (``sentence_reused``), and of two drafts sharing one, only the first is judged in a pass."""
    queues: dict[Hashable, deque[int]] = {}
    for n in sorted(range(len(items)), key=lambda n: order[n]):
        queues.setdefault(cells[n], deque()).append(n)
    verdicts: list[Judgement | None] = [None] * len(items)
    kept: Counter[Hashable] = Counter()
    used: set[str] = set()  # the good sentences of kept drafts
    while True:
        batch = []
        pending: set[str] = set()
        for cell, queue in queues.items():
            room = len(queue) if need is None else need - kept[cell]
            later: list[int] = []
            while room > 0 and queue:
                n = queue.popleft()
                goods = {items[n].s1_good, items[n].s2_good}
                if unique_sentences and goods & used:
                    verdicts[n] = Judgement(
                        keep=False,
                        reason="sentence_reused",
                        rule=rule.name,
                        threshold=float(rule.threshold or 0.0),
                        margins=None,
                        first_option=None,
                    )
                    continue
                if unique_sentences and goods & pending:
                    later.append(n)  # judged in a later pass, if the other draft is dropped
                    continue
                batch.append(n)
                pending |= goods
                room -= 1
            queue.extendleft(reversed(later))
        if not batch:
            return verdicts
        for n, v in zip(
            batch,
            judge_items(llm, [items[n] for n in batch], rule, nonce, progress, early_reject=True),
            strict=True,
        ):
            verdicts[n] = v
            kept[cells[n]] += v.keep
            if v.keep:
                used |= {items[n].s1_good, items[n].s2_good}


def draft_key(item: JudgeItem) -> str:
    """A draft's identity across rounds: its words and its good sentences."""
    return f"{item.id}:{item.s1_good}:{item.s2_good}"


def judge_order(item: JudgeItem, first_round: int, seed: int, score: float = 0.0) -> tuple[int, float, str]:
    """A draft's place in its cell's judging queue: the round it was first drafted in, its ``best_first``
    score (higher first; 0 for all where its rule has none), then a seeded hash of its words and sentences
    (stable across rounds and reruns)."""
    return first_round, -score, hashlib.sha256(f"{seed}:{draft_key(item)}".encode()).hexdigest()


def best_first(
    llm: Any,
    items: Sequence[JudgeItem],
    rule: FilterRule,
    progress: Any = None,
    fluent: Sequence[str] = (),
) -> list[float]:
    """Per item, the score its cell's queue is sorted by: under the ``lm`` rule (#37, WordSwap) the smaller
    log P(good) - log P(swapped) of its two pairs, so a cell keeps its drafts that most clearly need the word
    (every draft's 4 sentences are scored; the judge then reads them from the cache); for the subtasks in
    ``fluent`` (``--fluent-first``) judged by another rule, the fluency of its good sentences
    (``fluency_scores``); 0 otherwise."""
    scored = [n for n, it in enumerate(items) if rule.for_subtask(it.subtask).scored]
    fluency = [
        n for n, it in enumerate(items) if it.subtask in fluent and not rule.for_subtask(it.subtask).scored
    ]
    out = [0.0] * len(items)
    for n, s in zip(scored, pair_scores(llm, [items[n] for n in scored], progress), strict=True):
        out[n] = -math.inf if s is None else s
    for n, s in zip(fluency, fluency_scores(llm, [items[n] for n in fluency], progress), strict=True):
        out[n] = -math.inf if s is None else s
    return out


def spread_order(
    cells: Sequence[Hashable], orders: Sequence[tuple[Any, ...]], keys: Sequence[Hashable]
) -> list[tuple[Any, ...]]:
    """Judging orders that spread each cell over its lemmas (#37): within a round, every key (a lemma;
    WordSwap: the part of speech) gets its first draft judged before any gets a second, so a cell of 3 is
    not one noun pair measured three times. ``orders``: ``judge_order``'s (round, score, hash) per draft."""
    seen: Counter[tuple[Hashable, int, Hashable]] = Counter()
    out: list[tuple[Any, ...]] = [()] * len(orders)
    for n in sorted(range(len(orders)), key=lambda n: orders[n]):
        rnd, *rest = orders[n]
        out[n] = (rnd, seen[(cells[n], rnd, keys[n])], *rest)
        seen[(cells[n], rnd, keys[n])] += 1
    return out


def spread_key(d: Draft) -> str:
    """What a cell should hold many of: lemmas (InflectionSwap, AgreementSwap), parts of speech then words
    (WordSwap)."""
    return d.lemma or d.rule
