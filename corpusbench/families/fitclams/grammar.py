"""Per-language noun-phrase grammar for the FIT-CLAMS templates (EN/FR/DE).

Fixes relative to the generator released with the FIT-CLAMS paper (Padovani et al. 2025):

- German NPs are declined by case: accusative objects in subject relatives ("der den bauern mag"),
  dative after the positional prepositions with weak-noun endings ("dem bauern", "dem matrosen"),
  relative pronouns agree with the *head* noun in gender and number, and "von dem" contracts to "vom".
- French determiners take the gender resolved from the corpus in context (``candidates.py``), elide
  before accented vowels and mute h but not before h-aspiré nouns ("le héros").
"""

from __future__ import annotations

from dataclasses import dataclass

from corpusbench.errors import ConfigError
from corpusbench.families.fitclams.records import Noun

LANGUAGES = ("en", "fr", "de")

# Paper Table 12 (prepositions) and Table 13 (relative-clause verbs); RC verb candidates are the CLAMS /
# Marvin & Linzen lists, later filtered to forms attested in every corpus (as the paper did).
DEFAULT_PREPS = {
    "en": ("next to", "behind", "in front of", "near", "to the side of", "across from"),
    "fr": ("devant", "derrière", "en face", "à côté", "près"),
    "de": ("vor", "hinter", "neben", "in der nähe von", "gegenüber"),
}
DEFAULT_RC_VERBS = {
    "en": (("likes", "like"), ("hates", "hate"), ("loves", "love"), ("admires", "admire")),
    "fr": (("aime", "aiment"), ("déteste", "détestent"), ("admire", "admirent"), ("évite", "évitent")),
    "de": (("mag", "mögen"), ("vermeidet", "vermeiden"), ("verehrt", "verehren"), ("hasst", "hassen")),
}

_FR_PREP_TAKES_DE = {
    "devant": False,
    "derrière": False,
    "en face": True,
    "à côté": True,
    "près": True,
    "loin": True,
    "autour": True,
    "au-dessus": True,
    "au-dessous": True,
}
_FR_VOWELS = set("aeiouhéèêëàâäîïôöûüùœæ")
# Nouns with h aspiré take "le"/"la", not "l'" (a small lexicon; the reference elided every h).
FR_H_ASPIRE = frozenset(
    {
        "hache",
        "haie",
        "haine",
        "hall",
        "halte",
        "hamac",
        "hameau",
        "hamster",
        "hanche",
        "handicap",
        "hangar",
        "hanneton",
        "harpe",
        "hasard",
        "hausse",
        "haut",
        "hautbois",
        "hérisson",
        "hernie",
        "héron",
        "héros",
        "hêtre",
        "hibou",
        "hobby",
        "hockey",
        "homard",
        "honte",
        "hoquet",
        "hotte",
        "houblon",
        "housse",
        "hublot",
        "huche",
        "huit",
        "hurlement",
        "hussard",
        "hutte",
    }
)

_DE_DET = {  # (case, gender or "pl") -> definite article
    ("nom", "Masc"): "der",
    ("nom", "Fem"): "die",
    ("nom", "Neut"): "das",
    ("nom", "pl"): "die",
    ("acc", "Masc"): "den",
    ("acc", "Fem"): "die",
    ("acc", "Neut"): "das",
    ("acc", "pl"): "die",
    ("dat", "Masc"): "dem",
    ("dat", "Fem"): "der",
    ("dat", "Neut"): "dem",
    ("dat", "pl"): "den",
}
# Masculine nouns of the weak (n-)declension that the plural/suffix rule below would miss or get wrong.
_DE_WEAK_EXTRA = frozenset(
    {
        "bauer",
        "nachbar",
        "herr",
        "mensch",
        "held",
        "bär",
        "fürst",
        "graf",
        "prinz",
        "narr",
        "ochs",
        "typ",
        "kamerad",
    }
)
_DE_WEAK_SUFFIXES = (
    "ant",
    "ent",
    "ist",
    "at",
    "ot",
    "it",
    "graf",
    "soph",
    "nom",
    "ekt",
    "et",
    "ad",
    "arch",
    "ik",
)
_DE_STRONG_ENDINGS = ("or", "el", "er", "ling")


@dataclass(frozen=True)
class Grammar:
    """Language-specific pieces; every method returns a list of space-separated tokens."""

    lang: str
    conj: str
    comma_rc: bool = False

    def np(self, noun: Noun, number: str, case: str = "nom") -> list[str]:
        raise NotImplementedError

    def pp(self, prep: str, noun: Noun, number: str) -> list[str]:
        raise NotImplementedError

    def rel(self, head: Noun, number: str, role: str) -> str:
        raise NotImplementedError


