"""Noun and verb candidates from a stats folder's in-context counts (``corpus/store.py`` contract).

A noun candidate is a lemma with a singular and a plural form both tagged NOUN in context; a verb
candidate has a present-indicative 3sg and 3pl form both attested (EN: VBZ and VB/VBP, App. D's
``tag_ in {VB, VBP, VBZ}`` with everything but 3sg counted as the plural form; FR: Person=3,
Tense=Pres, Mood=Ind; DE: VVFIN 3sg/3pl present). A form's count is its count *in that function*,
and a lemma's frequency is count(sg) + count(pl). ``counts="agreement"`` counts English plural
forms as VBP only (the agreeing use alone). Where a tagger gives no morphology (German from
HanTa), number, person and gender are derived from form/lemma and from article contexts.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from corpusbench.families.fitclams.records import Candidate

if TYPE_CHECKING:
    import pandas as pd

_GENDERS = ("Masc", "Fem", "Neut")
# article (lowercased) -> gender votes, for nouns in the singular (German: article may precede adjectives).
_ARTICLE_VOTES = {
    "de": {
        "das": {"Neut": 1.0},
        "die": {"Fem": 1.0},
        "eine": {"Fem": 1.0},
        "einer": {"Fem": 0.5},
        "einen": {"Masc": 1.0},
        "den": {"Masc": 1.0},
        "der": {"Masc": 0.5, "Fem": 0.5},  # nominative masculine or dative/genitive feminine
        "dem": {"Masc": 0.5, "Neut": 0.5},
        "des": {"Masc": 0.5, "Neut": 0.5},
        "ein": {"Masc": 0.5, "Neut": 0.5},
        "einem": {"Masc": 0.5, "Neut": 0.5},
        "eines": {"Masc": 0.5, "Neut": 0.5},
    },
    "fr": {
        "le": {"Masc": 1.0},
        "la": {"Fem": 1.0},
        "un": {"Masc": 1.0},
        "une": {"Fem": 1.0},
        "du": {"Masc": 1.0},
        "au": {"Masc": 1.0},
        "ce": {"Masc": 1.0},
        "cet": {"Masc": 1.0},
        "cette": {"Fem": 1.0},
        "ma": {"Fem": 1.0},
        "ta": {"Fem": 1.0},
        "sa": {"Fem": 1.0},
    },
}


def parse_morph(morph: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for feat in (morph or "").split("|"):
        if "=" in feat:
            k, v = feat.split("=", 1)
            out[k] = v
    return out


@dataclass
class _Slots:
    sg: Counter[str] = field(default_factory=Counter)
    pl: Counter[str] = field(default_factory=Counter)
    gender: Counter[str] = field(default_factory=Counter)


def _norm_lemma(lemma: str, form: str, lang: str, tag: str) -> str:
    """Lowercased lemma; English taggers without lemmas (NLTK) get lemminflect's."""
    if lemma:
        return lemma.lower()
    if lang == "en" and tag in ("NNS", "VBZ", "VBP"):  # "are" -> "be"
        return _en_lemma(form, "NOUN" if tag == "NNS" else "VERB")
    return form


@functools.lru_cache(maxsize=65536)
def _en_lemma(form: str, upos: str) -> str:
    import lemminflect

    found = lemminflect.getLemma(form, upos=upos, lemmatize_oov=True)
    return found[0].lower() if found else form


def _de_noun_number(form: str, lemma: str) -> str | None:
    """German nouns without morphology: the lemma form is singular; other forms plural, except the
    genitive singular (-es, -s after a consonant). The old dative singular in -e is sorted out per
    lemma (``_de_fold_dative_plural``)."""
    if form == lemma:
        return "sg"
    if form == lemma + "es" and not lemma.endswith("e"):  # genitive "volkes"
        return None
    if form == lemma + "s" and lemma[-1:] not in "aeiouy":  # genitive "kaisers"; "opas" stays plural
        return None
    return "pl"


