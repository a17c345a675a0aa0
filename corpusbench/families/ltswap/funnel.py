"""Funnel counters: items per subtask x bin at each stage, and drop reasons (the release card's funnel).

Units: WordSwap counts words up to ``checked`` and quadruplets from ``paired`` on; InflectionSwap
counts inflection pairs (one pair = one quadruplet); AgreementSwap counts (noun pair, rule) items
up to ``checked`` (an item counts once any of its samples reaches the stage) and quadruplets from
``paired`` on (distinct samples may give several). ``--rewrites``: sentences written again (``sent``) and
how many of those passed the checks (``passed``), per subtask x bin, beside the stages. ``sentences``:
every sentence the writer wrote per subtask (a form shared by several pairs once; rewrites included;
AgreementSwap: one reply holding both sentences) and how many passed the checks.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from corpusbench.families.ltswap.bins import LTSWAP_N_BINS, ltswap_bin_label
from corpusbench.families.ltswap.records import SUBTASKS

STAGES = ("candidates", "confirmed", "generated", "parsed", "checked", "paired", "kept")
NOT_ASKED = "confirmed (not asked)"  # the stage's name when same-lemma confirmation is off


def stage_label(stage: str, parameters: dict[str, Any]) -> str:
    """How a stage is shown: with ``confirm_inflections`` off every candidate passes "confirmed" unasked."""
    if stage == "confirmed" and parameters.get("confirm_inflections") is False:
        return NOT_ASKED
    return stage


class Funnel:
    def __init__(self) -> None:
        self.counts: Counter[tuple[str, int, str]] = Counter()
        self.drops: Counter[tuple[str, int, str]] = Counter()
        self.rewrites: Counter[tuple[str, int, str]] = Counter()  # (subtask, bin, sent | passed)
        self.sentences: Counter[tuple[str, str]] = Counter()  # (subtask, written | passed)

    def add(self, subtask: str, bin_: int, stage: str, n: int = 1) -> None:
        if stage not in STAGES:
            raise ValueError(f"unknown funnel stage {stage!r}")
        self.counts[(subtask, bin_, stage)] += n

    def upto(self, subtask: str, bin_: int, stage: str) -> None:
        """Count one item at every stage from ``confirmed`` through ``stage``."""
        for s in STAGES[1 : STAGES.index(stage) + 1]:
            self.add(subtask, bin_, s)

    def drop(self, subtask: str, bin_: int, reason: str, n: int = 1) -> None:
        self.drops[(subtask, bin_, reason)] += n

    def rewrite(self, subtask: str, bin_: int, passed: bool) -> None:
        """One rewrite sent (``--rewrites``), and whether its sentence passed the checks."""
        self.rewrites[(subtask, bin_, "sent")] += 1
        self.rewrites[(subtask, bin_, "passed")] += passed
        self.sentence(subtask, passed)

    def sentence(self, subtask: str, passed: bool) -> None:
        """One sentence written for ``subtask``, and whether it passed the checks."""
        self.sentences[(subtask, "written")] += 1
        self.sentences[(subtask, "passed")] += passed

    def sentence_rows(self) -> dict[str, dict[str, Any]]:
        """Per subtask: sentences written, passed the checks, and the share that passed."""
        out = {}
        for sub in SUBTASKS:
            n, k = self.sentences[(sub, "written")], self.sentences[(sub, "passed")]
            if n:
                out[sub] = {"written": n, "passed": k, "share": round(k / n, 3)}
        return out

    def rewrite_rows(self) -> list[dict[str, Any]]:
        """Rewrites sent and passed per subtask x bin (only where any was sent)."""
        return [
            {"subtask": s, "bin": b, "sent": n, "passed": self.rewrites[(s, b, "passed")]}
            for (s, b, what), n in sorted(self.rewrites.items())
            if what == "sent"
        ]

    def rows(self) -> list[dict[str, Any]]:
        """One row per subtask x bin (all 11 bins, empty ones included) with a count per stage."""
        out = []
        for sub in SUBTASKS:
            for b in range(LTSWAP_N_BINS):
                row: dict[str, Any] = {"subtask": sub, "bin": b, "bin_label": ltswap_bin_label(b)}
                row.update({s: self.counts[(sub, b, s)] for s in STAGES})
                out.append(row)
        return out

    def reasons(self) -> list[dict[str, Any]]:
        return [
            {"subtask": s, "bin": b, "reason": r, "count": n} for (s, b, r), n in sorted(self.drops.items())
        ]

    def totals(self, subtask: str) -> dict[str, int]:
        return {
            s: sum(n for (sub, _, st), n in self.counts.items() if sub == subtask and st == s) for s in STAGES
        }

    def reason_totals(self, subtask: str) -> dict[str, int]:
        c: Counter[str] = Counter()
        for (sub, _, r), n in self.drops.items():
            if sub == subtask:
                c[r] += n
        return dict(c.most_common())


def empty_reason(totals: dict[str, int], reasons: dict[str, int]) -> str:
    """Why a subtask has no quadruplet: the stage where its items ran out, and every drop reason."""
    reached = [s for s in STAGES if totals.get(s, 0) > 0]
    if not reached:
        where = "no candidates (the corpus has no usable word for it)"
    else:
        last = reached[-1]
        nxt = STAGES[STAGES.index(last) + 1] if last != STAGES[-1] else last
        where = f"{totals[last]} {last}, 0 {nxt}"
    drops = ", ".join(f"{r} {n}" for r, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{where}; drops: {drops or 'none'}"
