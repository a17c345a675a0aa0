"""Automatic word choice as in App. D on a slice of the embedded corpus (``default_slice_stats``: NLTK
tags, as the demo's stats): verbs used mainly as verbs, App. D bins, long-VP complements from verb uses."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pytest

from corpusbench.corpus.store import CorpusStats
from corpusbench.generators.fitclams.candidates import contexts_in_function, function_keys
from corpusbench.generators.fitclams.lexicon import (
    FALLBACK_BY_CLASS,
    FALLBACK_DEFAULT,
    CorpusSelection,
    build_selections,
    fallback_complement,
)
from corpusbench.generators.fitclams.select import SelectionConfig
from corpusbench.generators.fitclams.templates import generate_pairs

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
    # auxiliaries are binned (they set the top edge) and never chosen; the variant drops them first
    be_p = next(c for c in paper.verbs if c.lemma == "be")
    assert (be_p.keep, be_p.reason, be_p.bin) == (False, "auxiliary_or_copula", 9)
    binned = [c.total for c in paper.verbs if c.bin >= 0]
    assert paper.edges["verb"][-1] == pytest.approx(max(binned)) == pytest.approx(be_p.total)
    be_a = next(c for c in agree.verbs if c.lemma == "be")
    assert (be_a.reason, be_a.bin) == ("auxiliary_or_copula", -1)
    assert agree.edges["verb"][-1] < paper.edges["verb"][-1] / 5
    assert all(v.sg not in ("is", "has", "does", "says") for v in paper.lexicon.verbs)


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