def _de_fold_dative_plural(pl: Counter[str], lemma: str = "") -> None:
    """Count a dative plural ("hunden") as its nominative ("hunde") when that is attested too; with a
    ``lemma``, drop lemma + "e" when another plural is attested: it is then the old dative singular
    ("dem hause" beside "häuser"), not the plural ("hunde")."""
    for form in sorted(pl, key=len, reverse=True):
        if form.endswith("n") and form[:-1] in pl:
            pl[form[:-1]] += pl.pop(form)
    if lemma and lemma + "e" in pl and len(pl) > 1 and not lemma.endswith("e"):
        del pl[lemma + "e"]
    if lemma and lemma + "n" in pl and lemma + "en" in pl:  # "herrn" is the oblique singular of "herr"
        del pl[lemma + "n"]


_DE_ET = re.compile(r"([dt]|chn|ckn|[^aeiouäöülrh][mn])$")  # stems that take -et in the 3sg


def _de_verb_number(form: str, lemma: str) -> str | None:
    """German VVFIN without morphology: 3pl = infinitive form; 3sg = stem + (e)t with the regular
    present-tense vowel changes (e->i/ie, a->ä, au->äu, o->ö). Past forms ("hielt", "trat") fail."""
    if form == lemma:
        return "pl"
    stem = lemma[:-2] if lemma.endswith("en") else lemma[:-1] if lemma.endswith("n") else None
    if not stem or not form.endswith("t"):
        return None
    variants = {stem}
    for a, b in (("e", "i"), ("e", "ie"), ("a", "ä"), ("au", "äu"), ("o", "ö")):
        i = stem.rfind(a)
        if i >= 0:
            variants.add(stem[:i] + b + stem[i + len(a) :])
    for v in variants:
        if form == v + "t" or (form == v and v.endswith("t")):
            return "sg"
        if form == v + "et" and _DE_ET.search(v):  # "redet", "öffnet"; "sehet" is archaic 2pl/imperative
            return "sg"
    return None


def _fr_er_present_pl(lemma: str) -> set[str]:
    """Present 3pl of a first-group verb: regular, e/é -> è (lèvent, considèrent), doubled consonant
    (jettent, appellent), y -> i (emploient)."""
    stem = lemma[:-2]
    out = {stem + "ent", stem + stem[-1:] + "ent"}
    for a in ("é", "e"):
        i = stem.rfind(a)
        if i >= 0:
            out.add(stem[:i] + "è" + stem[i + 1 :] + "ent")
    if stem.endswith("y"):
        out.add(stem[:-1] + "ient")
    return out


_FR_E_PRESENT = ("rir", "llir")  # ouvre, offre, souffre, cueille: the other non-first-group 3sg in -e


def _fr_first_group(lemma: str) -> bool:
    return lemma.endswith("er") and lemma != "aller"


def fr_present_form_ok(form: str, number: str, lemma: str) -> bool:
    """Reject French forms that cannot be present indicative, whatever the tagger said: the small
    spaCy model labels passé simple ("jeta", "jetèrent", "courut"), subjunctive ("croie", "vissent"),
    future and imperfect forms Tense=Pres. First-group verbs are checked against their
    lemma; ``va`` (aller) is the one 3sg present in -a."""
    if _fr_first_group(lemma):
        return form.endswith("e") if number == "sg" else form in _fr_er_present_pl(lemma)
    if number == "sg":
        if form.endswith(("a", "ait")) and form != "va":
            return False
        if form.endswith("e") and not lemma.endswith(_FR_E_PRESENT):  # subjunctive: croie, agisse
            return False
        return not (form.endswith("ut") and not form.endswith(("aut", "eut", "out", "clut")))
    if form.endswith(("aient", "ront", "èrent", "irent", "inrent", "assent", "ussent", "inssent")):
        return False
    return not (form.endswith("urent") and not form.endswith(("ourent", "eurent")))  # courent, meurent


