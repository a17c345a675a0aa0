"""Determiner-noun agreement minimal pairs from a corpus.

A corpus sentence with ``this``/``that`` before a singular noun, or ``these``/``those`` before a plural
one, is the good sentence; the bad sentence swaps the determiner's number (this <-> these, that <->
those). A noun counts when the corpus has both its singular and its ``-s`` plural, so its number is
known without a tagger.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

SWAP = {"this": "these", "these": "this", "that": "those", "those": "that"}
PLURAL_DETERMINERS = {"these", "those"}
WORD = re.compile(r"[A-Za-z]+")
SITE = re.compile(r"\b(this|that|these|those) ([a-z]+)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class DetAgrParams:
    """The release params of ``detagr``: at most ``max_pairs`` pairs, nouns seen ``min_count`` times."""

    max_pairs: int = 100
    min_count: int = 1


def make_pairs(lines: Iterable[str], params: DetAgrParams) -> list[dict[str, object]]:
    """One row per agreeing determiner site: ``pair_id, sentence_good, sentence_bad, determiner,
    number, noun, noun_count``."""
    lines = [line.strip() for line in lines if line.strip()]
    counts = Counter(w.lower() for line in lines for w in WORD.findall(line))
    rows: list[dict[str, object]] = []
    for line in lines:
        for m in SITE.finditer(line):
            det, noun = m.group(1), m.group(2)
            plural = det.lower() in PLURAL_DETERMINERS
            singular = noun[:-1] if plural else noun
            if not (noun.endswith("s") == plural and counts[singular] and counts[f"{singular}s"]):
                continue  # the noun's number is unknown, or it does not agree with the determiner
            if counts[noun] < params.min_count:
                continue
            swapped = SWAP[det.lower()]
            swapped = swapped.capitalize() if det[0].isupper() else swapped
            rows.append(
                {
                    "pair_id": f"detagr-{len(rows):04d}",
                    "sentence_good": line,
                    "sentence_bad": line[: m.start(1)] + swapped + line[m.end(1) :],
                    "determiner": det.lower(),
                    "number": "plural" if plural else "singular",
                    "noun": noun,
                    "noun_count": counts[noun],
                }
            )
            if len(rows) == params.max_pairs:
                return rows
    return rows
