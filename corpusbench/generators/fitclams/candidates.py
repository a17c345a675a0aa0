"""Noun and verb candidates from a stats folder's in-context counts (``corpus/store.py`` contract).

A noun candidate is a lemma with a singular and a plural form both tagged NOUN in context; a verb
candidate has a present-indicative 3sg and 3pl form both attested (EN: VBZ/VBP; FR: Person=3,
Tense=Pres, Mood=Ind; DE: VVFIN 3sg/3pl present). A form's count is its count *in that function*,
and a lemma's frequency is count(sg) + count(pl). Where a tagger gives no morphology (German from
HanTa), number, person and gender are derived from form/lemma and from article contexts.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from corpusbench.generators.fitclams.records import Candidate

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
        "der": {"Masc": 0.6, "Fem": 0.4},
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
        "cette": {"Fem": 1.0},
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
    if lang == "en" and tag in ("NNS", "VBZ"):
        return _en_lemma(form, "NOUN" if tag == "NNS" else "VERB")
    return form


@functools.lru_cache(maxsize=65536)
def _en_lemma(form: str, upos: str) -> str:
    import lemminflect

    found = lemminflect.getLemma(form, upos=upos, lemmatize_oov=True)
    return found[0].lower() if found else form


def _de_noun_number(form: str, lemma: str) -> str | None:
    """German nouns without morphology: the lemma form is singular; other forms plural, except
    genitive/dative singular endings (-es, -e)."""
    if form == lemma:
        return "sg"
    if form in (lemma + "es", lemma + "e") and not lemma.endswith("e"):
        return None
    return "pl"


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
        if form in (v + "t", v + "et") or (form == v and v.endswith("t")):
            return "sg"
    return None


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


def _verb_number(lang: str, tag: str, feats: Mapping[str, str], form: str, lemma: str) -> str | None:
    if lang == "en":
        return {"VBZ": "sg", "VBP": "pl"}.get(tag)
    if feats.get("Tense") or feats.get("Person"):
        if feats.get("Person") != "3" or feats.get("Tense") != "Pres" or feats.get("Mood", "Ind") != "Ind":
            return None
        if feats.get("VerbForm", "Fin") != "Fin":
            return None
        return {"Sing": "sg", "Plur": "pl"}.get(feats.get("Number", ""))
    if lang == "de" and tag == "VVFIN":
        return _de_verb_number(form, lemma)
    return None


def _is_noun(lang: str, tag: str, pos: str) -> bool:
    return pos == "NOUN" or (lang == "de" and tag == "NN") or (lang == "en" and tag in ("NN", "NNS"))


def _is_verb(lang: str, tag: str, pos: str) -> bool:
    if lang == "en":
        return pos == "VERB" and tag in ("VBZ", "VBP")
    if lang == "de":
        return tag == "VVFIN" if tag.startswith("V") else pos == "VERB"
    return pos == "VERB"


def extract(counts: pd.DataFrame, lang: str, pos: str) -> tuple[list[Candidate], Counter[tuple[str, str]]]:
    """All lemmas of ``pos`` ("noun" | "verb") with their most frequent sg and pl forms (either may be
    missing: those are dropped later with a reason), and the in-function count of every
    (number, form) slot (used to report a chosen word's frequency in the other corpora)."""
    slots: dict[str, _Slots] = defaultdict(_Slots)
    slot_counts: Counter[tuple[str, str]] = Counter()
    is_pos = _is_noun if pos == "noun" else _is_verb
    for form, tag, upos, lemma, morph, n in counts[
        ["form", "tag", "pos", "lemma", "morph", "count"]
    ].itertuples(index=False, name=None):
        tag = str(tag).replace("(", "").replace(")", "")  # HanTa writes "VV(FIN)"; STTS is "VVFIN"
        if not is_pos(lang, tag, upos):
            continue
        form = str(form).lower()
        lem = _norm_lemma(str(lemma), form, lang, tag)
        feats = parse_morph(str(morph))
        number = (_noun_number if pos == "noun" else _verb_number)(lang, tag, feats, form, lem)
        if number is None:
            continue
        s = slots[lem]
        (s.sg if number == "sg" else s.pl)[form] += int(n)
        slot_counts[(number, form)] += int(n)
        if pos == "noun" and feats.get("Gender") in _GENDERS:
            s.gender[feats["Gender"]] += int(n)
    out = []
    for lem in sorted(slots):
        s = slots[lem]
        sg, c_sg = _top(s.sg)
        pl, c_pl = _top(s.pl)
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
            w = toks[j].lower()
            if w in table:
                for g, v in table[w].items():
                    votes[g] += v
                break
            if lang == "de" and toks[j][:1].isupper():
                break
    return votes


def resolve_gender(
    c: Candidate, lang: str, contexts: pd.DataFrame | None, article_weight: float = 3.0
) -> str | None:
    """Gender from the corpus in context: the tagger's morphology votes plus (weighted) article votes.
    Fixes the reference's isolated-word tagging ("dame" -> Masc -> "le dame")."""
    votes: Counter[str] = Counter(dict(c.gender_votes))
    for g, v in article_votes(lang, c.sg, contexts).items():
        votes[g] += article_weight * v
    return _majority(votes)


def next_pos_in_contexts(
    forms: tuple[str, ...], contexts: pd.DataFrame | None, dominant_pos: Mapping[str, str]
) -> list[str]:
    """Dominant POS of the token after each context occurrence of ``forms`` ('' at the end)."""
    if contexts is None or contexts.empty:
        return []
    out = []
    rows = contexts[contexts["form"].isin(forms)]
    for sentence, idx in rows[["sentence", "token_index"]].itertuples(index=False, name=None):
        toks = str(sentence).split(" ")
        j = int(idx) + 1
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