def fr_present_pair_ok(sg: str, pl: str, lemma: str) -> bool:
    """Is (sg, pl) a present-indicative 3sg/3pl pair? First group (and ouvrir, offrir, ...): pl = sg
    + "nt"; others: sg in -t/-d/-c whose stem continues in pl, which rules out a passé simple sg next to
    a present pl ("prit/prennent", "vint/viennent", "vit/voient", "partit/partent")."""
    if not (fr_present_form_ok(sg, "sg", lemma) and fr_present_form_ok(pl, "pl", lemma)):
        return False
    if pl == sg + "nt":
        return True
    if lemma == "aller":
        return (sg, pl) == ("va", "vont")
    if lemma.endswith("er") or not pl.endswith("ent"):
        return False
    if sg.endswith("it"):  # finit/finissent, dit/disent, vit/vivent, rit/rient; not prit, vit/vissent
        stem_ok = sg in (lemma[:-1] + "t", lemma[:-2] + "t", lemma[:-3] + "t")
        return stem_ok and pl in {sg[:-1] + end for end in ("ssent", "sent", "vent", "ent")}
    if sg.endswith("int"):  # craint/craignent; not vint/viennent
        return pl == sg[:-2] + "gnent"
    if not sg.endswith(("t", "d", "c")):
        return False
    bare = sg.replace("î", "i").replace("û", "u")  # connaît/connaissent
    return pl.startswith(bare[:-1])  # vient/viennent, prend/prennent, vainc/vainquent


def _noun_number(lang: str, tag: str, feats: Mapping[str, str], form: str, lemma: str) -> str | None:
    num = feats.get("Number")
    if num == "Sing":
        return "sg"
    if num == "Plur":
        return "pl"
    if lang == "en":
        return {"NN": "sg", "NNS": "pl"}.get(tag)
    if lang == "de":
        return _de_noun_number(form, lemma)
    return None


_EN_VERB_NUMBER = {"VBZ": "sg", "VBP": "pl", "VB": "pl"}  # App. D: VB forms ("sit") count as the plural


def _verb_number(lang: str, tag: str, feats: Mapping[str, str], form: str, lemma: str) -> str | None:
    if lang == "en":
        return _EN_VERB_NUMBER.get(tag)
    if feats.get("Tense") or feats.get("Person"):
        if feats.get("Person") != "3" or feats.get("Tense") != "Pres" or feats.get("Mood", "Ind") != "Ind":
            return None
        if feats.get("VerbForm", "Fin") != "Fin":
            return None
        number = {"Sing": "sg", "Plur": "pl"}.get(feats.get("Number", ""))
        if lang == "fr" and number and not fr_present_form_ok(form, number, lemma):
            return None
        return number
    if lang == "de" and tag == "VVFIN":
        return _de_verb_number(form, lemma)
    return None


def _is_noun(lang: str, tag: str, pos: str) -> bool:
    return pos == "NOUN" or (lang == "de" and tag == "NN") or (lang == "en" and tag in ("NN", "NNS"))


def _is_verb(lang: str, tag: str, pos: str) -> bool:
    if lang == "en":
        return pos == "VERB" and tag in _EN_VERB_NUMBER
    if lang == "de":
        return tag == "VVFIN" if tag.startswith("V") else pos == "VERB"
    return pos == "VERB"


Classified = tuple[str, str, str, dict[str, str], str, int]  # form, tag, lemma, features, number, count


def classify(
    counts: pd.DataFrame, lang: str, pos: str, *, agreement_only: bool = False
) -> Iterator[Classified]:
    """The rows of ``counts`` that are a ``pos`` ("noun" | "verb") form with a number, in their
    function: English VB rows are skipped with ``agreement_only`` (plural = VBP only)."""
    is_pos = _is_noun if pos == "noun" else _is_verb
    for form, tag, upos, lemma, morph, n in counts[
        ["form", "tag", "pos", "lemma", "morph", "count"]
    ].itertuples(index=False, name=None):
        tag = str(tag).replace("(", "").replace(")", "")  # HanTa writes "VV(FIN)"; STTS is "VVFIN"
        if not is_pos(lang, tag, upos) or (agreement_only and lang == "en" and tag == "VB"):
            continue
        form = str(form).lower()
        lem = _norm_lemma(str(lemma), form, lang, tag)
        feats = parse_morph(str(morph))
        number = (_noun_number if pos == "noun" else _verb_number)(lang, tag, feats, form, lem)
        if number is not None:
            yield form, tag, lem, feats, number, int(n)


