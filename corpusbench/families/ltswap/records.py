"""Records of the LT-Swap generator: candidates, inflection pairs, parsed sentences, quadruplets.

Every record is a frozen, slotted, keyword-only dataclass; ids come from content, never run order.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from corpusbench.provenance import fingerprint

Subtask = Literal["wordswap", "inflswap", "agrswap"]
SUBTASKS: tuple[Subtask, ...] = ("wordswap", "inflswap", "agrswap")
# each subtask as a release's config names spell it (``ltswap-inflectionswap``)
RELEASE_NAMES = {"wordswap": "wordswap", "inflswap": "inflectionswap", "agrswap": "agreementswap"}
# those spellings name the same subtasks
SUBTASK_ALIASES = {name: sub for sub, name in RELEASE_NAMES.items() if name != sub}
# Fine categories a candidate word can have (PTB tags; VBP is folded into VB and VBN into VBD, see lexicon).
NOUN_TAGS = ("NN", "NNS")
VERB_TAGS = ("VB", "VBD", "VBG", "VBZ")
TAGS = NOUN_TAGS + VERB_TAGS
AGREEMENT_RULES = ("SVSHORT", "SVLONG", "ANAPHORSHORT", "ANAPHORLONG", "DET")


Tagged = tuple[str, str]  # (word form, its tag): how a labelled quadruplet names each word


@dataclass(frozen=True, slots=True)
class Verdict:
    """Outcome of one check: kept, or dropped with a reason (the reasons become funnel counters)."""

    ok: bool
    reason: str = ""
    words: tuple[str, ...] = ()  # the words it is about (oov_word: those the corpus lacks), for rejects.jsonl

    @staticmethod
    def keep() -> Verdict:
        return _KEEP

    @staticmethod
    def drop(reason: str, words: tuple[str, ...] = ()) -> Verdict:
        return Verdict(False, reason, words)


_KEEP = Verdict(True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Inflection:
    tag: str  # NN, NNS, VB, VBD, VBG, VBZ
    form: str
    freq: int  # occurrences of the surface form in the corpus vocabulary


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A corpus noun or verb form that passed the lexical filters, with its lemma's inflection set."""

    form: str
    tag: str
    pos: str  # NOUN | VERB
    lemma: str
    freq: int
    bin: int
    cluster_freq: int  # sum of the frequencies of all distinct forms of the lemma
    inflections: tuple[Inflection, ...]  # the lemma's forms, one per tag, the word's own included
    contexts: tuple[str, ...] = ()  # up to 2 corpus sentences containing the form once

    @property
    def id(self) -> str:
        return f"{self.form}/{self.tag}"


@dataclass(frozen=True, slots=True, kw_only=True)
class InflectionPair:
    """Two forms of one lemma; ``bin`` is the bin of the rarer form (0 if one form is unseen)."""

    lemma: str
    pos: str
    form1: str
    tag1: str
    freq1: int
    form2: str
    tag2: str
    freq2: int
    bin: int

    @property
    def id(self) -> str:
        return f"{self.lemma}/{self.pos}:{self.form1}/{self.tag1}~{self.form2}/{self.tag2}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Parsed:
    """A checked sentence: ``text`` (natural spacing) and the character span of the target word."""

    text: str
    start: int
    end: int

    @property
    def target(self) -> str:
        return self.text[self.start : self.end]


@dataclass(frozen=True, slots=True, kw_only=True)
class Quadruplet:
    """S1, S2 (good) and S1*, S2* (the target words swapped). Pairs evaluated: (S1, S1*), (S2, S2*)."""

    id: str
    subtask: Subtask
    rule: str  # WordSwap/InflectionSwap: NOUN | VERB; AgreementSwap: one of AGREEMENT_RULES
    bin: int
    w1: str
    w2: str
    tag1: str
    tag2: str
    freq_w1: int
    freq_w2: int
    s1_good: str
    s2_good: str
    s1_bad: str
    s2_bad: str
    context1: str = ""
    context2: str = ""
    filter_rule: str = ""  # strict | debiased | pointwise ("" when unjudged)
    filter_margin: float | None = None  # the smaller of the two pair margins (judging.py), log-prob units
    filter_margins: tuple[float, ...] = ()  # per minimal pair: (S1 vs S1*, S2 vs S2*)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def quadruplet_id(subtask: str, rule: str, w1: str, w2: str, s1: str, s2: str) -> str:
    return f"{subtask}-{fingerprint(subtask, rule, w1, w2, s1, s2)[:16]}"
