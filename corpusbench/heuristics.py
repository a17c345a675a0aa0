"""Linear heuristics for minimal pairs: one-line surface rules with no structure (Vázquez Martínez et al.
2023, §3.1.2). Each rule gives a sentence a number; a pair scores 1 when the rule prefers the good
sentence, 0 when it prefers the bad one and 0.5 on a tie (the rule does not decide).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping

WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+", re.UNICODE)
PLURAL_DETS = frozenset({"these", "those", "many", "several", "few", "both", "two", "three", "all"})
SINGULAR_DETS = frozenset({"this", "that", "a", "an", "each", "every", "one", "another"})
DETS = PLURAL_DETS | SINGULAR_DETS | {"the", "my", "his", "her", "our", "your", "their", "thy", "its"}

Rule = Callable[[list[str], int], float]  # (lowercased words, index of the target word) -> score


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def word_at(text: str, char: int) -> int:
    """Index (in ``words(text)``) of the word that ends after character ``char``."""
    for i, m in enumerate(WORD.finditer(text.lower())):
        if m.end() > char:
            return i
    return len(words(text))


def first_difference(a: list[str], b: list[str]) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def _s(word: str | None) -> bool:
    return bool(word) and word.endswith("s") and not word.endswith("ss")  # type: ignore[union-attr]


def shorter(ws: list[str], _i: int) -> float:
    """Prefer the sentence with fewer words."""
    return -len(ws)


def det_noun_s(ws: list[str], _i: int) -> float:
    """After a plural determiner the next word ends in -s, after a singular one it does not."""
    score = 0
    for a, b in itertools.pairwise(ws):
        if a in PLURAL_DETS:
            score += 1 if _s(b) else -1
        elif a in SINGULAR_DETS:
            score += -1 if _s(b) else 1
    return score


def _agree(target: str | None, partner: str | None) -> float:
    if not target or not partner:
        return 0.0
    return 1.0 if _s(target) != _s(partner) else 0.0  # -s on the noun xor -s on the verb


def agree_first_noun(ws: list[str], i: int) -> float:
    """The target word carries -s iff the word after the first determiner does not (and vice versa)."""
    j = next((k for k, w in enumerate(ws) if w in DETS), None)
    if j is None or j + 1 >= len(ws) or i >= len(ws):
        return 0.0
    noun = j + 1
    if i == noun:  # the target is the noun itself: check it against the word after it
        return _agree(ws[i], ws[i + 1] if i + 1 < len(ws) else None)
    return _agree(ws[i], ws[noun])


def agree_previous_word(ws: list[str], i: int) -> float:
    """The target word carries -s iff the word just before it does not (a bigram rule)."""
    if i >= len(ws) or i == 0:
        return 0.0
    return _agree(ws[i], ws[i - 1])


# "an" before these consonant-letter words, "a" before these vowel-letter ones (the initial sound decides)
AN_CONSONANT_LETTER = ("hour", "honest", "honour", "honor", "heir")
A_VOWEL_LETTER = ("one", "once", "uni", "use", "usu", "ute", "uti", "ure", "eu", "ewe")


def article_for(word: str) -> str:
    """The indefinite article ``word``'s initial sound takes: "a" or "an" (spelling, a few exceptions)."""
    w = word.lower()
    if w.startswith(AN_CONSONANT_LETTER):
        return "an"
    if w.startswith(A_VOWEL_LETTER):
        return "a"
    return "an" if w[:1] in "aeiou" else "a"


def article_class(ws: list[str], i: int) -> float:
    """After "a"/"an" the target word's initial sound must match the article (never reads its meaning)."""
    if i >= len(ws) or i == 0 or ws[i - 1] not in ("a", "an"):
        return 0.0
    return 1.0 if article_for(ws[i]) == ws[i - 1] else -1.0


def suffix_class(word: str) -> str:
    """The target's ending as a rule that never reads the rare word sees it: ing, ed, s or bare."""
    if word.endswith("ing") and len(word) > 4:
        return "ing"
    if word.endswith("ed") and len(word) > 3:
        return "ed"
    return "s" if _s(word) else "bare"


