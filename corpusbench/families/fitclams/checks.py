"""Checks on candidates. Each returns ``None`` (pass) or a reason; the reasons are the funnel counters.

Structural checks decide which candidates are binned (the reference's candidate list); semantic checks
(gender, animacy, intransitivity) decide which of them may be selected.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence, Set

from corpusbench.families.fitclams import animacy
from corpusbench.families.fitclams.candidates import fr_present_pair_ok
from corpusbench.families.fitclams.records import Candidate

# Copulas, auxiliaries and modals: never binned (App. D bins lexical verbs; the reference drops spaCy's
# AUX), whatever the tagger says (NLTK has no AUX tag and tags "is", "has", "can" as verbs).
AUXILIARIES = {
    "en": frozenset(
        {"be", "have", "do", "can", "could", "may", "might", "must", "shall", "should", "will", "would"}
        | {"ought"}
    ),
    "fr": frozenset({"être", "avoir", "pouvoir", "devoir", "vouloir", "falloir"}),
    "de": frozenset({"sein", "haben", "werden", "können", "müssen", "sollen", "wollen", "dürfen", "mögen"}),
}
# Light and raising verbs: lexical verbs, binned like any other, but never chosen (no intransitive use).
LIGHT_VERBS = {
    "en": frozenset({"seem", "become", "let", "need", "dare", "say"}),
    "fr": frozenset({"faire", "savoir", "sembler", "paraître", "devenir", "rester", "dire"}),
    "de": frozenset({"lassen", "heißen", "scheinen", "bleiben", "sagen", "geben"}),
}
VERB_STOPLIST = {lang: AUXILIARIES[lang] | LIGHT_VERBS[lang] for lang in AUXILIARIES}


_DE_PLURAL_SUFFIXES = frozenset({"", "e", "er", "n", "en", "s", "nen"})


def _strip_umlauts(w: str) -> str:
    return w.translate(str.maketrans("äöü", "aou"))


@functools.lru_cache(maxsize=65536)
def _en_inflections(lemma: str, upos: str) -> dict[str, tuple[str, ...]]:
    import lemminflect

    return {k: tuple(v) for k, v in lemminflect.getAllInflections(lemma, upos=upos).items()}


def inflection_ok(lang: str, c: Candidate) -> bool:
    """Is (sg, pl) a plausible inflectional pair? (English via lemminflect; FR/DE by rule.)"""
    if lang == "en":
        if c.pos == "noun":
            infl = _en_inflections(c.lemma, "NOUN")
            return c.pl in infl.get("NNS", ()) or c.pl in _en_inflections(c.sg, "NOUN").get("NNS", ())
        infl = _en_inflections(c.lemma, "VERB")
        return c.sg in infl.get("VBZ", ()) and (c.pl in infl.get("VBP", ()) or c.pl == c.lemma)
    if lang == "fr":
        if c.pos == "noun":
            sg, pl = c.sg, c.pl
            if sg.endswith(("al", "ail")):
                return pl in (sg + "s", sg[: sg.rfind("a")] + "aux")
            return pl in (sg + "s", sg + "x")
        return fr_present_pair_ok(c.sg, c.pl, c.lemma)
    # German: the plural continues the singular (modulo umlaut), the 3pl is the infinitive form.
    if c.pos == "noun":
        a, b = _strip_umlauts(c.sg), _strip_umlauts(c.pl)
        if b.startswith(a) and b[len(a) :] not in _DE_PLURAL_SUFFIXES:
            return False  # "gesandte/gesandter" is adjectival inflection, not a plural
        return b.startswith(a[: max(2, len(a) - 2)]) and len(b) >= len(a)
    return c.pl.endswith("n") and not c.sg.endswith("n")


def structural_reason(
    lang: str,
    c: Candidate,
    shared_vocab: Set[str] | None,
    verb_noun: Mapping[str, tuple[int, int]] | None = None,
) -> str | None:
    """Why ``c`` is not a binned candidate (``None``: it is). With ``verb_noun`` (form -> tokens tagged
    VERB, NOUN; ``candidates.verb_noun_counts``) a verb whose sg or pl form is tagged NOUN at least as
    often as VERB is dropped ("mostly_noun": "anger", "lands"): the reference tagged each type alone,
    which gives its dominant POS, so such forms were never verb candidates there."""
    if not c.sg or c.count_sg <= 0:
        return "missing_singular"
    if not c.pl or c.count_pl <= 0:
        return "missing_plural"
    if c.sg == c.pl:
        return "invariant_plural" if c.pos == "noun" else "identical_forms"
    if not (c.sg.isalpha() and c.pl.isalpha()):
        return "not_alphabetic"
    if shared_vocab is not None and (c.sg not in shared_vocab or c.pl not in shared_vocab):
        return "not_in_every_corpus"
    if not inflection_ok(lang, c):
        return "bad_inflection"
    if c.pos == "verb" and verb_noun is not None and not mostly_verb(c, verb_noun):
        return "mostly_noun"
    return None


def mostly_verb(c: Candidate, verb_noun: Mapping[str, tuple[int, int]]) -> bool:
    """Both forms have more VERB-tagged than NOUN-tagged tokens."""
    return all(verb_noun.get(f, (0, 0))[0] > verb_noun.get(f, (0, 0))[1] for f in (c.sg, c.pl))


def auxiliary_reason(lang: str, c: Candidate) -> str | None:
    """Copulas, auxiliaries and modals ("be", "have", "can") are not lexical verbs: App. D bins lexical
    verbs only, so they are dropped before binning and never set a bin edge."""
    return "auxiliary_or_copula" if c.pos == "verb" and c.lemma in AUXILIARIES[lang] else None


def light_verb_reason(lang: str, c: Candidate) -> str | None:
    """Light and raising verbs ("say", "seem", "let") are binned like every lexical verb and never chosen;
    ``SelectionConfig(bin_counts="agreement")`` drops them before binning."""
    return "light_verb" if c.pos == "verb" and c.lemma in LIGHT_VERBS[lang] else None


def noun_semantic(lang: str, c: Candidate, vocabulary: Mapping[str, int]) -> tuple[str | None, str]:
    """(reason or None, evidence) for a subject/attractor noun."""
    if lang in ("fr", "de") and c.gender not in (
        ("Masc", "Fem") if lang == "fr" else ("Masc", "Fem", "Neut")
    ):
        return "gender_unknown", ""
    animate, evidence = animacy.noun_animacy(lang, c.lemma, c.sg, vocabulary)
    if animate is None:
        return "animacy_unknown", evidence
    if not animate:
        return "inanimate", evidence
    return None, evidence


_DE_SEPARABLE = (
    "zurück", "heraus", "hinaus", "herein", "hinein", "herab", "hinab", "herauf", "hinauf", "hervor",
    "empor", "entgegen", "nieder", "vorüber", "weg", "fort", "heim", "los", "dar", "mit", "nach",
    "hin", "her", "auf", "aus", "ein", "an", "ab", "zu", "vor", "bei",
)  # fmt: skip


def de_separable(sg: str, vocabulary: Mapping[str, int]) -> bool:
    """A separable-prefix verb in its verb-final form ("hingeht", "herniederkommt"): a main clause
    needs "geht ... hin". Recognised when the form minus one or more separable prefixes is itself
    attested ("geht", "kommt")."""
    for p in _DE_SEPARABLE:
        rest = sg[len(p) :]
        if (
            sg.startswith(p)
            and len(rest) > 2
            and (vocabulary.get(rest, 0) > 0 or de_separable(rest, vocabulary))
        ):
            return True
    return False


def verb_semantic(
    lang: str,
    c: Candidate,
    next_pos: Sequence[str],
    rc_forms: Set[str],
    min_share: float,
    min_contexts: int = 1,
    vocabulary: Mapping[str, int] | None = None,
) -> tuple[str | None, str]:
    """(reason or None, evidence) for a main verb: must be usable without an object. German
    clause-final occurrences say nothing about objects (verb-final clauses put them before the verb),
    so only verb-second contexts count there."""
    if c.sg in rc_forms or c.pl in rc_forms:
        return "relative_clause_verb", ""
    if lang == "de" and de_separable(c.sg, vocabulary or {}):
        return "separable_verb", ""
    if animacy.lexicon_intransitive(lang, c.lemma):
        return None, "lexicon"
    if lang == "de" and next_pos:
        next_pos = [p for p in next_pos if p not in ("PUNCT", "")]
        if not next_pos:
            return "few_contexts", "contexts:verb-final"
    if lang == "en":
        frames = animacy.verb_frames_intransitive(c.lemma)
        if frames is True:
            return None, "wordnet:frame2"
        if frames is False:
            return "not_intransitive", "wordnet"
    share = animacy.context_intransitive_share(next_pos)
    if share is None:
        return None, "unverified"
    if len(next_pos) < min_contexts:
        return "few_contexts", f"contexts:{share:.2f}/{len(next_pos)}"
    if share < min_share:
        return "not_intransitive", f"contexts:{share:.2f}/{len(next_pos)}"
    return None, f"contexts:{share:.2f}/{len(next_pos)}"
