"""Automatic word choice as in App. D on a slice of the embedded corpus (``default_slice_stats``: NLTK
tags, as the demo's stats): verbs used mainly as verbs, App. D bins, long-VP complements from verb uses."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pytest

from corpusbench.corpus.store import CorpusStats
from corpusbench.families.fitclams.candidates import contexts_in_function, function_keys
from corpusbench.families.fitclams.lexicon import (
    FALLBACK_BY_CLASS,
    FALLBACK_DEFAULT,
    CorpusSelection,
    build_selections,
    fallback_complement,
)
from corpusbench.families.fitclams.select import SelectionConfig
from corpusbench.families.fitclams.templates import generate_pairs

VERB_TAGS = ("VB", "VBP", "VBZ")


@functools.lru_cache(maxsize=16)
def _cached(stats: Path, cfg: tuple[tuple[str, object], ...]) -> CorpusSelection:
    return build_selections({"d": CorpusStats.load(stats)}, "en", SelectionConfig(**dict(cfg)))[0]  # type: ignore[arg-type]


def _select(stats: Path, **cfg: object) -> CorpusSelection:
    """One selection per (stats, config) for the whole module: the tests only read it."""
    return _cached(stats, tuple(sorted(cfg.items())))


def _tagged(counts: pd.DataFrame, form: str, tags: tuple[str, ...]) -> int:
    return int(counts[(counts["form"] == form) & counts["tag"].isin(tags)]["count"].sum())


def test_chosen_verbs_are_used_mainly_as_verbs(default_slice_stats: Path) -> None:
    counts = CorpusStats.load(default_slice_stats).counts
    verb_tags = tuple(t for t in counts["tag"].unique() if str(t).startswith("VB"))
    for seed in (0, 1, 2):
        sel = _select(default_slice_stats, seed=seed, fill_empty=True)
        assert len(sel.lexicon.verbs) == 10
        for v in sel.lexicon.verbs:
            for form in (v.sg, v.pl):
                n_verb, n_noun = _tagged(counts, form, verb_tags), _tagged(counts, form, ("NN", "NNS"))
                assert n_verb > n_noun, (seed, form, n_verb, n_noun)
    # the check is what keeps them out: noun/verb homographs are candidates, and are dropped for it
    dropped = {c.lemma for c in sel.verbs if c.reason == "mostly_noun"}
    assert {"cry", "live", "fear", "love"} <= dropped
    kept = [c for c in sel.verbs if c.keep]
    assert all(_tagged(counts, c.sg, verb_tags) > _tagged(counts, c.sg, ("NN", "NNS")) for c in kept)


def test_bins_follow_appendix_d_with_the_agreement_variant_as_an_option(default_slice_stats: Path) -> None:
    counts = CorpusStats.load(default_slice_stats).counts
    paper = _select(default_slice_stats)
    agree = _select(default_slice_stats, bin_counts="agreement")
    go_p = next(c for c in paper.verbs if c.lemma == "go")
    go_a = next(c for c in agree.verbs if c.lemma == "go")
    verb_rows = counts[counts["pos"] == "VERB"]
    assert go_p.count_pl == _tagged(verb_rows, "go", ("VB", "VBP"))  # App. D: VB forms count as plural
    assert go_a.count_pl == _tagged(verb_rows, "go", ("VBP",)) < go_p.count_pl
    # App. D bins lexical verbs only: with NLTK (no AUX tag) "be", "have", "do" are verb candidates, and
    # they are dropped before binning, so they set no edge; light verbs ("say") are binned, never chosen
    for lemma in ("be", "have", "do"):
        aux = next(c for c in paper.verbs if c.lemma == lemma)
        assert (aux.keep, aux.reason, aux.bin) == (False, "auxiliary_or_copula", -1), lemma
    be_p = next(c for c in paper.verbs if c.lemma == "be")
    binned = [c for c in paper.verbs if c.bin >= 0]
    top = max(c.total for c in binned)
    assert paper.edges["verb"][-1] == pytest.approx(top) and top < be_p.total / 5
    assert not {"be", "have", "do"} & {c.lemma for c in binned}
    say_p = next(c for c in paper.verbs if c.lemma == "say")
    assert say_p.bin >= 0 and (say_p.keep, say_p.reason) == (False, "light_verb")
    say_a = next(c for c in agree.verbs if c.lemma == "say")
    assert (say_a.reason, say_a.bin) == ("light_verb", -1)  # the variant drops light verbs first too
    assert all(v.sg not in ("is", "has", "does", "says") for v in paper.lexicon.verbs)


def test_copulas_auxiliaries_and_modals_are_never_binned_in_any_language() -> None:
    from corpusbench.families.fitclams.checks import auxiliary_reason, light_verb_reason
    from corpusbench.families.fitclams.records import Candidate

    def verb(lang: str, lemma: str) -> str | None:
        c = Candidate(pos="verb", lemma=lemma, sg="x", pl="y", count_sg=1, count_pl=1)
        return auxiliary_reason(lang, c) or light_verb_reason(lang, c)

    for lang, lemmas in {
        "en": ("be", "have", "do", "can", "will", "must"),
        "fr": ("être", "avoir", "pouvoir", "devoir"),
        "de": ("sein", "haben", "werden", "können", "müssen"),
    }.items():
        assert {verb(lang, x) for x in lemmas} == {"auxiliary_or_copula"}, lang
    assert verb("en", "say") == verb("fr", "dire") == verb("de", "sagen") == "light_verb"
    assert verb("en", "walk") is None and verb("fr", "marcher") is None and verb("de", "gehen") is None


def test_selection_depends_on_the_data_and_the_seed_not_the_label(default_slice_stats: Path) -> None:
    """The same stats under two names (`--corpus mine=STATS` vs a release naming it `plays`) choose the
    same nouns, objects and verbs, in one-corpus and in two-corpus runs (before, the name fed the draw)."""
    stats = CorpusStats.load(default_slice_stats)
    cfg = SelectionConfig(fill_empty=True, top_k=5)

    def words(sel: CorpusSelection) -> tuple[list[str], ...]:
        lex = sel.lexicon
        return [n.sg for n in lex.nouns], [o.sg for o in lex.objects], [v.sg for v in lex.verbs]

    (mine,) = build_selections({"mine": stats}, "en", cfg)
    (plays,) = build_selections({"plays": stats}, "en", cfg)
    assert words(mine) == words(plays)
    two_a = build_selections({"a": stats, "b": stats}, "en", cfg)
    two_x = build_selections({"x": stats, "y": stats}, "en", cfg)
    assert [words(s) for s in two_a] == [words(s) for s in two_x]
    # the seeded coordination order too
    seeded = [generate_pairs(s.lexicon, "vp_coord", coord_order="seeded", seed=3) for s in (mine, plays)]
    orders = [[(p.verb_first, p.verb) for p in pairs] for pairs in seeded]
    assert orders[0] == orders[1]


def test_long_vp_complements_come_from_verb_uses_else_a_counted_fallback(default_slice_stats: Path) -> None:
    s = CorpusStats.load(default_slice_stats)
    ctx = s.contexts
    verb_ctx = ctx[ctx["tag"].isin(VERB_TAGS)]
    sources = {"corpus": 0, "fallback": 0}
    for seed in (0, 1, 2):
        sel = _select(default_slice_stats, seed=seed, fill_empty=True)
        for v in sel.lexicon.verbs:
            src = v.note.rsplit("complement:", 1)[1]
            sources[src] += 1
            if src == "corpus":  # the phrase follows the verb, tagged as a verb, in a corpus sentence
                follows = [
                    sent.lower().split(" ")[i + 1 : i + 1 + len(v.complement.split())] == v.complement.split()
                    for sent, i in verb_ctx[verb_ctx["form"].isin((v.sg, v.pl))][
                        ["sentence", "token_index"]
                    ].itertuples(index=False, name=None)
                ]
                assert any(follows), (v.sg, v.complement)
            else:
                assert v.complement == fallback_complement("en", v.lemma)
                assert v.complement in {*FALLBACK_BY_CLASS.values(), *FALLBACK_DEFAULT.values()}
        funnel = sel.funnel["complement"]
        notes = [v.note.rsplit("complement:", 1)[1] for v in sel.lexicon.verbs]
        assert funnel == {k: notes.count(k) for k in ("corpus", "config", "fallback")}
    assert sources["corpus"] > 0 and sources["fallback"] > 0
    assert fallback_complement("en", "go") == "to the house"  # a motion verb gets a direction


def test_verb_evidence_is_read_from_verb_tagged_contexts_only(default_slice_stats: Path) -> None:
    s = CorpusStats.load(default_slice_stats)
    ctx = s.contexts
    keys = function_keys(s.counts, "en", "verb")
    kept = contexts_in_function(ctx, keys)
    assert kept is not None and set(kept["tag"]) <= set(VERB_TAGS)
    # "lives"/"cries" occur as nouns and as verbs; only their verb uses remain
    both = ctx[ctx["form"].isin(("lives", "cries", "sounds"))]
    assert {"NNS", "VBZ"} <= set(both["tag"])
    remaining = kept[kept["form"].isin(("lives", "cries", "sounds"))]
    assert len(remaining) and set(remaining["tag"]) == {"VBZ"}


def test_default_coordination_order_is_the_released_file_order(default_slice_stats: Path) -> None:
    assert SelectionConfig().coord_order == "file"
    lex = _select(default_slice_stats, fill_empty=True).lexicon
    order = {v.sg: i for i, v in enumerate(lex.verbs)}  # the list is sorted by frequency, as released
    assert [v.freq_in("d") for v in lex.verbs] == sorted(v.freq_in("d") for v in lex.verbs)
    pairs = list(generate_pairs(lex, "vp_coord"))
    assert all(order[p.verb_first] < order[p.verb] for p in pairs)