def extract(
    counts: pd.DataFrame, lang: str, pos: str, *, agreement_only: bool = False
) -> tuple[list[Candidate], Counter[tuple[str, str]]]:
    """All lemmas of ``pos`` ("noun" | "verb") with their most frequent sg and pl forms (either may be
    missing: those are dropped later with a reason), and the in-function count of every
    (number, form) slot (used to report a chosen word's frequency in the other corpora)."""
    slots: dict[str, _Slots] = defaultdict(_Slots)
    slot_counts: Counter[tuple[str, str]] = Counter()
    for form, _tag, lem, feats, number, n in classify(counts, lang, pos, agreement_only=agreement_only):
        s = slots[lem]
        (s.sg if number == "sg" else s.pl)[form] += n
        slot_counts[(number, form)] += n
        if pos == "noun" and feats.get("Gender") in _GENDERS:
            s.gender[feats["Gender"]] += n
    if lang == "de" and pos == "noun":
        plurals = Counter({f: n for (num, f), n in slot_counts.items() if num == "pl"})
        _de_fold_dative_plural(plurals)
        slot_counts = Counter({k: n for k, n in slot_counts.items() if k[0] == "sg"})
        slot_counts.update({("pl", f): n for f, n in plurals.items()})
    out = []
    for lem in sorted(slots):
        s = slots[lem]
        if lang == "de" and pos == "noun":
            _de_fold_dative_plural(s.pl, lem)
        sg, c_sg = _top(s.sg)
        pl, c_pl = _top(s.pl)
        if lang == "fr" and pos == "verb" and not fr_present_pair_ok(sg, pl, lem):
            sg, c_sg, pl, c_pl = _best_pair(s, lem, (sg, c_sg, pl, c_pl))
        gender = _majority(s.gender)
        out.append(
            Candidate(
                pos=pos,
                lemma=lem,
                sg=sg,
                pl=pl,
                count_sg=c_sg,
                count_pl=c_pl,
                gender=gender,
                gender_votes=tuple(sorted(s.gender.items())),
            )
        )
    return out, slot_counts


def _best_pair(s: _Slots, lemma: str, default: tuple[str, int, str, int]) -> tuple[str, int, str, int]:
    """The most frequent valid French present pair when the top forms do not match (the tagger files
    "prit" with "prend" under Tense=Pres)."""
    pairs = [
        (n_sg + n_pl, sg, n_sg, pl, n_pl)
        for sg, n_sg in s.sg.items()
        for pl, n_pl in s.pl.items()
        if fr_present_pair_ok(sg, pl, lemma)
    ]
    if not pairs:
        return default
    _, sg, n_sg, pl, n_pl = min(pairs, key=lambda t: (-t[0], t[1], t[3]))
    return sg, n_sg, pl, n_pl


def _top(c: Counter[str]) -> tuple[str, int]:
    if not c:
        return "", 0
    form, n = min(c.items(), key=lambda kv: (-kv[1], kv[0]))
    return form, n


def _majority(votes: Mapping[str, float], min_share: float = 0.6) -> str | None:
    total = sum(votes.values())
    if total <= 0:
        return None
    g, n = min(votes.items(), key=lambda kv: (-kv[1], kv[0]))
    return g if n / total >= min_share else None


