"""``--per-cell N``: fill every (subtask, bin) cell with N kept quadruplets, in rounds.

A cell is (subtask, bin); AgreementSwap cells are also split by sentence length (SHORT: SVSHORT,
ANAPHORSHORT, DET; LONG: SVLONG, ANAPHORLONG). Candidates are drawn per sampling group (WordSwap:
bin x tag; InflectionSwap: bin x POS; AgreementSwap: noun pairs per bin, shared by the bin's SHORT and
LONG cells) in each group's seeded order, so a round's draw is a superset of the previous one and a
rerun replays every round from the LLM cache. After each round the groups of the cells still short
draw more, sized by the cell's measured yield, until every cell is full, its candidates run out,
``--max-per-bin`` (the draw ceiling per group) is reached, or ``MAX_ROUNDS`` rounds have run.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from corpusbench.corpus.bins import ltswap_bin_label

MAX_ROUNDS = 8
STOP_EMPTY_AFTER = 2  # rounds after which a subtask that kept nothing draws no more
MIN_YIELD = 0.05  # kept per drawn candidate assumed at worst when sizing the next draw
LENGTH = {
    "SVSHORT": "SHORT",
    "ANAPHORSHORT": "SHORT",
    "DET": "SHORT",
    "SVLONG": "LONG",
    "ANAPHORLONG": "LONG",
}
Group = tuple[str, Hashable]  # (subtask, sampling group)
Pools = Mapping[str, Mapping[Hashable, list[Any]]]  # subtask -> group -> items in draw order
Ceilings = Mapping[str, int | None]  # subtask -> most candidates drawn per group (None: no limit)


@dataclass(frozen=True, slots=True, order=True)
class Cell:
    subtask: str
    bin: int
    length: str = ""  # AgreementSwap: SHORT | LONG

    @property
    def label(self) -> str:
        return f"{self.subtask} {ltswap_bin_label(self.bin)}" + (f" {self.length}" if self.length else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class CellReport:
    """One cell after the last round: its target, what it kept, what was drawn and is left, and why
    it fell short ("" when full)."""

    subtask: str
    bin: int
    length: str
    target: int
    kept: int
    drawn: int  # candidates drawn (words, inflection pairs, agreement noun pairs)
    left: int  # candidates never drawn
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "bin_label": ltswap_bin_label(self.bin)}


def group_bin(subtask: str, group: Hashable) -> int:
    return group if subtask == "agrswap" else group[0]  # type: ignore[index,return-value]


def cells_of(subtask: str, group: Hashable, rules: Iterable[str]) -> list[Cell]:
    b = group_bin(subtask, group)
    if subtask != "agrswap":
        return [Cell(subtask, b)]
    return [Cell(subtask, b, n) for n in sorted({LENGTH[r] for r in rules}, reverse=True)]


def cell_of(subtask: str, bin_: int, rule: str) -> Cell:
    return Cell(subtask, bin_, LENGTH[rule] if subtask == "agrswap" else "")


def first_counts(pools: Pools, per_cell: int, ceiling: Ceilings) -> dict[Group, int]:
    """Round 1: N candidates per group (ceiling and pool size permitting)."""
    return {
        (s, g): min(per_cell, _room(ceiling, s, items))
        for s, groups in pools.items()
        for g, items in groups.items()
    }


def _room(ceiling: Ceilings, subtask: str, items: list[Any]) -> int:
    top = ceiling.get(subtask)
    return len(items) if top is None else min(top, len(items))


def next_counts(
    pools: Pools,
    counts: Mapping[Group, int],
    kept: Counter[Cell],
    per_cell: int,
    ceiling: Ceilings,
    rules: Iterable[str],
    rounds_done: int = 1,
) -> dict[Group, int]:
    """The next round's draw per group: short cells' groups grow by deficit / yield (the cell's, else
    its subtask's; a subtask that kept nothing after round 1 doubles its draw once, and after that
    stops: its LLM answers fail, more of them would too); others stay."""
    rules = tuple(rules)
    drawn: Counter[Cell] = Counter()
    by_sub: Counter[str] = Counter()
    kept_sub: Counter[str] = Counter()
    for (s, g), n in counts.items():
        by_sub[s] += n
        for c in cells_of(s, g, rules):
            drawn[c] += n
    for c, n in kept.items():
        kept_sub[c.subtask] += n
    out = dict(counts)
    for (s, g), n in counts.items():
        room = _room(ceiling, s, pools[s][g])
        if n >= room:
            continue
        short = [c for c in cells_of(s, g, rules) if kept[c] < per_cell]
        if not short or (kept_sub[s] == 0 and rounds_done >= STOP_EMPTY_AFTER):
            continue
        open_groups = sum(
            1
            for (s2, g2), n2 in counts.items()
            if s2 == s and group_bin(s2, g2) == group_bin(s, g) and n2 < len(pools[s2][g2])
        )
        add = 0
        for c in short:
            if kept_sub[s] == 0:
                grow = max(n, 1)
            else:
                rate = kept[c] / drawn[c] if kept[c] and drawn[c] else kept_sub[s] / by_sub[s]
                grow = math.ceil((per_cell - kept[c]) / max(rate, MIN_YIELD) / max(open_groups, 1))
            add = max(add, grow, 1)
        out[(s, g)] = min(n + add, room)
    return out


def reports(
    pools: Pools,
    counts: Mapping[Group, int],
    kept: Counter[Cell],
    per_cell: int,
    ceiling: Ceilings,
    rules: Iterable[str],
    rounds: int,
) -> list[CellReport]:
    """Every cell of the requested subtasks that has candidates, plus the bins without any."""
    rules = tuple(rules)
    drawn: Counter[Cell] = Counter()
    left: Counter[Cell] = Counter()
    capped: dict[Cell, bool] = {}
    kept_sub: Counter[str] = Counter()
    for c, n in kept.items():
        kept_sub[c.subtask] += n
    for (s, g), n in counts.items():
        for c in cells_of(s, g, rules):
            drawn[c] += n
            left[c] += len(pools[s][g]) - n
            capped[c] = capped.get(c, True) and n >= _room(ceiling, s, pools[s][g])
    out = []
    for c in sorted(drawn):
        k = kept[c]
        if k >= per_cell:
            why = ""
        elif drawn[c] == 0 and left[c] == 0:
            why = "no candidates"
        elif left[c] == 0:
            why = f"candidates ran out ({drawn[c]} drawn)"
        elif kept_sub[c.subtask] == 0 and rounds >= STOP_EMPTY_AFTER:
            why = f"nothing kept in {c.subtask} after {rounds} rounds (see its drop reasons)"
        elif capped[c]:
            why = f"draw ceiling reached (--max-per-bin {ceiling.get(c.subtask)})"
        else:
            why = f"round limit ({rounds} rounds)"
        out.append(
            CellReport(
                subtask=c.subtask,
                bin=c.bin,
                length=c.length,
                target=per_cell,
                kept=k,
                drawn=drawn[c],
                left=left[c],
                reason=why,
            )
        )
    return out


def grew(before: Mapping[Group, int], after: Mapping[Group, int]) -> bool:
    return any(after[g] > n for g, n in before.items())
