"""Choosing the document unit of plain-text corpora: one document per line, or per paragraph.

Line-per-document corpora (one verse, utterance or sentence per line: the embedded corpus, BabyLM's
text files) and hard-wrapped books (Project Gutenberg: lines of ~70 characters broken mid-sentence,
paragraphs separated by blank lines) need different units: read a hard-wrapped book line by line and
every line break cuts a sentence in two. ``--doc-unit auto`` (the default) samples the start of up to
``SAMPLE_FILES`` text files and picks ``paragraph`` when the text looks hard-wrapped:

- at least ``MIN_PAIRS`` pairs of consecutive non-blank lines were seen,
- at least ``MIN_BROKEN`` of those lines end without sentence-final punctuation (the sentence runs on),
- the lines have a fixed width: the 90th percentile of line lengths is at most ``MAX_WIDTH`` characters,
- and the broken lines are long (median at least ``MIN_BROKEN_MEDIAN`` characters): short unpunctuated
  lines are utterances or verse lines, not a wrapped page.

The choice and its evidence go to the log and to the stats manifest (``corpus.doc_unit``).
"""

from __future__ import annotations

import itertools
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

SAMPLE_FILES = 16
SAMPLE_LINES = 2_000  # per file
MIN_PAIRS = 20
MIN_BROKEN = 0.5
MAX_WIDTH = 100
MIN_BROKEN_MEDIAN = 40
#: what ``line`` means for the user, said whenever it is chosen automatically
LINE_MEANS = (
    "; each line is read as a document of its own, so a sentence that runs on past a line break is cut in "
    "two there (pass --doc-unit paragraph if your text is wrapped: lines are joined up to a blank line)"
)
# sentence-final punctuation, possibly followed by closing quotes or brackets
_ENDS_SENTENCE = re.compile(r"""[.!?:;…]["'’”»)\]]*$""")


@dataclass(frozen=True, slots=True, kw_only=True)
class DocUnitChoice:
    unit: str  # line | paragraph
    chosen_by: str  # auto | user
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"unit": self.unit, "chosen_by": self.chosen_by, "reason": self.reason}


def looks_hard_wrapped(lines: list[list[str]]) -> tuple[bool, str]:
    """Whether blocks of raw lines (one list per file) look hard-wrapped, and why (the measured signals)."""
    pairs = broken = 0
    lengths: list[int] = []
    broken_lengths: list[int] = []
    for block in lines:
        for a, b in itertools.pairwise(block):
            a = a.strip()
            if a:
                lengths.append(len(a))
            if not a or not b.strip():
                continue
            pairs += 1
            if not _ENDS_SENTENCE.search(a):
                broken += 1
                broken_lengths.append(len(a))
    if pairs < MIN_PAIRS:
        return False, f"too few pairs of consecutive non-blank lines ({pairs}) to tell if it is hard-wrapped"
    share = broken / pairs
    width = sorted(lengths)[int(0.9 * (len(lengths) - 1))]
    median = statistics.median(broken_lengths) if broken_lengths else 0
    signals = f"{share:.0%} of lines break mid-sentence, 90% of lines <= {width} chars"
    wrapped = share >= MIN_BROKEN and width <= MAX_WIDTH and median >= MIN_BROKEN_MEDIAN
    return wrapped, f"{signals}, broken lines median {median:g} chars"


def _sample(path: Path, encoding: str, max_line_bytes: int) -> list[str]:
    from corpusbench.corpus.lines import iter_lines

    out = []
    for _, line in iter_lines(path, encoding=encoding, max_line_bytes=max_line_bytes):
        out.append(line)
        if len(out) >= SAMPLE_LINES:
            break
    return out


def detect_doc_unit(
    files: list[Path], encoding: str = "utf-8", max_line_bytes: int = 1_000_000
) -> DocUnitChoice:
    """``paragraph`` for hard-wrapped text files, else ``line`` (files spread evenly over the list)."""
    if not files:
        return DocUnitChoice(unit="line", chosen_by="auto", reason="no plain-text files")
    step = max(1, len(files) // SAMPLE_FILES)
    picked = files[::step][:SAMPLE_FILES]
    blocks = [_sample(f, encoding, max_line_bytes) for f in picked]
    wrapped, why = looks_hard_wrapped(blocks)
    unit = "paragraph" if wrapped else "line"
    what = "hard-wrapped text" if wrapped else "one document per line"
    reason = f"{what}: {why} ({len(picked)} files sampled)"
    return DocUnitChoice(unit=unit, chosen_by="auto", reason=reason + ("" if wrapped else LINE_MEANS))