_MODALS = ("will", "would", "can", "could", "shall", "should", "may", "might", "must", "to")
_FITS: tuple[tuple[tuple[str, ...], dict[str, float]], ...] = (  # previous words -> fit of each ending
    (tuple(PLURAL_DETS), {"s": 1, "bare": -1}),
    (tuple(SINGULAR_DETS), {"s": -1, "bare": 1}),
    (_MODALS, {"bare": 1, "s": -1, "ed": -1, "ing": -1}),
    (("is", "was", "are", "were", "am", "be", "been"), {"ing": 1, "ed": 0.5, "bare": -1, "s": -1}),
    (("has", "had", "have"), {"ed": 1, "bare": -1, "s": -1, "ing": -1}),
    (("he", "she", "it"), {"s": 1, "ed": 1, "bare": -1, "ing": -1}),
    (("i", "we", "they", "you"), {"bare": 1, "ed": 1, "s": -1, "ing": -1}),
)
_AFTER = {w: fit for words_, fit in _FITS for w in words_}


def prev_word_suffix(ws: list[str], i: int) -> float:
    """How well the target's ending (-s, -ed, -ing, none) fits the word before it (a determiner, modal,
    auxiliary or pronoun); never reads the target word itself."""
    if i >= len(ws) or i == 0:
        return 0.0
    return _AFTER.get(ws[i - 1], {}).get(suffix_class(ws[i]), 0.0)


# the auxiliary right after a subject noun (#37 round four: InflectionSwap nouns open their clause before
# an agreeing auxiliary, "the kittens were"); -s fits a plural one, a bare noun a singular one
_BEFORE = {
    **{w: {"s": -1.0, "bare": 1.0} for w in ("is", "was", "has", "seems", "does")},
    **{w: {"s": 1.0, "bare": -1.0} for w in ("are", "were", "have", "seem", "do")},
}


def next_word_suffix(ws: list[str], i: int) -> float:
    """How well the target's ending (-s or none) fits the auxiliary right after it (is/was/has/seems vs
    are/were/have/seem); never reads the target word itself."""
    if i + 1 >= len(ws):
        return 0.0
    return _BEFORE.get(ws[i + 1], {}).get(suffix_class(ws[i]), 0.0)


# nearest-cue (#37): the grammatical cue nearest before the target, within its own window, and the
# target's ending. Each cue class: (the words, or (word before, word) bigrams; how far before the target it
# may stand; the fit of each ending). A class never reads the target word itself.
_NUMBERS = ("four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty", "hundred")
_CUES: tuple[tuple[str, frozenset[str], frozenset[tuple[str, str]], int, dict[str, float]], ...] = (
    ("plural-number", frozenset(PLURAL_DETS | set(_NUMBERS)), frozenset(), 2, {"s": 1, "bare": -1}),
    ("singular-number", frozenset(SINGULAR_DETS), frozenset(), 2, {"s": -1, "bare": 1}),
    (
        "modal",
        frozenset({*_MODALS, "do", "does", "did", "let", "shall"}),
        frozenset(),
        2,
        {"bare": 1, "s": -1, "ed": -1, "ing": -1},
    ),
    (
        "perfect",
        frozenset({"has", "had", "have", "hath"}),
        frozenset(),
        2,
        {"ed": 1, "bare": -1, "s": -1, "ing": -1},
    ),
    (
        "be",
        frozenset({"is", "was", "are", "were", "am", "be", "been"}),
        frozenset(),
        2,
        {"ing": 1, "ed": 0.5, "bare": -1, "s": -1},
    ),
    (
        "takes-ing",
        frozenset(
            {
                "kept",
                "keep",
                "keeps",
                "began",
                "begin",
                "started",
                "start",
                "stop",
                "stopped",
                "busy",
                "spent",
                "spend",
                "finished",
                "enjoyed",
                "avoided",
                "from",
            }
        ),
        frozenset({("went", "on"), ("fond", "of"), ("weary", "of"), ("tired", "of")}),
        1,
        {"ing": 1, "bare": -1, "s": -1, "ed": -1},
    ),
    ("he-she-it", frozenset({"he", "she", "it"}), frozenset(), 2, {"s": 1, "ed": 1, "bare": -1, "ing": -1}),
    (
        "i-we-they",
        frozenset({"i", "we", "they", "you"}),
        frozenset(),
        2,
        {"bare": 1, "ed": 1, "s": -1, "ing": -1},
    ),
    (
        "past-time",
        frozenset({"yesterday", "ago", "last", "once", "formerly"}),
        frozenset(
            {("that", "morning"), ("that", "night"), ("that", "day"), ("one", "day"), ("those", "days")}
        ),
        8,
        {"ed": 1, "s": -1, "bare": -1},
    ),
    (
        "present-time",
        frozenset({"now", "nowadays", "today", "present", "presently"}),
        frozenset(
            {("this", "day"), ("these", "days"), ("our", "time"), ("very", "moment"), ("this", "moment")}
        ),
        8,
        {"s": 1, "bare": 1, "ed": -1},
    ),
    ("future-time", frozenset({"tomorrow", "soon"}), frozenset(), 8, {"bare": 1, "ed": -1, "s": -1}),
)


