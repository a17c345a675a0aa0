"""Typed records of the frames generator: frames, S-clusters and the generation parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from corpusbench.params import param, spec_view

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
    """The frames family's parameters, declared once (:mod:`corpusbench.params`): the options of
    ``corpusbench frames build`` and the release spec's ``params`` (:data:`FramesSpec`) are generated
    from these fields; the defaults are the paper's choices."""

    train: str | None = param(
        None,
        help="Key of the training corpus in the spec's corpora: its stats folder (or stats computed once "
        "under the work dir) gives the vocabulary. The command line takes --stats instead.",
        cli=False,
        required=True,
    )
    lang: str = param(
        "en",
        help="Sentence splitting/tokenisation language (a release takes the test corpus's language).",
        spec=False,
    )
    min_frame_count: int = param(2, help="Keep frames seen at least this often.")
    frame_words_in_vocab: bool = param(
        True, help="Frame words must be seen in training (markers always are).", spec=False, cli=False
    )
    markers: bool = param(True, help="Add <s> / </s> at sentence boundaries.", spec=False, cli=False)
    config_name: str = param("frames-sclusters", help="Name of the release config.", cli=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "lang": self.lang,
            "min_frame_count": self.min_frame_count,
            "frame_words_in_vocab": self.frame_words_in_vocab,
            "markers": self.markers,
        }


#: What a release spec's frames ``params`` may say (train, min_frame_count, config_name), generated.
FramesSpec = spec_view(FramesParams)


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