def article_votes(lang: str, form: str, contexts: pd.DataFrame | None) -> Counter[str]:
    """Gender votes from the articles before a singular noun in its corpus contexts."""
    votes: Counter[str] = Counter()
    table = _ARTICLE_VOTES.get(lang)
    if table is None or contexts is None or contexts.empty:
        return votes
    rows = contexts[contexts["form"] == form]
    for sentence, idx in rows[["sentence", "token_index"]].itertuples(index=False, name=None):
        toks = str(sentence).split(" ")
        for j in range(int(idx) - 1, max(int(idx) - 4, -1), -1):  # skip up to two adjectives
            w = _de_determiner(toks[j].lower()) if lang == "de" else toks[j].lower()
            if w in table:
                entry = _de_der(toks, j) if lang == "de" and w == "der" else table[w]
                unambiguous = len(entry) == 1  # "den"/"einen" outweigh "ein"/"mein" (Masc or Neut)
                for g, v in entry.items():
                    votes[g] += v * (3 if unambiguous else 1)
                break
            if not toks[j].isalpha() or w in _STOP_DETERMINERS or (lang == "de" and toks[j][:1].isupper()):
                break
    return votes


_DE_EIN_LIKE = re.compile(r"^(?:mein|dein|sein|ihr|unser|eue?r|kein)(e|en|em|er|es)?$")
_DE_DER_LIKE = re.compile(r"^(?:dies|jed|jen)(e|en|em|er|es)$")
_DE_DER_ENDING = {"e": "die", "en": "den", "em": "dem", "er": "der", "es": "das"}
# determiners that carry no gender of the next noun: stop there rather than read an article further back
_STOP_DETERMINERS = frozenset({"dessen", "deren", "son", "ses", "mon", "ton", "leur"})


_DE_CASE_PREPS = frozenset(
    [
        "mit",
        "von",
        "zu",
        "bei",
        "nach",
        "aus",
        "seit",
        "in",
        "an",
        "auf",
        "vor",
        "hinter",
        "über",
        "unter",
        "neben",
        "zwischen",
        "gegenüber",
        "wegen",
        "trotz",
        "während",
        "samt",
        "außer",
    ]
)
_CLAUSE_START = frozenset({",", ";", ":", ".", "!", "?", "und", "aber", "denn", "oder", "da", "so"})


def _de_der(toks: list[str], j: int) -> dict[str, float]:
    """ "der" is a nominative masculine at a clause start, a dative/genitive feminine after a
    preposition or a noun ("mit der tochter", "das haus der mutter"); otherwise undecided."""
    prev = toks[j - 1] if j > 0 else "."
    if prev.lower() in _DE_CASE_PREPS or (prev[:1].isupper() and j > 0 and prev.lower() not in _CLAUSE_START):
        return {"Fem": 1.0}
    if prev.lower() in _CLAUSE_START:
        return {"Masc": 1.0}
    return {"Masc": 0.5, "Fem": 0.5}


def _de_determiner(word: str) -> str:
    """Possessives and kein- inflect like "ein" (meinem -> einem); dies-/jed-/jen- like the article."""
    m = _DE_EIN_LIKE.match(word)
    if m:
        return "ein" + (m.group(1) or "")
    m = _DE_DER_LIKE.match(word)
    return _DE_DER_ENDING[m.group(1)] if m else word


def de_dative_plural_only(c: Candidate, contexts: pd.DataFrame | None) -> bool:
    """German plurals in -ern/-eln: is the form only ever seen after "den" (a dative plural, as in
    "den zauberern" beside the nominative "zauberer", or "den töchtern" where "töchter" is not
    attested)? Real -n plurals show up after "die" ("die schwestern", "die bauern")."""
    if not c.pl.endswith(("ern", "eln")):  # zauberern (sg zauberer), töchtern (nominative töchter)
        return False
    if contexts is None or contexts.empty:
        return True
    before: Counter[str] = Counter()
    rows = contexts[contexts["form"] == c.pl]
    for sentence, idx in rows[["sentence", "token_index"]].itertuples(index=False, name=None):
        toks = str(sentence).split(" ")
        for j in range(int(idx) - 1, max(int(idx) - 3, -1), -1):  # skip one adjective
            if toks[j].lower() in ("die", "den", "diese", "alle", "viele"):
                before[toks[j].lower()] += 1
                break
    return sum(before.values()) - before["den"] == 0


