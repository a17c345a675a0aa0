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

from collections.abc import Mapping, Sequence

from corpusbench.corpus.wordnet import english_wordnet


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Person and animal nouns (general vocabulary, not mined from any corpus).
_FR_ANIMATE = _words(
    """
adulte agent agneau agriculteur aigle ami amie anglais animal apôtre architecte artiste auteur
aveugle avocat avocate berger bergère blaireau bouc boucher boulanger boulangère brebis bébé bœuf
canard capitaine captif cavalier chameau chanteur chanteuse chat chatte chef cheval chevalier chien
chienne chirurgien chèvre client cliente cochon collègue colombe compagne compagnon comte conducteur
constructeur copain copine corbeau cousin cousine cuisinier cuisinière dame danseur danseuse dauphin
directeur directrice disciple docteur empereur enfant ennemi esclave espion facteur femme fermier
fermière fiancé fiancée fille fils fou frère fée gamin gamine gardien garçon girafe gouverneur
grand-mère grand-père guerrier géant habitant habitante hibou homme héritier hôte infirmier
infirmière ingénieur jeune joueur joueuse journaliste juge juif lapin lecteur lectrice lion loup
magicien maire maman marchand mari marin maître maîtresse mendiant messager meunier ministre moine
mouton musicien mère médecin neveu nièce nourrice oiseau oncle orphelin ours ouvrier ouvrière papa
passereau pasteur paysan peintre personnage pharisien pilote pirate poisson policier pompier poule
poussin prince princesse prisonnier professeur prophète prophétesse propriétaire président prêtre
père pécheresse pécheur pêcheur reine renard roi sacrificateur sage-femme sauterelle scribe seigneur
serpent servante serveur serveuse serviteur singe soldat sorcière souris souverain spectateur
sénateur sœur tante taureau tigre touriste tribun témoin vache vendeur vendeuse veuve vieillard
vierge vilain vilaine visiteur voisin voisine voleur voyageur voyageuse âne écolier écolière
écrivain élève éléphant épouse époux étranger étudiant étudiante évêque
"""
)
_DE_ANIMATE = _words(
    """
adler affe apostel apotheker arbeiter architekt arzt bauer berater besucher bettler bock bote braut
bruder bräutigam bäcker bär bäuerin bürger bürgermeister chef chirurg cousin cousine dame detektiv
dichter dieb diener dienerin direktor doktor drache ehebrecher ehefrau ehemann elefant engel enkel
ente erbe erzieher esel fahrer fahrgast familie feind fisch frau fremdling freund freundin fuchs
förster fürst gast gefangene gegner geist gesandte gott graf greis großmutter großvater gärtner hase
hauptmann heide held herr herrscher hexe hirsch hirte hund hure händler ingenieur junge jungfrau
jäger jünger jüngling kaiser kamel katze kellner kind kleinkind knabe knecht koch kollege krieger
kuh kunde kämpfer könig königin künstler lamm lehrer lehrerin leser löwe magd maler mann matrose
maus mensch minister mitglied mutter mädchen mönch nachbar nachbarin neffe nichte ochse oma onkel
opa papa person pferd pilot pirat polizist priester prinz prinzessin professor prophet prophetin
präsident rabe richter rind ritter räuber schaf schauspieler schlange schreiber schwein schwester
schüler schülerin sklave sklavin sohn soldat sperling spieler stier student sänger sünder tante
taube tier tochter tänzer vater verkäufer verwalter vogel weib wirt witwe wolf wächter zauberer
zeuge ziege zwerg zwilling zöllner älteste ärztin
"""
)
# Verbs commonly used without an object (lemmas; general vocabulary, not mined from any corpus).
_FR_INTRANSITIVE = _words(
    """
aller arriver attendre boire bouger briller chanter combattre courir crier danser demeurer descendre
dormir entrer fuir grandir habiter jeûner jouer manger marcher monter mourir nager naître parler
partir passer pleurer prier régner répondre retourner revenir rire sortir souffrir sourire tomber
travailler trembler veiller venir vivre voler voyager
"""
)
_DE_INTRANSITIVE = _words(
    """
antworten arbeiten beten bleiben blühen brennen danken eilen essen fahren fallen fasten fliegen
fliehen frohlocken gehen glauben hoffen hungern irren jubeln kämpfen klagen kommen lachen laufen
leben leuchten liegen lügen predigen reden regieren reisen rufen ruhen schlafen schreien schweigen
schwimmen sitzen siegen singen spielen sprechen stehen sterben sündigen tanzen trauern trinken
wachen wachsen wandeln wandern warten weinen wohnen zittern zürnen zweifeln
"""
)


def lexicon_intransitive(lang: str, lemma: str) -> bool:
    """FR/DE: is the verb in the curated list of verbs commonly used without an object?"""
    return lemma in {"fr": _FR_INTRANSITIVE, "de": _DE_INTRANSITIVE}.get(lang, frozenset())


_INTRANSITIVE_NEXT_POS = frozenset({"ADP", "ADV", "CCONJ", "SCONJ", "PUNCT", ""})


def noun_animacy(
    lang: str, lemma: str, sg: str, vocabulary: Mapping[str, int] | None = None
) -> tuple[bool | None, str]:
    """(animate?, evidence). ``None`` means unknown (treated as not animate by the selector)."""
    if lang == "en":
        wn = english_wordnet()
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
    synsets = english_wordnet().synsets(lemma, pos="v")
    if not synsets:
        return None
    return any(2 in s.frame_ids() for s in synsets[:3])


def verb_class(lemma: str) -> str | None:
    """WordNet lexicographer class of the verb's first sense ("verb.motion"), ``None`` if unknown."""
    synsets = english_wordnet().synsets(lemma, pos="v")
    return synsets[0].lexname() if synsets else None


def context_intransitive_share(next_pos: Sequence[str]) -> float | None:
    """Share of a verb's contexts in which no object follows it (next token's dominant POS)."""
    if not next_pos:
        return None
    return sum(p in _INTRANSITIVE_NEXT_POS for p in next_pos) / len(next_pos)