class English(Grammar):
    def __init__(self) -> None:
        super().__init__("en", "and")

    def np(self, noun: Noun, number: str, case: str = "nom") -> list[str]:
        return ["the", noun.form(number)]

    def pp(self, prep: str, noun: Noun, number: str) -> list[str]:
        return [prep, *self.np(noun, number)]

    def rel(self, head: Noun, number: str, role: str) -> str:
        return "that"


def fr_elides(word: str) -> bool:
    return bool(word) and word[0] in _FR_VOWELS and word not in FR_H_ASPIRE


class French(Grammar):
    def __init__(self) -> None:
        super().__init__("fr", "et")

    def np(self, noun: Noun, number: str, case: str = "nom") -> list[str]:
        if number == "pl":
            return ["les", noun.pl]
        if fr_elides(noun.sg):
            return ["l'" + noun.sg]
        return [(_fr_gender(noun) == "Masc" and "le") or "la", noun.sg]

    def pp(self, prep: str, noun: Noun, number: str) -> list[str]:
        base, takes_de = _fr_prep(prep)
        if not takes_de:
            return [base, *self.np(noun, number)]
        if number == "pl":
            return [base, "des", noun.pl]
        if fr_elides(noun.sg):
            return [base, "de", "l'" + noun.sg]
        if _fr_gender(noun) == "Masc":
            return [base, "du", noun.sg]
        return [base, "de", "la", noun.sg]

    def rel(self, head: Noun, number: str, role: str) -> str:
        return "qui" if role == "subj" else "que"


def _fr_gender(noun: Noun) -> str:
    if noun.gender not in ("Masc", "Fem"):
        raise ConfigError(f"French noun {noun.sg!r} needs a gender (Masc/Fem), got {noun.gender!r}")
    return noun.gender


def _fr_prep(prep: str) -> tuple[str, bool]:
    if prep.endswith(" de"):
        return prep[: -len(" de")], True
    return prep, _FR_PREP_TAKES_DE.get(prep, False)


def de_is_weak(noun: Noun) -> bool:
    """Masculine n-declension ("der kollege, den kollegen"): plural in -(e)n plus a weak ending or lexicon."""
    if noun.gender != "Masc":
        return False
    sg, pl = noun.sg, noun.pl
    if sg in _DE_WEAK_EXTRA:
        return True
    if pl not in (sg + "n", sg + "en"):
        return False
    if sg.endswith("e"):
        return True
    if sg.endswith(_DE_STRONG_ENDINGS):
        return False
    return sg.endswith(_DE_WEAK_SUFFIXES)


def de_noun_form(noun: Noun, number: str, case: str) -> str:
    """German noun form in nominative / accusative / dative (weak masculines, dative plural -n)."""
    if number == "pl":
        if case == "dat" and not noun.pl.endswith(("n", "s")):
            return noun.pl + "n"
        return noun.pl
    if case != "nom" and de_is_weak(noun):
        if noun.sg == "herr":
            return "herrn"
        return noun.sg + ("n" if noun.sg.endswith(("e", "er", "ar")) else "en")
    return noun.sg


def de_article(noun: Noun, number: str, case: str) -> str:
    if number == "pl":
        return _DE_DET[(case, "pl")]
    if noun.gender not in ("Masc", "Fem", "Neut"):
        raise ConfigError(f"German noun {noun.sg!r} needs a gender (Masc/Fem/Neut), got {noun.gender!r}")
    return _DE_DET[(case, noun.gender)]


class German(Grammar):
    def __init__(self) -> None:
        super().__init__("de", "und", comma_rc=True)

    def np(self, noun: Noun, number: str, case: str = "nom") -> list[str]:
        return [de_article(noun, number, case), de_noun_form(noun, number, case)]

    def pp(self, prep: str, noun: Noun, number: str) -> list[str]:
        det, form = self.np(noun, number, "dat")
        if det == "dem" and prep.endswith(" von"):
            return [prep[: -len(" von")], "vom", form]
        if det == "dem" and prep == "von":
            return ["vom", form]
        return [prep, det, form]

    def rel(self, head: Noun, number: str, role: str) -> str:
        return de_article(head, number, "nom" if role == "subj" else "acc")


def grammar_for(lang: str) -> Grammar:
    if lang == "en":
        return English()
    if lang == "fr":
        return French()
    if lang == "de":
        return German()
    raise ConfigError(f"no FIT-CLAMS grammar for language {lang!r}; supported: {', '.join(LANGUAGES)}")