def resolve_gender(
    c: Candidate, lang: str, contexts: pd.DataFrame | None, article_weight: float = 3.0
) -> str | None:
    """Gender from the corpus in context: the tagger's morphology votes plus article votes, each as
    shares so that the tagger's counts over every token cannot drown the (weighted) articles of the
    kept contexts ("le prince" over a tagger that says Fem). Fixes the reference's isolated-word
    tagging ("dame" -> Masc -> "le dame")."""
    votes: Counter[str] = Counter()
    for source, weight in (
        (dict(c.gender_votes), 1.0),
        (article_votes(lang, c.sg, contexts), article_weight),
    ):
        total = sum(source.values())
        for g, v in source.items():
            votes[g] += weight * v / total
    return _majority(votes)


# French object clitics before the verb: the verb has its object there ("se confient", "le concerne").
_FR_OBJECT_CLITICS = frozenset(
    {"se", "s'", "me", "m'", "te", "t'", "le", "la", "les", "l'", "lui", "leur", "en", "y", "nous", "vous"}
)


def next_pos_in_contexts(
    forms: tuple[str, ...], contexts: pd.DataFrame | None, dominant_pos: Mapping[str, str], lang: str = ""
) -> list[str]:
    """Dominant POS of the token after each context occurrence of ``forms`` ('' at the end); French
    occurrences after an object clitic count as "CLITIC" (an object, not intransitive use)."""
    if contexts is None or contexts.empty:
        return []
    out = []
    rows = contexts[contexts["form"].isin(forms)]
    for sentence, idx in rows[["sentence", "token_index"]].itertuples(index=False, name=None):
        toks = str(sentence).split(" ")
        j = int(idx) + 1
        if lang == "fr" and j >= 2 and toks[j - 2].lower() in _FR_OBJECT_CLITICS:
            out.append("CLITIC")
            continue
        if j >= len(toks):
            out.append("")
            continue
        nxt = toks[j].lower()
        out.append("PUNCT" if not any(ch.isalnum() for ch in nxt) else dominant_pos.get(nxt, "X"))
    return out


def dominant_pos(counts: pd.DataFrame) -> dict[str, str]:
    """form -> its most frequent coarse POS in the corpus."""
    grouped = counts.groupby(["form", "pos"], sort=True)["count"].sum().reset_index()
    grouped = grouped.sort_values(["form", "count", "pos"], ascending=[True, False, True], kind="stable")
    first = grouped.drop_duplicates("form", keep="first")
    return dict(zip(first["form"].str.lower(), first["pos"], strict=True))


def function_keys(counts: pd.DataFrame, lang: str, pos: str) -> set[tuple[str, str]]:
    """The (form, tag) pairs counted as ``pos`` forms: which context sentences show that use."""
    return {(form, tag) for form, tag, *_ in classify(counts, lang, pos)}


def contexts_in_function(contexts: pd.DataFrame | None, keys: set[tuple[str, str]]) -> pd.DataFrame | None:
    """Only the context sentences whose (form, tag) is in ``keys`` (verb evidence from verb uses:
    "of the living" after the noun "lives" is no complement of the verb)."""
    if contexts is None or contexts.empty:
        return contexts
    tags = contexts["tag"].astype(str).str.replace("(", "", regex=False).str.replace(")", "", regex=False)
    mask = [k in keys for k in zip(contexts["form"], tags, strict=True)]
    return contexts[mask].reset_index(drop=True)


def verb_noun_counts(counts: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """form -> (tokens tagged VERB, tokens tagged NOUN). Proper-noun tags are left out: NLTK tags a
    sentence-initial imperative "Go" as NNP."""
    sub = counts[counts["pos"].isin(("VERB", "NOUN"))]
    grouped = sub.groupby([sub["form"].str.lower(), "pos"], sort=False)["count"].sum()
    out: dict[str, list[int]] = {}
    for (form, pos), n in grouped.items():
        out.setdefault(form, [0, 0])[0 if pos == "VERB" else 1] += int(n)
    return {f: (v, n) for f, (v, n) in out.items()}
