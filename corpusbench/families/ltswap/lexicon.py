"""English lexicon for LT-Swap: dictionary membership, lemmas and inflection sets.

Replaces the reference's suffix rules + spell-checker (which produced died -> "dis", seed -> "sing"
and no irregulars at all) with LemmInflect's lexicon (irregulars included: mouse/mice, go/went),
a dictionary of NLTK ``words`` + WordNet noun/verb lemmas, and corpus evidence to choose between
spelling variants (traveled/travelled) and to decide whether a noun has a distinct plural.

Slots (fine categories) are the paper's: NN, NNS for nouns; VB, VBD, VBG, VBZ for verbs.
Decisions on the other PTB verb tags:

- VBP is folded into VB: the non-3sg present is the base form for every verb except *be*, which
  is excluded as an auxiliary.
- VBN is folded into VBD when the participle equals the past (walked/walked); distinct irregular
  participles (taken, gone) are not a slot: they are neither candidates nor inflections, since
  swapping took/taken tests auxiliary selection rather than the tense/number inflection of §2.3.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from corpusbench.errors import ConfigError
from corpusbench.families.ltswap.records import NOUN_TAGS, VERB_TAGS, Inflection, Verdict

EXCLUDED_LEMMAS = frozenset({"be"})
# corpus PTB tags that count as evidence for each slot
SLOT_EVIDENCE: dict[str, tuple[str, ...]] = {
    "NN": ("NN",),
    "NNS": ("NNS",),
    "VB": ("VB", "VBP"),
    "VBD": ("VBD", "VBN"),
    "VBG": ("VBG",),
    "VBZ": ("VBZ",),
}


def _wordnet_lemmas(path: str) -> set[str]:
    """Lowercase single-word lemmas of a WordNet ``data.*`` file (proper nouns are capitalised there)."""
    out: set[str] = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith(" "):
                continue  # licence header
            parts = line.split(" ", 4)
            n_words = int(parts[3], 16)
            fields = line.split(" ", 4 + 2 * n_words)[4 : 4 + 2 * n_words : 2]
            out.update(w for w in fields if w.isalpha() and w.islower())
    return out


@functools.cache
def dictionary() -> frozenset[str]:
    """Lowercase English words: NLTK ``words`` (lowercase entries) + WordNet noun and verb lemmas.

    Read straight from the NLTK data files (the corpus readers take ~20x longer).
    """
    import nltk

    try:
        words_path = nltk.data.find("corpora/words/en")
        wn_root = nltk.data.find("corpora/wordnet")
    except LookupError as e:
        raise ConfigError(
            "NLTK 'words' and 'wordnet' data are not installed (set NLTK_DATA; `make nltk-data` builds them)"
        ) from e
    with open(str(words_path), encoding="utf-8") as fh:
        entries = {w for w in fh.read().split() if w.isalpha() and w.islower()}
    for pos in ("noun", "verb"):
        entries |= _wordnet_lemmas(f"{wn_root}/data.{pos}")
    return frozenset(entries)


@functools.cache
def gloss(form: str, tag: str) -> str | None:
    """WordNet's definition of ``form``'s first (most frequent) sense as a noun (``NN*`` tags) or verb,
    inflected forms included ("purples", "bereft"); None when WordNet has no such sense."""
    from corpusbench.corpus.wordnet import english_wordnet

    wordnet, noun = english_wordnet(), tag.startswith("N")
    synsets = wordnet.synsets(form.lower(), "n" if noun else "v")
    if not synsets:  # an inflection WordNet's own lemmatiser misses: lemminflect's lemma
        from lemminflect import getLemma

        for lemma in getLemma(form.lower(), upos="NOUN" if noun else "VERB"):
            synsets = synsets or wordnet.synsets(lemma, "n" if noun else "v")
    return synsets[0].definition() if synsets else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysis:
    lemma: str
    tag: str
    inflections: tuple[Inflection, ...]


def _pick(options: tuple[str, ...], freq: Mapping[str, int]) -> str:
    """The spelling the corpus uses most; ties (and unseen variants) keep the lexicon's order."""
    return max(options, key=lambda o: (freq.get(o, 0), -options.index(o)))


def inflection_table(lemma: str, pos: str, freq: Mapping[str, int]) -> dict[str, str]:
    """slot -> form for ``lemma`` (``pos`` NOUN or VERB); empty if the lexicon does not know it."""
    import lemminflect

    table = lemminflect.getAllInflections(lemma, upos=pos)
    if not table:
        return {}
    out: dict[str, str] = {}
    if pos == "NOUN":
        out["NN"] = _pick(table.get("NN", (lemma,)), freq)
        plurals = table.get("NNS", ())
        distinct = tuple(p for p in plurals if p != out["NN"])
        if distinct and (len(distinct) == len(plurals) or any(freq.get(p, 0) for p in distinct)):
            out["NNS"] = _pick(distinct, freq)
        else:  # invariant (sheep) or mass noun whose -s plural the corpus never uses (wheat/wheats)
            out["NNS"] = out["NN"]
        return out
    out["VB"] = _pick(table.get("VB", (lemma,)), freq)
    for slot in ("VBD", "VBG", "VBZ"):
        if slot in table:
            out[slot] = _pick(table[slot], freq)
    return out


class EnglishLexicon:
    """Lemma and inflection-set look-ups against LemmInflect's lexicon and the dictionary."""

    lang = "en"

    def __init__(self) -> None:
        import lemminflect  # noqa: F401 - fail early if missing

        self.words = dictionary()

    def describe(self) -> dict[str, str]:
        import importlib.metadata as md

        return {
            "lexicon": "lemminflect " + md.version("lemminflect"),
            "dictionary": f"nltk words + wordnet noun/verb lemmas ({len(self.words)} entries)",
        }

    def analyse(
        self, form: str, pos: str, tag_counts: Mapping[str, int], freq: Mapping[str, int]
    ) -> tuple[Verdict, Analysis | None]:
        """Lemma, slot and inflection set of a corpus ``form`` tagged mostly as ``pos``."""
        import lemminflect

        lemmas = lemminflect.getLemma(form, upos=pos, lemmatize_oov=False)
        if not lemmas:
            return Verdict.drop("not_in_lexicon"), None
        best: tuple[tuple[int, int], Analysis] | None = None
        for rank, lemma in enumerate(lemmas):
            if lemma in EXCLUDED_LEMMAS:
                return Verdict.drop("auxiliary"), None
            if lemma not in self.words:
                continue
            table = inflection_table(lemma, pos, freq)
            slots = [s for s in (NOUN_TAGS if pos == "NOUN" else VERB_TAGS) if table.get(s) == form]
            if not slots:
                continue
            tag = max(
                slots, key=lambda s: (sum(tag_counts.get(t, 0) for t in SLOT_EVIDENCE[s]), -slots.index(s))
            )
            evidence = sum(tag_counts.get(t, 0) for t in SLOT_EVIDENCE[tag])
            seen: set[str] = set()
            infl = []
            for slot, f in table.items():
                if f not in seen:
                    seen.add(f)
                    infl.append(Inflection(tag=slot, form=f, freq=int(freq.get(f, 0))))
            analysis = Analysis(lemma=lemma, tag=tag, inflections=tuple(infl))
            score = (evidence, -rank)
            if best is None or score > best[0]:
                best = (score, analysis)
        if best is None:
            in_dict = any(lemma in self.words for lemma in lemmas)
            return Verdict.drop("variant_or_participle" if in_dict else "not_in_dictionary"), None
        return Verdict.keep(), best[1]
