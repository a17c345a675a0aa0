"""The LT-Swap prompts: names, rendering and hashes.

Templates live in ``corpusbench/prompts/ltswap/<purpose>.v1.j2`` and are rendered by the shared
``corpusbench.prompts.render`` (strict undefined variables); their hashes go into the provenance.
"""

from __future__ import annotations

from typing import Any

from corpusbench import prompts

WORD = "ltswap/word_sentence.v2"  # at least 20 words, as the reference asks
SAME_LEMMA = "ltswap/same_lemma.v1"
AGREEMENT = {
    "SVSHORT": "ltswap/agreement_sv_short.v1",
    "SVLONG": "ltswap/agreement_sv_long.v2",  # v2: "that can be ..." as in the paper
    "ANAPHORSHORT": "ltswap/agreement_anaphor_short.v1",
    "ANAPHORLONG": "ltswap/agreement_anaphor_long.v2",
    "DET": "ltswap/agreement_det.v1",
}
# the judge (judging.py): pairwise prompts read without a forced "[", and pointwise yes/no prompts
JUDGE_CHOOSE_NONCE = "ltswap/judge_choose_nonce.v2"
JUDGE_CHOOSE_GRAMMATICAL = "ltswap/judge_choose_grammatical.v2"
JUDGE_YES_NO_SENSE = "ltswap/judge_yes_no_sense.v1"
JUDGE_YES_NO_GRAMMATICAL = "ltswap/judge_yes_no_grammatical.v1"
JUDGE = (JUDGE_CHOOSE_NONCE, JUDGE_CHOOSE_GRAMMATICAL, JUDGE_YES_NO_SENSE, JUDGE_YES_NO_GRAMMATICAL)
# French and German (WordSwap only): the language is named in the prompt
WORD_LANG = "ltswap/word_sentence_lang.v2"
LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German"}
ALL = (WORD, SAME_LEMMA, *AGREEMENT.values(), WORD_LANG, *JUDGE)

POS_DESCRIPTIONS = {
    "NN": "noun",
    "NNS": "plural noun",
    "VB": "verb (base form)",
    "VBD": "verb in the past tense",
    "VBG": "verb in the -ing form",
    "VBZ": "verb in the third person singular present tense",
    # fr/de slots (morph.py)
    "VINF": "verb in the infinitive",
    "VPART": "verb in the participle form",
    "VFIN": "conjugated verb",
}


def render(name: str, **variables: Any) -> str:
    """Render template ``name`` (e.g. ``ltswap/word_sentence.v1``); a missing variable is a ConfigError."""
    return prompts.render(name, **variables)


def template_hash(name: str) -> str:
    return prompts.template_hash(name)


def prompt_hashes() -> dict[str, str]:
    return {name: template_hash(name) for name in ALL}
