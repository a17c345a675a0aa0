"""Typed records that flow between corpus stages."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Document:
    """One unit of running text: a line, a paragraph or a dataset row.

    ``id`` is stable across runs: ``<source>:<line number or row index>``.
    """

    id: str
    text: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Utterance:
    """One main-tier utterance of a dialogue (CHAT, or a jsonl/csv/parquet dialogue table)."""

    id: str  # "<file>:<utterance index>"
    file: str  # transcript / session name
    index: int  # utterance index within the file, 0-based, in transcript order
    speaker: str  # tier code, e.g. "CHI", "MOT"
    text: str  # cleaned, plain words
    raw: str = ""  # the main tier as transcribed (CHAT codes included)
    role: str | None = None  # "child" | "caretaker" | other, from the speaker-role mapping


@dataclass(frozen=True, slots=True, kw_only=True)
class TaggedToken:
    """One token of a tagged sentence. ``tag`` is the tagger's fine tag (PTB, spaCy tag_, STTS)."""

    text: str
    tag: str
    pos: str  # coarse universal POS (NOUN, VERB, PROPN, ...)
    lemma: str = ""
    morph: str = ""  # UD feature string, e.g. "Number=Plur|Person=3"


@dataclass(frozen=True, slots=True, kw_only=True)
class CorpusFingerprint:
    """Content hash of the document stream (texts and ids, in reader order) and its size."""

    sha256: str
    n_bytes: int
    n_documents: int

    def as_dict(self) -> dict[str, object]:
        return {"sha256": self.sha256, "n_bytes": self.n_bytes, "n_documents": self.n_documents}
