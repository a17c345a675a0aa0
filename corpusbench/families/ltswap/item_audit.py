"""What an LT-Swap item set looks like to a linguist (#37), without any LLM: how alike its sentences
open, how long they are, and how many of its minimal pairs a rule that never reads the rare word decides.

``audit_items`` takes quadruplet rows (a run's ``<subtask>.parquet`` or the labelled set's JSONL) and
reports per subtask: the share of sentences whose first two words are one of the three most common
openings, mean words per good sentence, InflectionSwap noun pairs with a number-marking determiner right
before the noun, pairs the previous-word + suffix rule decides (right or wrong, not a tie), pairs the
nearest-cue rule decides (the grammatical cue nearest before the target within its window, and the
target's ending: ``heuristics.nearest_cue_suffix``) with the cue classes it found, pairs the next-word +
suffix rule decides (the auxiliary right after the target and its ending: ``heuristics.next_word_suffix``),
and a/an leaks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from corpusbench import heuristics

SUBTASK_NAMES = {"inflectionswap": "inflswap", "agreementswap": "agrswap"}
NUMBER_DETS = heuristics.PLURAL_DETS | heuristics.SINGULAR_DETS


def _opening(text: str) -> str:
    return " ".join(heuristics.words(text)[:2])


def _target_index(good: str, bad: str) -> int:
    return heuristics.first_difference(heuristics.words(good), heuristics.words(bad))


def pairs_of(q: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The quadruplet's two minimal pairs (good, bad)."""
    return [(q["s1_good"], q["s1_bad"]), (q["s2_good"], q["s2_bad"])]


def audit_items(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per subtask (wordswap, inflswap, agrswap): quadruplets, sentences, top-3 opening share, mean words,
    number-marking determiners before InflectionSwap nouns, previous-word + suffix decisions, a/an leaks."""
    by_sub: dict[str, list[Mapping[str, Any]]] = {}
    for q in rows:
        by_sub.setdefault(SUBTASK_NAMES.get(q["subtask"], q["subtask"]), []).append(q)
    out: dict[str, dict[str, Any]] = {}
    for sub, qs in sorted(by_sub.items()):
        goods = [g for q in qs for g, _ in pairs_of(q)]
        openings = Counter(_opening(g) for g in goods)
        top3 = sum(n for _, n in openings.most_common(3))
        pairs = [p for q in qs for p in pairs_of(q)]
        decided = right = leaks = cue_decided = cue_right = next_decided = 0
        cues: Counter[str] = Counter()
        for good, bad in pairs:
            s = heuristics.pair_score(heuristics.prev_word_suffix, good, bad)
            decided += s != 0.5
            right += s == 1.0
            c = heuristics.pair_score(heuristics.nearest_cue_suffix, good, bad)
            cue_decided += c != 0.5
            cue_right += c == 1.0
            next_decided += heuristics.pair_score(heuristics.next_word_suffix, good, bad) != 0.5
            ws = heuristics.words(good)
            cue = heuristics.nearest_cue(ws, _target_index(good, bad))
            cues[cue[0] if cue else "none"] += 1
            leaks += heuristics.pair_score(heuristics.article_class, good, bad) != 0.5
        noun_pairs = [(g, b) for q in qs if q.get("rule") == "NOUN" for g, b in pairs_of(q)]
        det_before = sum(
            1
            for g, b in noun_pairs
            if (i := _target_index(g, b)) > 0 and heuristics.words(g)[i - 1] in NUMBER_DETS
        )
        out[sub] = {
            "quadruplets": len(qs),
            "pairs": len(pairs),
            "top3_openings": [o for o, _ in openings.most_common(3)],
            "top3_opening_share": round(top3 / len(goods), 3) if goods else None,
            "mean_words": round(sum(len(heuristics.words(g)) for g in goods) / len(goods), 2)
            if goods
            else None,
            "prev_word_suffix_decides": decided,
            "prev_word_suffix_right": right,
            "prev_word_suffix_decided_share": round(decided / len(pairs), 3) if pairs else None,
            "nearest_cue_decides": cue_decided,
            "nearest_cue_right": cue_right,
            "nearest_cue_decided_share": round(cue_decided / len(pairs), 3) if pairs else None,
            "nearest_cues": dict(sorted(cues.items())),
            "next_word_suffix_decides": next_decided,
            "article_leaks": leaks,
            "noun_pairs": len(noun_pairs),
            "noun_pairs_number_det_before": det_before,
            "pos": dict(Counter(str(q.get("rule")) for q in qs)) if sub != "agrswap" else {},
            "lemmas_per_cell": _lemmas_per_cell(qs),
        }
    return out


def _lemmas_per_cell(qs: list[Mapping[str, Any]]) -> dict[str, int]:
    """Distinct words (w1; AgreementSwap: the singular noun) per bin."""
    cells: dict[str, set[str]] = {}
    for q in qs:
        cells.setdefault(str(int(q["bin"])), set()).add(str(q["w1"]))
    return {b: len(ws) for b, ws in sorted(cells.items(), key=lambda kv: int(kv[0]))}


def read_run(folder: Path) -> list[dict[str, Any]]:
    """The quadruplets of an LT-Swap run folder (its ``<subtask>.parquet`` files)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for sub in ("wordswap", "inflswap", "agrswap"):
        p = Path(folder) / f"{sub}.parquet"
        if p.is_file():
            rows += pd.read_parquet(p).to_dict("records")
    return rows
