"""Typed records of the frames generator: frames, S-clusters and the generation parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BOS = "<s>"  # sentence-boundary markers are frame words (never middle words), as in the paper
EOS = "</s>"


@dataclass(frozen=True, slots=True, kw_only=True)
class TokSentence:
    """One tokenised corpus sentence: lowercased word tokens (punctuation-only tokens dropped)."""

    doc_id: str
    index: int  # sentence index within the document
    tokens: tuple[str, ...]

    def token_id(self, i: int) -> str:
        """Stable id of token ``i``: ``<document id>#<sentence>:<token>`` (token-level clusterings)."""
        return f"{self.doc_id}#{self.index}:{i}"


@dataclass(frozen=True, slots=True, kw_only=True)
class FramesParams:
    """Parameters of ``corpusbench frames build`` (the defaults are the paper's choices)."""

    lang: str = "en"
    min_frame_count: int = 2  # frames must occur more than once in the test corpus
    frame_words_in_vocab: bool = True  # frame words seen in training (markers always are)
    markers: bool = True  # add <s> / </s> at sentence boundaries

    def as_dict(self) -> dict[str, Any]:
        return {
            "lang": self.lang,
            "min_frame_count": self.min_frame_count,
            "frame_words_in_vocab": self.frame_words_in_vocab,
            "markers": self.markers,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SCluster:
    """The S-cluster of one frame ``left _ right``: the middle word types seen in it in the test corpus."""

    id: str  # "left|right" (content-derived, stable)
    left: str
    right: str
    frame_count: int  # occurrences of the frame with an in-vocabulary middle word
    words: tuple[str, ...]  # sorted middle word types
    word_counts: tuple[int, ...]  # occurrences of each middle word in the frame

    @property
    def size(self) -> int:
        return len(self.words)

    def as_row(self) -> dict[str, Any]:
        return {
            "frame_id": self.id,
            "left": self.left,
            "right": self.right,
            "frame_count": self.frame_count,
            "n_words": self.size,
            "words": list(self.words),
            "word_counts": list(self.word_counts),
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SCluster:
        return cls(
            id=str(row["frame_id"]),
            left=str(row["left"]),
            right=str(row["right"]),
            frame_count=int(row["frame_count"]),
            words=tuple(str(w) for w in row["words"]),
            word_counts=tuple(int(c) for c in row["word_counts"]),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class FramesReport:
    """What one ``corpusbench frames build`` run produced."""

    out: str
    funnel: dict[str, int]
    n_sclusters: int
    n_words: int
    fingerprint: str
