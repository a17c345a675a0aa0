"""``--per-cell N``: fill every (subtask, bin) cell with N kept quadruplets, in rounds.

A cell is (subtask, bin); AgreementSwap cells are also split by sentence length (SHORT: SVSHORT,
ANAPHORSHORT, DET; LONG: SVLONG, ANAPHORLONG) unless ``--agreement-cells bin`` (one cell per bin, all
rules: the cheap setting of a small release such as the demo). Candidates are drawn per sampling group
(WordSwap: bin x tag; InflectionSwap: bin x POS; AgreementSwap: noun pairs per bin, shared by the bin's
SHORT and LONG cells) in each group's seeded order, so a round's draw is a superset of the previous one and a
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

from corpusbench.families.ltswap.bins import ltswap_bin_label

MAX_ROUNDS = 8
STOP_EMPTY_AFTER = 2  # rounds after which a subtask that kept nothing draws no more
# AgreementSwap noun pairs drawn per bin in round 1 (#37: one pair filled a cell of 3; with 2, the second
# pair's drafts all failed in bin [0] of the round-two demo run and the cell filled from one)
MIN_LEMMAS = 3
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


def cells_of(subtask: str, group: Hashable, rules: Iterable[str], by_length: bool = True) -> list[Cell]:
    """The cells a sampling group's candidates feed (``by_length``: AgreementSwap's SHORT and LONG)."""
    b = group_bin(subtask, group)
    if subtask != "agrswap" or not by_length:
        return [Cell(subtask, b)]
    return [Cell(subtask, b, n) for n in sorted({LENGTH[r] for r in rules}, reverse=True)]


def cell_of(subtask: str, bin_: int, rule: str, by_length: bool = True) -> Cell:
    return Cell(subtask, bin_, LENGTH[rule] if subtask == "agrswap" and by_length else "")


def first_counts(
    pools: Pools, per_cell: int, ceiling: Ceilings, drafts_per: Mapping[str, float] | None = None
) -> dict[Group, int]:
    """Round 1: N candidates per group; or, with ``drafts_per`` (drafts one candidate makes, per subtask),
    N drafts' worth per bin as if every answer passed: spread over the bin's groups, except WordSwap's,
    which go to the bin's largest (bin, tag) group of each part of speech (words pair only within one,
    and more words in a group make more pairs). Later rounds top up the cells that fall short; ceiling
    and pool permitting."""
    if drafts_per is None:
        return {
            (s, g): min(per_cell, _room(ceiling, s, items))
            for s, gs in pools.items()
            for g, items in gs.items()
        }
    groups_in_bin: Counter[tuple[str, int]] = Counter(
        (s, group_bin(s, g)) for s, gs in pools.items() for g in gs
    )
    out: dict[Group, int] = {}
    for s, groups in pools.items():
        if s == "wordswap":
            out |= _concentrate(groups, math.ceil(per_cell / drafts_per[s]) + 1, ceiling, s)
            continue
        for g, items in groups.items():
            n = math.ceil(per_cell / groups_in_bin[(s, group_bin(s, g))] / drafts_per[s])
            if s == "agrswap":  # one noun pair gives a draft per rule: draw more, so a cell has many lemmas
                n = max(n, min(per_cell, MIN_LEMMAS))
            out[(s, g)] = min(n, _room(ceiling, s, items))
    return out


def _concentrate(
    groups: Mapping[Hashable, list[Any]], need: int, ceiling: Ceilings, s: str
) -> dict[Group, int]:
    """``need`` words per bin and part of speech (#37: a bin's nouns and its verbs, where both can pair;
    before, the largest group alone made every WordSwap quadruplet a noun one), each from its largest
    (bin, tag) groups first, never a lone word in a group; a part of speech alone in its bin gets
    ``need`` words, two share it (at least 3 each, so that both can make 2 pairs)."""
    out: dict[Group, int] = {}
    by_pos: dict[tuple[int, str], list[Hashable]] = {}
    for g in groups:
        by_pos.setdefault((group_bin(s, g), _pos(g)), []).append(g)
    pairable = Counter(
        b for (b, _), gs in by_pos.items() if any(_room(ceiling, s, groups[g]) >= 2 for g in gs)
    )
    for (b, _), gs in sorted(by_pos.items(), key=lambda kv: str(kv[0])):
        left = need if pairable[b] < 2 else max(3, math.ceil(need / 2))
        for g in sorted(gs, key=lambda g: (-len(groups[g]), str(g))):
            room = _room(ceiling, s, groups[g])
            n = min(max(left, 2), room) if left > 0 and room >= 2 else 0
            out[(s, g)] = n
            left -= n
    return out


def _pos(group: Hashable) -> str:
    """NOUN or VERB of a WordSwap (bin, tag) group."""
    return "NOUN" if str(group[1]).startswith("NN") else "VERB"  # type: ignore[index]


def _room(ceiling: Ceilings, subtask: str, items: list[Any]) -> int:
    top = ceiling.get(subtask)
    return len(items) if top is None else min(top, len(items))


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundState:
    """Where a ``--per-cell`` run stands after ``rounds`` rounds: the pools, the draw per group, the kept
    quadruplets per cell, the target N, the draw ceilings and the agreement rules."""

    pools: Pools
    counts: Mapping[Group, int]
    kept: Counter[Cell]
    per_cell: int
    ceiling: Ceilings
    rules: tuple[str, ...]
    rounds: int = 1
    by_length: bool = True  # AgreementSwap cells split into SHORT and LONG

    def drawn(self) -> Counter[Cell]:
        """Candidates drawn so far, per cell."""
        out: Counter[Cell] = Counter()
        for (s, g), n in self.counts.items():
            for c in cells_of(s, g, self.rules, self.by_length):
                out[c] += n
        return out

    def kept_by_subtask(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for c, n in self.kept.items():
            out[c.subtask] += n
        return out


def next_counts(state: RoundState) -> dict[Group, int]:
    """The next round's draw per group: short cells' groups grow by deficit / yield (the cell's, else
    its subtask's; a subtask that kept nothing after round 1 doubles its draw once, and after that
    stops: its LLM answers fail, more of them would too); others stay."""
    pools, counts, kept, per_cell = state.pools, state.counts, state.kept, state.per_cell
    ceiling = state.ceiling
    drawn, kept_sub = state.drawn(), state.kept_by_subtask()
    by_sub: Counter[str] = Counter()
    for (s, _g), n in counts.items():
        by_sub[s] += n
    out = dict(counts)
    for (s, g), n in counts.items():
        room = _room(ceiling, s, pools[s][g])
        if n >= room:
            continue
        short = [c for c in cells_of(s, g, state.rules, state.by_length) if kept[c] < per_cell]
        if not short or (kept_sub[s] == 0 and state.rounds >= STOP_EMPTY_AFTER):
            continue
        growing = [
            (s2, g2)
            for (s2, g2), n2 in counts.items()
            if s2 == s and group_bin(s2, g2) == group_bin(s, g) and n2 < _room(ceiling, s2, pools[s2][g2])
        ]
        if s == "wordswap":  # a WordSwap bin grows the groups it draws from first (pairs form within one)
            started = [k for k in growing if counts[k] > 0]
            if n == 0 and started:
                continue
            growing = started or growing
        open_groups = len(growing)
        add = 2 if s == "wordswap" and n == 0 else 0  # never a lone word in a group
        for c in short:
            if kept_sub[s] == 0:
                grow = max(n, 1)
            else:
                rate = kept[c] / drawn[c] if kept[c] and drawn[c] else kept_sub[s] / by_sub[s]
                grow = math.ceil((per_cell - kept[c]) / max(rate, MIN_YIELD) / max(open_groups, 1))
            add = max(add, grow, 1)
        out[(s, g)] = min(n + add, room)
    return out


def reports(state: RoundState) -> list[CellReport]:
    """Every cell of the requested subtasks that has candidates, plus the bins without any."""
    pools, kept, per_cell, rounds = state.pools, state.kept, state.per_cell, state.rounds
    ceiling = state.ceiling
    drawn, kept_sub = state.drawn(), state.kept_by_subtask()
    left: Counter[Cell] = Counter()
    capped: dict[Cell, bool] = {}
    for (s, g), n in state.counts.items():
        for c in cells_of(s, g, state.rules, state.by_length):
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