def nearest_cue(ws: list[str], i: int) -> tuple[str, int] | None:
    """The cue class nearest before ``ws[i]`` within its window, and its position; None without one.
    A time phrase's bigram ("this day") counts at its last word."""
    for j in range(i - 1, max(-1, i - 9), -1):
        for name, single, pairs, window, _ in _CUES:
            if i - j > window:
                continue
            if ws[j] in single or (j > 0 and (ws[j - 1], ws[j]) in pairs):
                return name, j
    return None


_CUE_FIT = {name: fit for name, _, _, _, fit in _CUES}


def nearest_cue_suffix(ws: list[str], i: int) -> float:
    """How well the target's ending (-s, -ed, -ing, none) fits the grammatical cue nearest before it
    (a number determiner or numeral, a modal or "to", has/have/had, a form of "be", a verb that takes
    -ing, a subject pronoun, a time adverb); never reads the target word itself."""
    if i >= len(ws) or i == 0:
        return 0.0
    cue = nearest_cue(ws, i)
    return 0.0 if cue is None else _CUE_FIT[cue[0]].get(suffix_class(ws[i]), 0.0)


def prefer_s(ws: list[str], i: int) -> float:
    """Prefer the sentence whose target word ends in -s (a bias, not a rule)."""
    return 1.0 if i < len(ws) and _s(ws[i]) else 0.0


def frequency_rule(counts: Mapping[str, int]) -> Rule:
    """Prefer the sentence whose words are more frequent in the corpus (summed log counts)."""

    def more_frequent(ws: list[str], _i: int) -> float:
        return sum(math.log1p(counts.get(w, 0)) for w in ws)

    return more_frequent


RULES: dict[str, tuple[Rule, str]] = {
    "shorter": (shorter, "prefer the sentence with fewer words"),
    "det-noun-s": (det_noun_s, "a plural determiner is followed by a word in -s, a singular one is not"),
    "agree-first-noun": (agree_first_noun, "the target word ends in -s iff the first noun does not"),
    "agree-previous-word": (
        agree_previous_word,
        "the target word ends in -s iff the word before it does not",
    ),
    "prefer-s": (prefer_s, "prefer the sentence whose target word ends in -s"),
    # target-blind rules for rare-word pairs (#37): an item one of them decides needs no knowledge of the
    # rare word
    "prev-word-suffix": (
        prev_word_suffix,
        "the target's ending (-s, -ed, -ing, none) fits the word before it; never reads the target",
    ),
    "nearest-cue": (
        nearest_cue_suffix,
        "the target's ending fits the grammatical cue nearest before it (number word, modal or to, "
        "has/have, be, subject pronoun, time adverb); never reads the target",
    ),
    "article-class": (article_class, "after a/an the target's initial sound matches the article"),
}
FREQUENCY_DESCRIPTION = "prefer the sentence with the higher summed log corpus frequency of its words"


def pair_score(
    rule: Rule,
    good: str,
    bad: str,
    good_span: tuple[int, int] | None = None,
    bad_span: tuple[int, int] | None = None,
) -> float:
    """1 if the rule prefers the good sentence, 0 if the bad one, 0.5 if it cannot tell them apart.

    The target word is the critical region's first word where the pair has spans, else the first word
    where the two sentences differ.
    """
    g, b = words(good), words(bad)
    i = first_difference(g, b)
    ig = word_at(good, good_span[0]) if good_span else i
    ib = word_at(bad, bad_span[0]) if bad_span else i
    sg, sb = rule(g, ig), rule(b, ib)
    return 1.0 if sg > sb else 0.0 if sg < sb else 0.5
