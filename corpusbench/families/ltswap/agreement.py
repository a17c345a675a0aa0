"""AgreementSwap checks and cuts (§2.4): is the pair a clean minimal pair for its rule?

The singular and plural sentences are walked in parallel from the subject noun. Everything before
the noun must be identical and carry no number (no "a", "these", "many", ...); everything between
the noun and the first difference must be identical too, and that first difference must be the
rule's agreement marker:

- SV*: a finite verb pair, 3sg vs plural (is/are, was/were, has/have, does/do, runs/run);
- ANAPHOR*: a reflexive pair (himself/herself/itself vs themselves);
- DET: the determiner right before the noun (this/that vs these/those).

SHORT rules allow at most two shared words between noun and marker and no relative clause; LONG
rules need the paper's relative clause: the noun followed by "that can be ...". Both sentences are
cut right after the marker (DET: after the noun) and end with a full stop, so nothing after the
marker can give the number away. Unlike the reference, irregular plurals are fine and nothing is
deleted from inside a sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from corpusbench.families.ltswap.checks import oov_words, token_spans
from corpusbench.families.ltswap.records import InflectionPair, Parsed, Verdict

BE_HAVE_DO = {"is": "are", "was": "were", "has": "have", "does": "do"}
NUMBER_MARKED_VERBS = frozenset({*BE_HAVE_DO, *BE_HAVE_DO.values(), "'s", "'re", "am"})
REFLEXIVE_SG = frozenset({"himself", "herself", "itself"})
REFLEXIVE_PL = frozenset({"themselves"})
DET_SG = frozenset({"this", "that"})
DET_PL = frozenset({"these", "those"})
RELATIVE = frozenset({"that", "who", "which", "whom", "whose"})
NUMBER_MARKED_PREFIX = frozenset(
    {
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "each",
        "every",
        "many",
        "several",
        "multiple",
        "both",
        "few",
        "one",
        "two",
        "three",
        "four",
        "five",
        "ten",
        "another",
        "much",
        "various",
        "numerous",
        "all",
        "some",
    }
)
SHORT_MAX_GAP = 2
LONG_MIN_GAP = 3
LONG_OPENING = ["that", "can", "be"]  # paper §2.4 / reference: both LONG sentences contain "that can be"


def is_sv_pair(sg: str, pl: str) -> bool:
    """``sg``/``pl`` are the 3sg and plural present (or was/were) of one verb."""
    if BE_HAVE_DO.get(sg) == pl:
        return True
    import lemminflect

    for lemma in lemminflect.getLemma(pl, upos="VERB", lemmatize_oov=False):
        if lemma == pl and sg in lemminflect.getAllInflections(lemma, upos="VERB").get("VBZ", ()):
            return True
    return False


def _cut(text: str, end: int) -> str:
    return text[:end].rstrip(" ,;:") + "."


def check_agreement(
    rule: str,
    singular: str,
    plural: str,
    sg_text: str,
    pl_text: str,
    vocab: Mapping[str, int],
    lang: str = "en",
) -> tuple[Verdict, tuple[Parsed, Parsed] | None]:
    """Check a generated (singular, plural) sentence pair for ``rule``; return the two cut sentences."""
    a, b = token_spans(sg_text, lang), token_spans(pl_text, lang)
    la, lb = [t.lower() for t, _, _ in a], [t.lower() for t, _, _ in b]
    if la.count(singular) != 1 or lb.count(plural) != 1:
        return Verdict.drop(
            "target_missing" if singular not in la or plural not in lb else "target_repeated"
        ), None
    if plural in la or singular in lb:
        return Verdict.drop("both_forms_in_sentence"), None
    i, j = la.index(singular), lb.index(plural)
    if rule == "DET":
        if i == 0 or j == 0 or la[i - 1] not in DET_SG or lb[j - 1] not in DET_PL:
            return Verdict.drop("no_determiner_agreement"), None
        if la[: i - 1] != lb[: j - 1]:
            return Verdict.drop("prefix_differs"), None
        if NUMBER_MARKED_PREFIX.intersection(la[: i - 1]):
            return Verdict.drop("number_marked_prefix"), None
        ends = (a[i][2], b[j][2])
    else:
        if la[:i] != lb[:j]:
            return Verdict.drop("prefix_differs"), None
        if NUMBER_MARKED_PREFIX.intersection(la[:i]):
            return Verdict.drop("number_marked_prefix"), None
        k = 1
        while i + k < len(la) and j + k < len(lb) and la[i + k] == lb[j + k]:
            k += 1
        if i + k >= len(la) or j + k >= len(lb):
            return Verdict.drop("no_agreement_marker"), None
        shared = la[i + 1 : i + k]
        ms, mp = la[i + k], lb[j + k]
        if rule.startswith("SV"):
            if not is_sv_pair(ms, mp):
                return Verdict.drop("no_agreement_marker"), None
        elif ms not in REFLEXIVE_SG or mp not in REFLEXIVE_PL:
            return Verdict.drop("no_agreement_marker"), None
        elif not shared:
            return Verdict.drop("no_verb_before_reflexive"), None
        if NUMBER_MARKED_VERBS.intersection(shared):
            return Verdict.drop("shared_number_marked_verb"), None
        relative = bool(RELATIVE.intersection(shared))
        if rule.endswith("SHORT") and (len(shared) > SHORT_MAX_GAP or relative):
            return Verdict.drop("not_short_distance"), None
        if rule.endswith("LONG") and (len(shared) < LONG_MIN_GAP or shared[:3] != LONG_OPENING):
            return Verdict.drop("not_long_distance"), None
        ends = (a[i + k][2], b[j + k][2])
    cut_a, cut_b = _cut(sg_text, ends[0]), _cut(pl_text, ends[1])
    for cut, noun in ((cut_a, singular), (cut_b, plural)):
        if oov := oov_words([t for t, _, _ in token_spans(cut, lang) if t.lower() != noun], vocab):
            return Verdict.drop("oov_word", tuple(oov)), None
    return Verdict.keep(), (
        Parsed(text=cut_a, start=a[i][1], end=a[i][2]),
        Parsed(text=cut_b, start=b[j][1], end=b[j][2]),
    )


def det_without_verb_reading(lang: str) -> Callable[[InflectionPair], bool]:
    """Whether a noun pair may be a DET item: English nouns with no verb sense in WordNet ("crown",
    "father", "favour" have one: "This crowns." is a pronoun and a verb, so the bad sentence is not wrong;
    #37 round four). Other languages: every pair."""
    if lang != "en":
        return lambda p: True
    from corpusbench.corpus.wordnet import english_wordnet

    wordnet = english_wordnet()
    return lambda p: not wordnet.synsets(p.lemma.lower(), "v")
