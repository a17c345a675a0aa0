"""FIT-CLAMS records: lexical entries, the lexicon of one pair set, candidates with verdicts, pairs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NUMBERS = ("sg", "pl")
PARADIGMS = (
    "simple_agrmt",
    "vp_coord",
    "long_vp_coord",
    "prep_anim",
    "subj_rel",
    "obj_rel_across_anim",
    "obj_rel_within_anim",
)
TEMPLATE_VERSION = "fitclams-templates.v1"


def other(number: str) -> str:
    return "pl" if number == "sg" else "sg"


class _NumberForms:
    """Shared accessors of ``Noun`` and ``Verb`` (both carry sg, pl, freq and bins)."""

    __slots__ = ()
    sg: str
    pl: str
    freq: tuple[tuple[str, int], ...]
    bins: tuple[tuple[str, int], ...]

    def form(self, number: str) -> str:
        return self.sg if number == "sg" else self.pl

    def freq_in(self, corpus: str) -> int:
        return dict(self.freq).get(corpus, 0)

    def bin_in(self, corpus: str) -> int:
        return dict(self.bins).get(corpus, -1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Noun(_NumberForms):
    """A noun with both number forms. ``freq``/``bins`` map corpus name -> sg+pl count / bin (-1: none)."""

    sg: str
    pl: str
    gender: str | None = None  # "Masc" | "Fem" | "Neut" (fr/de); None for English
    lemma: str = ""
    freq: tuple[tuple[str, int], ...] = ()
    bins: tuple[tuple[str, int], ...] = ()
    note: str = ""  # how it was chosen: "bin", "fill:<from bin>", "config", ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Verb(_NumberForms):
    """A verb's present 3sg and 3pl forms; ``complement`` is its long-VP filler (long_vp_coord)."""

    sg: str
    pl: str
    lemma: str = ""
    complement: str = ""
    freq: tuple[tuple[str, int], ...] = ()
    bins: tuple[tuple[str, int], ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Lexicon:
    """Everything the templates need for one pair set (FIT-CLAMS-C, -W, ...)."""

    language: str
    corpus: str  # the pair set: whose frequencies chose the words
    nouns: tuple[Noun, ...]
    verbs: tuple[Verb, ...]
    objects: tuple[Noun, ...]
    rc_verbs: tuple[Verb, ...]
    preps: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """One noun or verb candidate of one corpus, with the verdict of every check (the funnel)."""

    pos: str  # "noun" | "verb"
    lemma: str
    sg: str
    pl: str
    count_sg: int
    count_pl: int
    gender: str | None = None
    gender_votes: tuple[tuple[str, float], ...] = ()  # in-context morphology votes (token counts)
    bin: int = -1
    keep: bool = True
    reason: str = ""  # first failed check ("" when kept)
    evidence: str = ""  # animacy / intransitivity source, complement source

    @property
    def total(self) -> int:
        return self.count_sg + self.count_pl

    def as_row(self) -> dict[str, Any]:
        return {
            "pos": self.pos,
            "lemma": self.lemma,
            "sg": self.sg,
            "pl": self.pl,
            "count_sg": self.count_sg,
            "count_pl": self.count_pl,
            "total": self.total,
            "gender": self.gender or "",
            "bin": self.bin,
            "keep": self.keep,
            "reason": self.reason,
            "evidence": self.evidence,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    start: int
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MinimalPair:
    """One FIT-CLAMS pair. The critical word is identical in both sentences; only its controller's
    number differs. ``good_span``/``bad_span`` are character offsets of the critical word."""

    pair_id: str
    paradigm: str
    language: str
    corpus: str
    sentence_good: str
    sentence_bad: str
    good_span: Span
    bad_span: Span
    critical_word: str
    critical_number: str  # number of the critical verb form ("sg" | "pl")
    varied: str  # "subject" | "attractor": whose number differs between good and bad
    noun: str  # subject noun (singular form)
    noun_good: str
    noun_bad: str
    verb: str  # target verb (3sg form); for obj_rel_within the main verb
    verb_first: str = ""  # first conjunct (vp_coord / long_vp_coord)
    attractor: str = ""  # object/attractor noun (singular form)
    attractor_good: str = ""
    attractor_bad: str = ""
    rc_verb: str = ""
    preposition: str = ""
    stats: tuple[tuple[str, int], ...] = field(default=())  # flattened counts/bins in every corpus
    template_version: str = TEMPLATE_VERSION

    def as_row(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "pair_id": self.pair_id,
            "paradigm": self.paradigm,
            "language": self.language,
            "corpus": self.corpus,
            "sentence_good": self.sentence_good,
            "sentence_bad": self.sentence_bad,
            "good_start": self.good_span.start,
            "good_end": self.good_span.end,
            "bad_start": self.bad_span.start,
            "bad_end": self.bad_span.end,
            "critical_word": self.critical_word,
            "critical_number": self.critical_number,
            "varied": self.varied,
            "noun": self.noun,
            "noun_good": self.noun_good,
            "noun_bad": self.noun_bad,
            "verb": self.verb,
            "verb_first": self.verb_first,
            "attractor": self.attractor,
            "attractor_good": self.attractor_good,
            "attractor_bad": self.attractor_bad,
            "rc_verb": self.rc_verb,
            "preposition": self.preposition,
            "template_version": self.template_version,
        }
        row.update(dict(self.stats))
        return row
