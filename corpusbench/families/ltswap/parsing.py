"""Extracting sentences from free LLM answers (brackets, labels, quotes, chatter around them).

Unlike the reference (text between the *last* ``[`` and ``]`` or nothing), we accept several
shapes and pick the sentence that contains the target word; a reply that contains none is a
reject with a reason, never an exception.
"""

from __future__ import annotations

import re

from corpusbench.corpus.tokenize import split_sentences, tokenize

_BRACKETED = re.compile(r"\[([^\[\]]+)\]")
_QUOTED = re.compile(r'"([^"]*)"')
_LABEL = re.compile(
    r"^\s*(?:[-*•>#]+\s*|\(?\d{1,2}[.)]\s*|(?:sentence|singular|plural|answer|example)"
    r"(?:\s*\w{1,3})?\s*[:=-]\s*)+",
    re.IGNORECASE,
)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_WRAPPERS = "\"'`*_ \t"


def normalise(text: str) -> str:
    """Straight quotes, single spaces, no wrapping quotes/markdown, capital first letter, final stop."""
    text = " ".join(text.translate(_QUOTES).split())
    for _ in range(3):
        text = _LABEL.sub("", text).strip(_WRAPPERS)
    if text.count('"') % 2:
        text = text.replace('"', "")
    if not text:
        return ""
    if text[0].isalpha() and text[0].islower():
        text = text[0].upper() + text[1:]
    if text[-1] not in ".!?":
        text = text.rstrip(",;:-–— ") + "."
    return text


def _pieces(reply: str, lang: str) -> list[str]:
    """Candidate sentences of a reply: bracketed spans if any, else its lines split into sentences."""
    reply = reply.translate(_QUOTES)
    spans = [s.strip() for s in _BRACKETED.findall(reply) if s.strip()]
    if not spans:  # no brackets: quoted sentences ('The sentence is: "..."') if any
        spans = [s.strip() for s in _QUOTED.findall(reply) if len(s.split()) >= 3]  # not a quoted word
    if not spans:  # an unclosed "[..." (answer cut at max_tokens) or plain text
        spans = [line for line in reply.replace("[", "\n").replace("]", "\n").splitlines() if line.strip()]
    out: list[str] = []
    for span in spans:
        span = _LABEL.sub("", span).strip()
        out.extend(s for s in split_sentences(span, lang) if s.strip())
    return [s for s in (normalise(p) for p in out) if s]


def _has_word(sentence: str, word: str, lang: str) -> bool:
    word = word.lower()
    return any(t.lower() == word for t in tokenize(sentence, lang))


def _meta(sentence: str) -> bool:
    """Chatter about the task ("Here is a sentence with the noun 'cat':")."""
    low = sentence.lower()
    return (
        sentence.rstrip().endswith(":")
        or low.startswith(("here is", "here's", "sure", "certainly"))
        or " the word " in low
        or " the noun " in low
        or " the verb " in low
    )


def extract_sentence(reply: str, word: str, lang: str = "en") -> tuple[str | None, str]:
    """The first sentence of ``reply`` that uses ``word``; (None, reason) when there is none."""
    if not reply.strip():
        return None, "empty_answer"
    pieces = [p for p in _pieces(reply, lang) if not _meta(p)]
    if not pieces:
        return None, "no_sentence"
    for p in pieces:
        if _has_word(p, word, lang):
            return p, ""
    return None, "target_missing"


def extract_pair(
    reply: str, singular: str, plural: str, lang: str = "en"
) -> tuple[tuple[str, str] | None, str]:
    """(singular sentence, plural sentence) from a reply asked to give a minimal pair."""
    if not reply.strip():
        return None, "empty_answer"
    pieces = [p for p in _pieces(reply, lang) if not _meta(p)]
    if len(pieces) < 2:
        return None, "fewer_than_two_sentences"
    sg = [p for p in pieces if _has_word(p, singular, lang) and not _has_word(p, plural, lang)]
    pl = [p for p in pieces if _has_word(p, plural, lang) and not _has_word(p, singular, lang)]
    if not sg or not pl:
        return None, "target_missing"
    return (sg[0], pl[0]), ""
