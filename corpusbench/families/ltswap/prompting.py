"""The LT-Swap prompts: names, rendering and hashes.

Templates live in ``corpusbench/families/ltswap/prompts/<purpose>.v1.j2`` and are rendered by the shared
``corpusbench.prompts.render`` (strict undefined variables); their hashes go into the provenance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from corpusbench import prompts
from corpusbench.errors import ConfigError

WORD = "ltswap/word_sentence.v2"  # at least 20 words, as the reference asks (one user turn)
SAME_LEMMA = "ltswap/same_lemma.v1"
AGREEMENT = {
    # v2: an action verb, not is/are (#37: ignored); v3: the seeded verb named (``generation.sv_verb``)
    "SVSHORT": "ltswap/agreement_sv_short.v3",
    "SVLONG": "ltswap/agreement_sv_long.v4",  # v2: "that can be ..." as in the paper; v4: the verb named
    "ANAPHORSHORT": "ltswap/agreement_anaphor_short.v1",
    "ANAPHORLONG": "ltswap/agreement_anaphor_long.v2",
    "DET": "ltswap/agreement_det.v1",
}
# the judge (judging.py): pairwise prompts read without a forced "[", and pointwise yes/no prompts
JUDGE_CHOOSE_NONCE = "ltswap/judge_choose_nonce.v2"
JUDGE_CHOOSE_GRAMMATICAL = "ltswap/judge_choose_grammatical.v2"
JUDGE_YES_NO_SENSE = "ltswap/judge_yes_no_sense.v1"
JUDGE_YES_NO_GRAMMATICAL = "ltswap/judge_yes_no_grammatical.v1"
JUDGE_YES_NO_NONCE = "ltswap/judge_yes_no_nonce.v1"  # the feasibility game, one sentence at a time (#37)
JUDGE = (
    JUDGE_CHOOSE_NONCE,
    JUDGE_CHOOSE_GRAMMATICAL,
    JUDGE_YES_NO_SENSE,
    JUDGE_YES_NO_GRAMMATICAL,
    JUDGE_YES_NO_NONCE,
)
# French and German (WordSwap only): the language is named in the prompt
WORD_LANG = "ltswap/word_sentence_lang.v2"
LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German"}


@dataclass(frozen=True, slots=True)
class WriterPrompt:
    """How the WordSwap/InflectionSwap writer is asked for a sentence: an optional system turn (fixed for
    a run, so a vLLM server answers it from its prefix cache) and the user turn per word and language."""

    system: str | None
    user: str
    user_lang: str  # fr/de
    examples: bool = False  # the system turn shows a few of the corpus's own sentences
    # the contrastive writer (v6): WordSwap sentences are written per pair, naming the partner word that
    # must not fit (system turn, user turn); None: one sentence per word, paired after the checks
    contrast: tuple[str, str] | None = None
    gloss: bool = False  # the user turn gives the word's meaning (English: WordNet's first sense; v7)


WORD_V3_SYSTEM = "ltswap/word_sentence_system.v3"
WORD_V3 = "ltswap/word_sentence.v3"
WORD_V4_SYSTEM = "ltswap/word_sentence_system.v4"
WORD_V5_SYSTEM = "ltswap/word_sentence_system.v5"
WORD_V6_CONTRAST_SYSTEM = "ltswap/word_sentence_contrast_system.v6"
WORD_V6_CONTRAST = "ltswap/word_sentence_contrast.v6"
WORD_V7_SYSTEM = "ltswap/word_sentence_system.v7"
WORD_V7 = "ltswap/word_sentence.v7"
WRITERS = {
    # v2: everything in one user turn (the model's own default system prompt goes before it)
    "v2": WriterPrompt(None, WORD, WORD_LANG),
    # v3: the instructions in a fixed system turn, the word alone in the user turn (3.8x fewer new prompt
    # tokens per sentence on a prefix-caching server: benchmarks/bench_writer_prompts.py, docs/ltswap.md)
    "v3": WriterPrompt(WORD_V3_SYSTEM, WORD_V3, WORD_V3),
    # v4: v3 with a few corpus sentences in the system turn (words the corpus has; still prefix-cached)
    "v4": WriterPrompt(WORD_V4_SYSTEM, WORD_V3, WORD_V3, examples=True),
    # v5 (#37): v4 asking for a sentence that shows what the word means (WordSwap swaps that stayed sensible)
    "v5": WriterPrompt(WORD_V5_SYSTEM, WORD_V3, WORD_V3, examples=True),
    # v6 (#37): v5, but WordSwap's pairs are made before writing and each sentence names its partner word,
    # which must not fit it (English); InflectionSwap sentences are v5's
    "v6": WriterPrompt(
        WORD_V5_SYSTEM, WORD_V3, WORD_V3, examples=True, contrast=(WORD_V6_CONTRAST_SYSTEM, WORD_V6_CONTRAST)
    ),
    # v7 (#37): v5 with the word's meaning in the user turn (English; a word WordNet lacks gets v5's turn),
    # against good sentences that use a rare word in a sense it does not have
    "v7": WriterPrompt(WORD_V7_SYSTEM, WORD_V7, WORD_V3, examples=True, gloss=True),
}
DEFAULT_WRITER = "v3"
ALL = (
    WORD,
    SAME_LEMMA,
    *AGREEMENT.values(),
    WORD_LANG,
    *JUDGE,
    WORD_V3,
    WORD_V3_SYSTEM,
    WORD_V4_SYSTEM,
    WORD_V5_SYSTEM,
    WORD_V6_CONTRAST_SYSTEM,
    WORD_V6_CONTRAST,
    WORD_V7_SYSTEM,
    WORD_V7,
)

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


def writer(name: str) -> WriterPrompt:
    """The writer prompt called ``name``; an unknown name is a ConfigError listing the known ones."""
    if name not in WRITERS:
        raise ConfigError(f"unknown writer prompt {name!r}; choose from {', '.join(WRITERS)}")
    return WRITERS[name]


def writer_turns(
    name: str,
    *,
    word: str,
    pos_desc: str,
    lang: str,
    examples: tuple[str, ...] = (),
    partner: str | None = None,
    gloss: str | None = None,
) -> tuple[str | None, str]:
    """(system turn or None, user turn) asking writer prompt ``name`` for a sentence with ``word``;
    ``examples``: the corpus sentences of a writer that shows some (v4); ``partner``: the contrastive
    writer's (v6) other WordSwap word, which the sentence must not fit; ``gloss``: the word's meaning,
    for a writer that gives it (v7; English only)."""
    w = writer(name)
    language = LANGUAGE_NAMES[lang]
    if partner is not None:
        if w.contrast is None:
            raise ConfigError(f"writer prompt {name!r} writes no sentence against a partner word")
        system, user = w.contrast
        extra = {"examples": examples} if w.examples else {}
        return render(system, language=language, **extra), render(
            user, word=word, pos_desc=pos_desc, partner=partner
        )
    if w.system is None:
        if lang == "en":
            return None, render(w.user, word=word, pos_desc=pos_desc)
        return None, render(w.user_lang, word=word, pos_desc=pos_desc, language=language)
    extra = {"examples": examples} if w.examples else {}
    if lang != "en":
        return render(w.system, language=language, **extra), render(w.user_lang, word=word, pos_desc=pos_desc)
    meaning = {"gloss": gloss} if w.gloss else {}
    return render(w.system, language=language, **extra), render(
        w.user, word=word, pos_desc=pos_desc, **meaning
    )


def template_hash(name: str) -> str:
    return prompts.template_hash(name)


def prompt_hashes() -> dict[str, str]:
    return {name: template_hash(name) for name in ALL}
