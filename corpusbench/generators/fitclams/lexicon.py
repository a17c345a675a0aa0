"""From stats folders to one ``Lexicon`` per corpus: candidates, checks, bins, selection, long-VP fillers.

With several corpora every word form must occur in every corpus (vocabulary intersection), and each
corpus gets its own pair set chosen from its own frequency bins (FIT-CLAMS-C / FIT-CLAMS-W).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from corpusbench.corpus.bins import log_bins
from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import InputError
from corpusbench.generators.fitclams import llm_check
from corpusbench.generators.fitclams.candidates import (
    de_dative_plural_only,
    dominant_pos,
    extract,
    next_pos_in_contexts,
    resolve_gender,
)
from corpusbench.generators.fitclams.checks import noun_semantic, structural_reason, verb_semantic
from corpusbench.generators.fitclams.grammar import DEFAULT_PREPS, DEFAULT_RC_VERBS
from corpusbench.generators.fitclams.records import Candidate, Lexicon, Noun, Verb
from corpusbench.generators.fitclams.select import (
    Judge,
    Selection,
    SelectionConfig,
    bin_candidates,
    bin_schedule,
    object_schedule,
    select_per_bin,
)

# Neutral adverbials for long-VP coordination when no complement can be mined from the corpus.
FALLBACK_COMPLEMENTS = {
    "en": ("every day", "in the morning", "at home", "after dinner", "in the garden", "with great care"),
    "fr": ("tous les jours", "le matin", "à la maison", "après le dîner", "dans le jardin", "avec soin"),
    "de": ("jeden tag", "am morgen", "zu hause", "nach dem essen", "im garten", "mit großer sorgfalt"),
}
_COMPLEMENT_START = frozenset({"ADP"})  # a prepositional phrase keeps the verb intransitive
_COMPLEMENT_SECOND = frozenset({"DET", "PRON"})
# Articles only: a possessive ("zu deiner danksagung", "à ta paix") ties the phrase to its source sentence.
_ARTICLES = {
    "en": frozenset({"the", "a", "an"}),
    "fr": frozenset({"le", "la", "les", "l'", "un", "une", "des", "du"}),
    "de": frozenset({"der", "die", "das", "dem", "den", "des", "ein", "eine", "einem", "einen", "einer"}),
}
_COMPLEMENT_END = frozenset({"NOUN"})


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
) -> str | None:
    """The most frequent 2-4 word prepositional phrase right after the verb in its corpus contexts
    (preposition, article, ..., noun: "in the garden"), not followed by another preposition, every
    word seen in every corpus; ``None`` if there is none."""
    if contexts is None:
        return None
    seen: Counter[str] = Counter()
    rows = contexts[contexts["form"].isin((verb.sg, verb.pl))]
    for sentence, idx in rows[["sentence", "token_index"]].itertuples(index=False, name=None):
        toks = [t.lower() for t in str(sentence).split(" ")]
        i = int(idx) + 1
        for n in range(2, max_len + 1):
            span = toks[i : i + n]
            if len(span) < n or not all(t.isalpha() for t in span):
                break
            if vocab_ok is not None and not all(t in vocab_ok for t in span):
                break
            after = toks[i + n] if i + n < len(toks) else ""
            if (
                pos_of.get(span[0]) in _COMPLEMENT_START
                and pos_of.get(span[1]) in _COMPLEMENT_SECOND
                and span[1] in _ARTICLES[lang]
                and pos_of.get(span[-1]) in _COMPLEMENT_END
                and pos_of.get(after) not in _COMPLEMENT_START  # "à la manière [de ...]" is unfinished
            ):
                if not any(vocabulary.get(t, 0) == 0 for t in span):
                    seen[" ".join(span)] += 1
                break
    if not seen:
        return None
    return min(seen.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0]


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
    for name, s in stats.items():
        counts = s.counts
        ctx = _contexts(s)
        pos_of = dominant_pos(counts)
        tables, edges_all = {}, {}
        for pos in ("noun", "verb"):
            raw, slots = extract(counts, lang, pos)
            cands = []
            for c in raw:
                reason = structural_reason(lang, c, shared)
                cands.append(replace(c, keep=False, reason=reason) if reason else c)
            cands, edges = bin_candidates(cands, cfg.n_bins)
            edges_all[pos] = edges
            tables[pos] = cands
            per_pos[pos][name] = (slots, edges)
        staged[name] = (tables, edges_all, ctx, pos_of)

    out = []
    for name, (tables, edges_all, ctx, pos_of) in staged.items():
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
        for c in tables["verb"]:
            if c.keep:
                nxt = next_pos_in_contexts((c.sg, c.pl), ctx, pos_of, lang)
                reason, ev = verb_semantic(
                    lang, c, nxt, rc_forms, cfg.min_intransitive_share, cfg.min_verb_contexts, vocab
                )
                c = replace(c, keep=reason is None, reason=reason or "", evidence=ev)
            verbs.append(c)
        key = f"{cfg.seed}:{name}"

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
        rng = random.Random(f"{key}:complement")
        lex_verbs = []
        for c in sel_v.chosen:
            comp, src = configured.get(c.sg), "config"
            if comp is None:
                comp, src = mine_complement(lang, c, ctx, pos_of, shared, vocab), "corpus"
            if comp is None:
                comp, src = rng.choice(FALLBACK_COMPLEMENTS[lang]), "fallback"
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
                },
                notes=corpus_notes,
            )
        )
    return out
