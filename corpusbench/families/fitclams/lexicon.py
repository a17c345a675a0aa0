"""From stats folders to one ``Lexicon`` per corpus: candidates, checks, bins, selection, long-VP fillers.

Evidence about a verb (intransitive use, long-VP complements) comes only from the context sentences in
which that form is tagged as the verb (``candidates.contexts_in_function``); gender votes for a noun only
from those in which it is tagged as the noun.

With several corpora every word form must occur in every corpus (vocabulary intersection), and each
corpus gets its own pair set chosen from its own frequency bins (FIT-CLAMS-C / FIT-CLAMS-W).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import InputError
from corpusbench.families.fitclams import animacy, llm_check
from corpusbench.families.fitclams.bins import log_bins
from corpusbench.families.fitclams.candidates import (
    contexts_in_function,
    de_dative_plural_only,
    dominant_pos,
    extract,
    function_keys,
    next_pos_in_contexts,
    resolve_gender,
    verb_noun_counts,
)
from corpusbench.families.fitclams.checks import (
    auxiliary_reason,
    light_verb_reason,
    noun_semantic,
    structural_reason,
    verb_semantic,
)
from corpusbench.families.fitclams.grammar import DEFAULT_PREPS, DEFAULT_RC_VERBS
from corpusbench.families.fitclams.records import Candidate, Lexicon, Noun, Verb
from corpusbench.families.fitclams.select import (
    Judge,
    Selection,
    SelectionConfig,
    bin_candidates,
    bin_schedule,
    object_schedule,
    select_per_bin,
)

if TYPE_CHECKING:
    import pandas as pd

# Long-VP fillers when the corpus gives none for a verb: English by the WordNet class (lexicographer
# file) of the verb's first sense, else the language's default, an adverbial that fits any activity.
FALLBACK_BY_CLASS = {
    "verb.motion": "to the house",
    "verb.communication": "in a loud voice",
    "verb.perception": "from afar",
    "verb.cognition": "for a long time",
    "verb.emotion": "in secret",
    "verb.consumption": "at the table",
    "verb.body": "at night",
}
FALLBACK_DEFAULT = {"en": "every day", "fr": "chaque jour", "de": "jeden tag"}
_MANNER_SUFFIX = {"en": "ly", "fr": "ment"}  # single manner adverbs mined as complements ("bitterly")
# Other single adverbs a verb may take as its whole complement ("rises again", "goes away").
_ADVERBS = {
    "en": frozenset(
        ("again", "away", "forth", "home", "back", "together", "aloud", "abroad", "apart", "alone")
    ),
    "fr": frozenset(("encore", "ensemble", "dehors", "ailleurs", "loin")),
    "de": frozenset(("wieder", "zusammen", "draußen")),
}
# Articles only: a possessive ("zu deiner danksagung", "à ta paix") ties the phrase to its source sentence.
_ARTICLES = {
    "en": frozenset({"the", "a", "an"}),
    "fr": frozenset({"le", "la", "les", "l'", "un", "une", "des", "du"}),
    "de": frozenset({"der", "die", "das", "dem", "den", "des", "ein", "eine", "einem", "einen", "einer"}),
}
# Prepositions that start a complement of an intransitive verb (place, direction, topic, company) as in
# the paper's fillers ("to the king", "in the car", "about the trip", "with the toys"); not "of", "as",
# "for", "de", which mostly attach to something else.
PREPOSITIONS = {
    "en": frozenset((
        "about", "across", "along", "around", "at", "behind", "from", "in", "into", "near", "on", "onto",
        "over", "through", "to", "toward", "towards", "under", "unto", "upon", "with", "within",
    )),
    "fr": frozenset((
        "à", "au", "aux", "dans", "sur", "sous", "vers", "avec", "devant", "derrière", "chez",
        "contre", "parmi",
    )),
    "de": frozenset((
        "in", "im", "ins", "an", "am", "auf", "aus", "mit", "nach", "zu", "zum", "zur", "vor", "über",
        "unter", "durch", "hinter", "neben", "bei", "beim",
    )),
}  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class Overrides:
    """Configurable parts of the lexicon (defaults: paper Tables 12-13, mined complements)."""

    preps: tuple[str, ...] | None = None
    rc_verbs: tuple[tuple[str, str], ...] | None = None
    complements: tuple[tuple[str, str], ...] = ()  # verb 3sg form -> long-VP complement


@dataclass
class CorpusSelection:
    """Everything decided for one corpus (its candidate tables, edges, funnel and the chosen lexicon)."""

    corpus: str
    nouns: list[Candidate]
    verbs: list[Candidate]
    edges: dict[str, list[float]]
    lexicon: Lexicon
    empty_bins: dict[str, list[int]]
    funnel: dict[str, dict[str, int]]
    notes: list[str] = field(default_factory=list)


def shared_vocabulary(stats: Mapping[str, CorpusStats]) -> set[str] | None:
    """Forms seen in every corpus (``None`` with a single corpus: no restriction)."""
    if len(stats) < 2:
        return None
    vocabs = [{f for f, n in s.vocabulary.items() if n > 0} for s in stats.values()]
    return set.intersection(*vocabs)


def _contexts(s: CorpusStats) -> pd.DataFrame | None:
    try:
        ctx = s.contexts
    except (OSError, ValueError):
        return None
    return ctx if not ctx.empty else None


def _funnel(cands: Sequence[Candidate]) -> dict[str, int]:
    c = Counter("kept" if x.keep else f"dropped:{x.reason}" for x in cands)
    return dict(sorted(c.items()))


def rc_verbs_for(
    lang: str, vocabs: Sequence[Mapping[str, int]], overrides: Overrides
) -> tuple[list[Verb], list[str]]:
    """Relative-clause verbs: the configured list, or the CLAMS list filtered to forms in every corpus."""
    if overrides.rc_verbs is not None:
        return [Verb(sg=s, pl=p, note="config") for s, p in overrides.rc_verbs], []
    ok = [
        Verb(sg=s, pl=p, note="attested")
        for s, p in DEFAULT_RC_VERBS[lang]
        if all(v.get(s, 0) > 0 and v.get(p, 0) > 0 for v in vocabs)
    ]
    if ok:
        return ok, []
    s, p = DEFAULT_RC_VERBS[lang][0]
    return [Verb(sg=s, pl=p, note="unattested")], [
        f"no relative-clause verb attested in every corpus; using {s}/{p}"
    ]


def mine_complement(
    lang: str,
    verb: Candidate,
    contexts: pd.DataFrame | None,
    pos_of: Mapping[str, str],
    vocab_ok: set[str] | None,
    vocabulary: Mapping[str, int],
    max_len: int = 4,
    bare_nouns: Set[str] | None = None,
) -> str | None:
    """The most frequent complement right after the verb in its (verb-tagged) corpus contexts: a 3-4
    word prepositional phrase (preposition, article, ..., noun: "in the garden"), a preposition and a
    bare noun ("with tears"; only nouns in ``bare_nouns`` when given), or one adverb before the end of
    the clause: a manner adverb ("bitterly", en/fr) or one of a few others ("again", "away").
    Prepositions are locative/directional/accompaniment ones (``PREPOSITIONS``); the phrase must end
    there (no noun, adjective or preposition after it); every word is seen in every corpus. ``None`` if
    there is none."""
    if contexts is None:
        return None
    preps = PREPOSITIONS[lang]

    def ok(words: Sequence[str]) -> bool:
        return all(t.isalpha() and vocabulary.get(t, 0) > 0 for t in words) and (
            vocab_ok is None or all(t in vocab_ok for t in words)
        )

    def ends(after: str) -> bool:  # "à la manière [de ...]", "with a watery [eye]" are unfinished
        return (
            after not in preps
            and not after.startswith("'")  # "in the calf ['s ...]"
            and pos_of.get(after) not in ("ADP", "NOUN", "PROPN", "ADJ")
        )

    seen: Counter[str] = Counter()
    rows = contexts[contexts["form"].isin((verb.sg, verb.pl))]
    suffix = _MANNER_SUFFIX.get(lang)
    for sentence, idx in rows[["sentence", "token_index"]].itertuples(index=False, name=None):
        toks = [t.lower() for t in str(sentence).split(" ")] + [""] * (max_len + 1)
        i = int(idx) + 1
        first = toks[i]
        manner = bool(suffix) and first.endswith(suffix) and len(first) > len(suffix) + 3
        if (
            (first in _ADVERBS[lang] or (manner and pos_of.get(first) == "ADV"))
            and not any(ch.isalnum() for ch in toks[i + 1])  # the clause ends: "rises again ,"
            and ok([first])
        ):
            seen[first] += 1
            continue
        if first not in preps:
            continue
        noun = toks[i + 1]
        if pos_of.get(noun) == "NOUN" and (bare_nouns is None or noun in bare_nouns):
            if ok([first, noun]) and ends(toks[i + 2]):
                seen[f"{first} {noun}"] += 1
            continue
        for n in range(3, max_len + 1):
            span = toks[i : i + n]
            if not ok(span) or span[1] not in _ARTICLES[lang]:
                break
            if pos_of.get(span[-1]) == "NOUN" and ends(toks[i + n]):
                seen[" ".join(span)] += 1
                break
    if not seen:
        return None
    return min(seen.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0]


def fallback_complement(lang: str, lemma: str) -> str:
    """A hand-written adverbial that suits the verb's class (English: its first WordNet sense)."""
    cls = animacy.verb_class(lemma) if lang == "en" else None
    return FALLBACK_BY_CLASS.get(cls or "", FALLBACK_DEFAULT[lang])


