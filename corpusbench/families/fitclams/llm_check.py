"""Optional yes/no confirmation of the selected words by an LLM (off by default).

The judge sees only the shortlist of each bin (``select.select_per_bin``); a "no" vetoes the candidate
(counted as ``llm_vetoed``), "yes" or an unusable answer keeps the automatic decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from corpusbench.prompts import render
from corpusbench.provenance import sha256_text

NOUN_PROMPT = "fitclams/animate_noun.v1"
VERB_PROMPT = "fitclams/intransitive_verb.v1"
_LANGUAGE = {"en": "English", "fr": "French", "de": "German"}


def noun_question(lang: str) -> Callable[[str], str]:
    return lambda word: render(NOUN_PROMPT, language=_LANGUAGE[lang], word=word)


def verb_question(lang: str) -> Callable[[str], str]:
    return lambda word: render(VERB_PROMPT, language=_LANGUAGE[lang], word=word)


def llm_judge(
    llm: Any, progress: Callable[[str, int, int], None] | None = None
) -> Callable[[Sequence[str]], list[bool | None]]:
    """Wrap an object with ``choose(list[ChoiceRequest])`` (``corpusbench.llm``'s ``CachedLLM``);
    ``progress(stage, done, total)`` hears of each answer (stage ``llm check``)."""
    from corpusbench.llm import ChoiceRequest

    def judge(prompts: Sequence[str]) -> list[bool | None]:
        reqs = [
            ChoiceRequest(id=f"fitclams-{sha256_text(p)[:16]}", prompt=p, options=("yes", "no"))
            for p in prompts
        ]
        bar = None if progress is None else (lambda done, total: progress("llm check", done, total))
        answers = llm.choose(reqs, bar) if bar is not None else llm.choose(reqs)
        return [r.choice == "yes" if r.ok and r.choice in ("yes", "no") else None for r in answers]

    return judge
