"""Animacy of nouns and intransitive usability of verbs, decided automatically.

- English nouns: WordNet 3.0 (NLTK, offline): the first (most frequent) noun sense must be a person or an
  animal (lexname ``noun.person``, or a hyponym of ``person.n.01``/``animal.n.01``).
- French/German nouns: no offline wordnet covers them, so a small curated lexicon of person and animal
  nouns, plus corpus evidence: a feminine agent-noun counterpart attested in the corpus
  (chanteur -> chanteuse, fermier -> fermière; lehrer -> lehrerin, arzt -> ärztin).
- English verbs: a WordNet frame "Somebody ----s" (frame 2) among the first three senses, i.e. usable
  with an animate subject and no object. French/German verbs (and English ones missing from WordNet):
  corpus evidence, i.e. some context where the verb is followed by the end of the clause, a
  preposition, an adverb or a conjunction rather than an object.
- Optionally a yes/no judge (an LLM through ``corpusbench.llm``; off by default) confirms the shortlist.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

_FR_ANIMATE = frozenset(
    {
        "ami",
        "amie",
        "adulte",
        "agent",
        "agriculteur",
        "anglais",
        "animal",
        "âne",
        "architecte",
        "artiste",
        "auteur",
        "avocat",
        "avocate",
        "bébé",
        "berger",
        "bergère",
        "blaireau",
        "boucher",
        "boulanger",
        "boulangère",
        "bouc",
        "cavalier",
        "canard",
        "capitaine",
        "chanteur",
        "chanteuse",
        "chat",
        "chatte",
        "chef",
        "cheval",
        "chevalier",
        "chien",
        "chienne",
        "chirurgien",
        "client",
        "cliente",
        "cochon",
        "collègue",
        "compagnon",
        "comte",
        "conducteur",
        "constructeur",
        "copain",
        "copine",
        "cousin",
        "cousine",
        "cuisinier",
        "cuisinière",
        "dame",
        "danseur",
        "danseuse",
        "dauphin",
        "directeur",
        "directrice",
        "docteur",
        "écolier",
        "écolière",
        "écrivain",
        "élève",
        "éléphant",
        "empereur",
        "enfant",
        "ennemi",
        "espion",
        "étudiant",
        "étudiante",
        "facteur",
        "fée",
        "femme",
        "fermier",
        "fermière",
        "fille",
        "fils",
        "fou",
        "gamin",
        "gamine",
        "garçon",
        "gardien",
        "géant",
        "girafe",
        "grand-mère",
        "grand-père",
        "guerrier",
        "habitant",
        "hibou",
        "homme",
        "infirmier",
        "infirmière",
        "ingénieur",
        "joueur",
        "joueuse",
        "journaliste",
        "juge",
        "lapin",
        "lecteur",
        "lectrice",
        "lion",
        "loup",
        "magicien",
        "maire",
        "maître",
        "maîtresse",
        "maman",
        "marchand",
        "mari",
        "marin",
        "médecin",
        "mère",
        "meunier",
        "ministre",
        "moine",
        "mouton",
        "musicien",
        "neveu",
        "nièce",
        "oiseau",
        "oncle",
        "ours",
        "ouvrier",
        "ouvrière",
        "papa",
        "paysan",
        "peintre",
        "père",
        "personnage",
        "pilote",
        "pirate",
        "poisson",
        "policier",
        "pompier",
        "poule",
        "poussin",
        "président",
        "prince",
        "princesse",
        "prisonnier",
        "professeur",
        "propriétaire",
        "reine",
        "renard",
        "roi",
        "sénateur",
        "serpent",
        "serveur",
        "serveuse",
        "singe",
        "sœur",
        "soldat",
        "sorcière",
        "souris",
        "souverain",
        "spectateur",
        "tante",
        "tigre",
        "touriste",
        "vache",
        "vendeur",
        "vendeuse",
        "vieillard",
        "vilain",
        "vilaine",
        "visiteur",
        "voisin",
        "voisine",
        "voleur",
        "voyageur",
    }
)
_DE_ANIMATE = frozenset(
    {
        "affe",
        "apotheker",
        "architekt",
        "arzt",
        "ärztin",
        "bäcker",
        "bär",
        "bauer",
        "bäuerin",
        "berater",
        "besucher",
        "bruder",
        "bürger",
        "bürgermeister",
        "chef",
        "chirurg",
        "cousin",
        "cousine",
        "dame",
        "detektiv",
        "dichter",
        "diener",
        "direktor",
        "doktor",
        "drache",
        "ehemann",
        "ehefrau",
        "elefant",
        "engel",
        "enkel",
        "ente",
        "erzieher",
        "esel",
        "fahrer",
        "fahrgast",
        "familie",
        "feind",
        "förster",
        "frau",
        "freund",
        "freundin",
        "fuchs",
        "gast",
        "gärtner",
        "gegner",
        "geist",
        "gott",
        "graf",
        "großmutter",
        "großvater",
        "händler",
        "hase",
        "held",
        "herr",
        "hexe",
        "hirte",
        "hund",
        "ingenieur",
        "jäger",
        "junge",
        "kaiser",
        "kamel",
        "katze",
        "kellner",
        "kind",
        "kleinkind",
        "koch",
        "könig",
        "königin",
        "kollege",
        "kuh",
        "kunde",
        "künstler",
        "lehrer",
        "lehrerin",
        "leser",
        "löwe",
        "mädchen",
        "maler",
        "mann",
        "matrose",
        "maus",
        "mensch",
        "minister",
        "mitglied",
        "mönch",
        "mutter",
        "nachbar",
        "nachbarin",
        "neffe",
        "nichte",
        "oma",
        "onkel",
        "opa",
        "papa",
        "person",
        "pferd",
        "pilot",
        "pirat",
        "polizist",
        "präsident",
        "prinz",
        "prinzessin",
        "professor",
        "ritter",
        "sänger",
        "schaf",
        "schauspieler",
        "schüler",
        "schülerin",
        "schwein",
        "schwester",
        "soldat",
        "sohn",
        "spieler",
        "student",
        "tante",
        "tänzer",
        "tier",
        "tochter",
        "vater",
        "verkäufer",
        "vogel",
        "wächter",
        "wolf",
        "zauberer",
        "zeuge",
        "ziege",
        "zwerg",
        "zwilling",
    }
)
_INTRANSITIVE_NEXT_POS = frozenset({"ADP", "ADV", "CCONJ", "SCONJ", "PUNCT", ""})


@functools.lru_cache(maxsize=1)
def _wordnet():  # type: ignore[no-untyped-def]
    """English WordNet 3.0 without NLTK's OMW version mapping, which re-reads index.sense twice on every
    load (nltk 3.9/3.10 compare the version string "3.0" with the corpus name) and is not needed here."""
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _EnglishWordNet(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            return None

    try:
        root = nltk.data.find("corpora/wordnet")
    except LookupError as e:
        from corpusbench.errors import ConfigError

        raise ConfigError("NLTK WordNet not found; run `make nltk-data` and set NLTK_DATA") from e
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": expected, English only
        return _EnglishWordNet(root, None)


def noun_animacy(
    lang: str, lemma: str, sg: str, vocabulary: Mapping[str, int] | None = None
) -> tuple[bool | None, str]:
    """(animate?, evidence). ``None`` means unknown (treated as not animate by the selector)."""
    if lang == "en":
        wn = _wordnet()
        synsets = wn.synsets(lemma or sg, pos="n") or wn.synsets(sg, pos="n")
        if not synsets:
            return None, "wordnet:none"
        first = synsets[0]
        hypers = {s.name() for path in first.hypernym_paths() for s in path}
        # noun.animal also holds animal parts ("feather"): require the animal.n.01 hypernym for those
        if first.lexname() == "noun.person" or hypers & {"person.n.01", "animal.n.01"}:
            return True, f"wordnet:{first.name()}"
        return False, f"wordnet:{first.name()}:{first.lexname()}"
    lexicon = _FR_ANIMATE if lang == "fr" else _DE_ANIMATE
    for w in (lemma, sg):
        if w in lexicon:
            return True, "lexicon"
    voc = vocabulary or {}
    for fem in feminine_agentive(lang, sg):
        if voc.get(fem, 0) > 0:
            return True, f"feminine:{fem}"
    return None, "unknown"


def feminine_agentive(lang: str, sg: str) -> list[str]:
    """Feminine agent-noun counterparts whose presence in the corpus marks ``sg`` as a person noun
    (chanteur/chanteuse, fermier/fermière; lehrer/lehrerin, arzt/ärztin, kollege/kollegin)."""
    out: list[str] = []
    if lang == "fr":
        if sg.endswith("teur"):
            out += [sg[:-4] + "trice", sg[:-3] + "euse"]
        elif sg.endswith("eur"):
            out.append(sg[:-3] + "euse")
        if sg.endswith("ier"):
            out.append(sg[:-3] + "ière")
        if sg.endswith(("ien", "on")):
            out.append(sg + "ne")
    elif lang == "de" and len(sg) > 2:
        stem = sg[:-1] if sg.endswith("e") else sg
        out += [stem + "in"]
        for a, b in (("au", "äu"), ("a", "ä"), ("o", "ö"), ("u", "ü")):
            i = stem.rfind(a)
            if i >= 0:
                out.append(stem[:i] + b + stem[i + len(a) :] + "in")
                break
    return [f for f in out if f != sg]


def verb_frames_intransitive(lemma: str) -> bool | None:
    """English: WordNet frame 2 ("Somebody ----s") among the first three senses; None if not in WordNet."""
    synsets = _wordnet().synsets(lemma, pos="v")
    if not synsets:
        return None
    return any(2 in s.frame_ids() for s in synsets[:3])


def context_intransitive_share(next_pos: Sequence[str]) -> float | None:
    """Share of a verb's contexts in which no object follows it (next token's dominant POS)."""
    if not next_pos:
        return None
    return sum(p in _INTRANSITIVE_NEXT_POS for p in next_pos) / len(next_pos)