SlotTable = dict[str, tuple[Counter[tuple[str, str]], np.ndarray | None]]  # corpus -> (slot counts, edges)


def _freq_and_bins(sg: str, pl: str, per_corpus: SlotTable) -> dict[str, tuple[tuple[str, int], ...]]:
    """A chosen word's sg+pl frequency and bin in every corpus (bin -1: not attested there)."""
    freq, bins = [], []
    for name, (slots, edges) in per_corpus.items():
        f = slots[("sg", sg)] + slots[("pl", pl)]
        freq.append((name, int(f)))
        bins.append((name, log_bins([f], edges)[0] if f > 0 and edges is not None else -1))
    return {"freq": tuple(freq), "bins": tuple(bins)}


def _pick(
    cands: Sequence[Candidate],
    edges: np.ndarray | None,
    schedule: list[int],
    rng_key: str,
    *,
    cfg: SelectionConfig,
    lang: str,
    judge: Judge | None,
    fill: bool | None = None,
    exclude: set[str] | None = None,
) -> Selection:
    """``select_per_bin`` over the kept candidates, with the LLM question of their POS when judging."""
    ask = llm_check.verb_question if cands and cands[0].pos == "verb" else llm_check.noun_question
    return select_per_bin(
        [c for c in cands if c.keep],
        edges,
        schedule,
        cfg,
        rng_key,
        fill_empty=cfg.fill_empty if fill is None else fill,
        judge=judge,
        question=ask(lang) if judge else None,
        exclude=exclude,
    )


def build_selections(
    stats: Mapping[str, CorpusStats],
    lang: str,
    cfg: SelectionConfig,
    overrides: Overrides = Overrides(),
    judge: Judge | None = None,
) -> list[CorpusSelection]:
    """Candidates, checks, bins and the chosen lexicon of every corpus (in the given corpus order)."""
    shared = shared_vocabulary(stats)
    vocabs = {name: s.vocabulary for name, s in stats.items()}
    rc_verbs, notes = rc_verbs_for(lang, list(vocabs.values()), overrides)
    rc_forms = {f for v in rc_verbs for f in (v.sg, v.pl)}
    preps = overrides.preps if overrides.preps is not None else DEFAULT_PREPS[lang]
    configured = dict(overrides.complements)

    staged: dict[str, tuple] = {}
    per_pos: dict[str, SlotTable] = {"noun": {}, "verb": {}}
    agreement = cfg.bin_counts == "agreement"
    for name, s in stats.items():
        counts = s.counts
        all_ctx = _contexts(s)
        ctx = {
            pos: contexts_in_function(all_ctx, function_keys(counts, lang, pos)) for pos in ("noun", "verb")
        }
        pos_of = dominant_pos(counts)
        verb_noun = verb_noun_counts(counts)
        tables, edges_all = {}, {}
        for pos in ("noun", "verb"):
            raw, slots = extract(counts, lang, pos, agreement_only=agreement)
            cands = []
            for c in raw:
                reason = (
                    structural_reason(lang, c, shared, verb_noun)
                    or auxiliary_reason(lang, c)  # App. D bins lexical verbs only
                    or (light_verb_reason(lang, c) if agreement else None)
                )
                cands.append(replace(c, keep=False, reason=reason) if reason else c)
            cands, edges = bin_candidates(cands, cfg.n_bins)
            edges_all[pos] = edges
            tables[pos] = cands
            per_pos[pos][name] = (slots, edges)
        staged[name] = (tables, edges_all, ctx, pos_of)

    out = []
    for name, (tables, edges_all, contexts, pos_of) in staged.items():
        ctx = contexts["noun"]
        vocab = vocabs[name]
        # feminine agent nouns count as animacy evidence only as nouns ("donne" is mostly a verb)
        noun_forms = Counter(
            {f: n for (_, f), n in per_pos["noun"][name][0].items() if pos_of.get(f) == "NOUN"}
        )
        nouns = []
        for c in tables["noun"]:
            if c.keep:
                if lang in ("fr", "de"):
                    c = replace(c, gender=resolve_gender(c, lang, ctx))
                reason, ev = noun_semantic(lang, c, noun_forms)
                if lang == "de" and de_dative_plural_only(c, ctx):
                    reason, ev = "dative_plural", ""
                c = replace(c, keep=reason is None, reason=reason or "", evidence=ev)
            nouns.append(c)
        verbs = []
        ctx = contexts["verb"]
        for c in tables["verb"]:
            if c.keep:
                nxt = next_pos_in_contexts((c.sg, c.pl), ctx, pos_of, lang)
                reason, ev = verb_semantic(
                    lang, c, nxt, rc_forms, cfg.min_intransitive_share, cfg.min_verb_contexts, vocab
                )
                if light := light_verb_reason(lang, c):  # binned (App. D), never chosen
                    reason, ev = light, ""
                c = replace(c, keep=reason is None, reason=reason or "", evidence=ev)
            verbs.append(c)
        key = str(cfg.seed)  # the draw depends on the counts and the seed, never on the corpus's name

        noun_edges, verb_edges = edges_all["noun"], edges_all["verb"]
        common = {"cfg": cfg, "lang": lang, "judge": judge}
        sel_n = _pick(nouns, noun_edges, bin_schedule(cfg.n_nouns, cfg.n_bins), f"{key}:noun", **common)
        taken = {c.lemma for c in sel_n.chosen}
        obj_bins = object_schedule(cfg.n_objects, cfg.n_bins)
        sel_o = _pick(nouns, noun_edges, obj_bins, f"{key}:object", fill=True, exclude=taken, **common)
        corpus_notes = list(notes)
        if not sel_o.chosen and sel_n.chosen:  # every usable noun is a subject: attractors reuse them
            sel_o = _pick(nouns, noun_edges, obj_bins, f"{key}:object", fill=True, **common)
            corpus_notes.append(f"corpus {name}: too few animate nouns; attractors are also subject nouns")
        sel_v = _pick(verbs, verb_edges, bin_schedule(cfg.n_verbs, cfg.n_bins), f"{key}:verb", **common)
        if len(sel_v.chosen) == 1:
            corpus_notes.append(
                f"corpus {name}: one usable verb; vp_coord and long_vp_coord need two and are empty"
            )
        if not sel_n.chosen or not sel_v.chosen or not sel_o.chosen:
            what = "nouns" if not sel_n.chosen else "verbs" if not sel_v.chosen else "objects"
            raise InputError(
                f"corpus {name!r}: no usable {what} for FIT-CLAMS ({lang}); "
                f"noun funnel {_funnel(nouns)}, verb funnel {_funnel(verbs)}"
            )
        lex_nouns, lex_objects = (
            tuple(
                Noun(
                    sg=c.sg,
                    pl=c.pl,
                    gender=c.gender,
                    lemma=c.lemma,
                    note=c.evidence,
                    **_freq_and_bins(c.sg, c.pl, per_pos["noun"]),
                )
                for c in sel.chosen
            )
            for sel in (sel_n, sel_o)
        )
        lex_verbs = []
        sources: Counter[str] = Counter()
        noun_slots = per_pos["noun"][name][0]
        # English "in grove" is not a phrase: a bare noun after a preposition must be mostly plural
        bare = (
            {f for (num, f), n in noun_slots.items() if num == "pl" and n > noun_slots[("sg", f)]}
            if lang == "en"
            else None
        )
        for c in sel_v.chosen:
            comp, src = configured.get(c.sg), "config"
            if comp is None:
                comp, src = mine_complement(lang, c, ctx, pos_of, shared, vocab, bare_nouns=bare), "corpus"
            if comp is None:
                comp, src = fallback_complement(lang, c.lemma), "fallback"
            sources[src] += 1
            lex_verbs.append(
                Verb(
                    sg=c.sg,
                    pl=c.pl,
                    lemma=c.lemma,
                    complement=comp,
                    note=f"{c.evidence};complement:{src}",
                    **_freq_and_bins(c.sg, c.pl, per_pos["verb"]),
                )
            )
        if sources["fallback"]:  # said on the console and in the manifest, not only per verb in words/
            kept = s.manifest.get("parameters", {}).get("max_contexts")
            hint = (
                f"; these stats keep {kept} per form, `corpusbench stats --contexts-per-form 20` more"
                if isinstance(kept, int) and kept < 20
                else ""
            )
            corpus_notes.append(
                f"corpus {name}: {sources['fallback']} of {len(lex_verbs)} verbs take a hand-written "
                "long-VP filler (complement fallback: no complete phrase follows them in their corpus "
                f"contexts{hint})"
            )
        lexicon = Lexicon(
            language=lang,
            corpus=name,
            nouns=lex_nouns,
            verbs=tuple(lex_verbs),
            objects=lex_objects,
            rc_verbs=tuple(rc_verbs),
            preps=tuple(preps),
        )
        out.append(
            CorpusSelection(
                corpus=name,
                nouns=nouns,
                verbs=verbs,
                edges={p: ([] if e is None else [float(x) for x in e]) for p, e in edges_all.items()},
                lexicon=lexicon,
                empty_bins={"noun": sel_n.empty_bins, "verb": sel_v.empty_bins, "object": sel_o.empty_bins},
                funnel={
                    "noun": _funnel(nouns),
                    "verb": _funnel(verbs),
                    "llm_vetoed": {"n": sel_n.judged_out + sel_o.judged_out + sel_v.judged_out},
                    "complement": {k: sources[k] for k in ("corpus", "config", "fallback")},
                },
                notes=corpus_notes,
            )
        )
    return out
