"""The seven CLAMS paradigms as FIT-CLAMS templates: critical word fixed, its controller's number varied.

Row and loop order follow the pairs released with the FIT-CLAMS paper (Padovani et al. 2025), so the
released word lists reproduce its sentences (``tests/families/fitclams/test_fitclams_conformance.py``).
Every pair carries the character span of the critical word in both sentences, computed while the
sentence is assembled (never by substring search).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence

from corpusbench.families.fitclams.grammar import Grammar, grammar_for
from corpusbench.families.fitclams.records import NUMBERS, Lexicon, MinimalPair, Noun, Span, Verb, other
from corpusbench.provenance import sha256_text

Sentence = tuple[list[str], int]  # tokens (may contain spaces) and the index of the critical token


def expected_pair_counts(
    n_nouns: int, n_verbs: int, n_objects: int, n_rc: int, n_preps: int
) -> dict[str, int]:
    """Closed formulas of reference §3.9 / paper Table 14."""
    coord = n_nouns * (n_verbs * (n_verbs - 1) // 2) * 2
    rc = n_nouns * n_objects * n_verbs * n_rc * 4
    return {
        "simple_agrmt": n_nouns * n_verbs * 2,
        "vp_coord": coord,
        "long_vp_coord": coord,
        "prep_anim": n_nouns * n_objects * n_verbs * n_preps * 4,
        "subj_rel": rc,
        "obj_rel_across_anim": rc,
        "obj_rel_within_anim": rc,
    }


def render(sentence: Sentence) -> tuple[str, Span]:
    tokens, crit = sentence
    start = sum(len(t) + 1 for t in tokens[:crit])
    return " ".join(tokens), Span(start=start, end=start + len(tokens[crit]))


class _Builder:
    """Shared state for one lexicon: grammar, corpora for the per-pair statistics, output list."""

    def __init__(self, lex: Lexicon, corpora: Sequence[str], vocab: Mapping[str, Mapping[str, int]]) -> None:
        self.lex = lex
        self.g: Grammar = grammar_for(lex.language)
        self.corpora = tuple(corpora) or (lex.corpus,)
        self.vocab = vocab

    def pair(
        self,
        paradigm: str,
        good: Sentence,
        bad: Sentence,
        *,
        varied: str,
        noun: Noun,
        n_good: str,
        verb: Verb,
        crit_number: str,
        verb_first: Verb | None = None,
        obj: Noun | None = None,
        o_good: str = "",
        o_bad: str = "",
        rc: Verb | None = None,
        prep: str = "",
    ) -> MinimalPair:
        s_good, span_good = render(good)
        s_bad, span_bad = render(bad)
        crit = s_good[span_good.start : span_good.end]
        assert crit == s_bad[span_bad.start : span_bad.end], (s_good, s_bad)
        n_bad = n_good if varied == "attractor" else other(n_good)
        stats: list[tuple[str, int]] = []
        for c in self.corpora:
            voc = self.vocab.get(c, {})
            stats += [
                (f"noun_freq__{c}", noun.freq_in(c)),
                (f"noun_bin__{c}", noun.bin_in(c)),
                (f"verb_freq__{c}", verb.freq_in(c)),
                (f"verb_bin__{c}", verb.bin_in(c)),
                (f"attractor_freq__{c}", obj.freq_in(c) if obj else 0),
                (f"attractor_bin__{c}", obj.bin_in(c) if obj else -1),
                (f"noun_good_count__{c}", voc.get(noun.form(n_good), 0)),
                (f"noun_bad_count__{c}", voc.get(noun.form(n_bad), 0)),
                (f"critical_count__{c}", voc.get(crit, 0)),
            ]
        lex = self.lex
        return MinimalPair(
            pair_id=f"{lex.language}/{lex.corpus}/{paradigm}/{sha256_text(s_good + chr(9) + s_bad)[:12]}",
            paradigm=paradigm,
            language=lex.language,
            corpus=lex.corpus,
            sentence_good=s_good,
            sentence_bad=s_bad,
            good_span=span_good,
            bad_span=span_bad,
            critical_word=crit,
            critical_number=crit_number,
            varied=varied,
            noun=noun.sg,
            noun_good=noun.form(n_good),
            noun_bad=noun.form(n_bad),
            verb=verb.sg,
            verb_first=verb_first.sg if verb_first else "",
            attractor=obj.sg if obj else "",
            attractor_good=obj.form(o_good) if obj else "",
            attractor_bad=obj.form(o_bad) if obj else "",
            rc_verb=rc.sg if rc else "",
            preposition=prep,
            stats=tuple(stats),
        )

    # -- sentence shapes ---------------------------------------------------------------------------
    def simple(self, n: Noun, ns: str, v: Verb, vs: str) -> Sentence:
        toks = [*self.g.np(n, ns), v.form(vs)]
        return toks, len(toks) - 1

    def coord(self, n: Noun, ns: str, v1: Verb, v2: Verb, vs: str, long: bool) -> Sentence:
        first = [v1.form(ns), *([v1.complement] if long and v1.complement else [])]
        toks = [*self.g.np(n, ns), *first, self.g.conj, v2.form(vs)]
        crit = len(toks) - 1
        if long and v2.complement:
            toks.append(v2.complement)
        return toks, crit

    def subj_rel(self, n: Noun, ns: str, o: Noun, os_: str, r: Verb, v: Verb, vs: str) -> Sentence:
        g = self.g
        if g.comma_rc:  # der feind , der den bauern mag , zweifelt
            toks = [
                *g.np(n, ns),
                ",",
                g.rel(n, ns, "subj"),
                *g.np(o, os_, "acc"),
                r.form(ns),
                ",",
                v.form(vs),
            ]
        else:
            toks = [*g.np(n, ns), g.rel(n, ns, "subj"), r.form(ns), *g.np(o, os_, "acc"), v.form(vs)]
        return toks, len(toks) - 1

    def obj_rel(
        self, n: Noun, ns: str, o: Noun, os_: str, r: Verb, rs: str, v: Verb, vs: str, crit_rc: bool
    ) -> Sentence:
        g = self.g
        head = [*g.np(n, ns), *([","] if g.comma_rc else []), g.rel(n, ns, "obj"), *g.np(o, os_, "nom")]
        rc_idx = len(head)
        toks = [*head, r.form(rs), *([","] if g.comma_rc else []), v.form(vs)]
        return toks, (rc_idx if crit_rc else len(toks) - 1)

    def prep(self, n: Noun, ns: str, p: str, o: Noun, os_: str, v: Verb, vs: str) -> Sentence:
        toks = [*self.g.np(n, ns), *self.g.pp(p, o, os_), v.form(vs)]
        return toks, len(toks) - 1


def _coord_pairs(verbs: Sequence[Verb], order: str, rng: random.Random) -> Iterator[tuple[Verb, Verb]]:
    """``file``: itertools.combinations in list order (the reference); ``seeded``: each pair's order is
    flipped by a seeded coin, removing the low-frequency-verb-first confound (reference §7.2.6)."""
    for a, b in itertools.combinations(verbs, 2):
        if order == "seeded" and rng.random() < 0.5:
            yield b, a
        else:
            yield a, b


def generate_pairs(
    lex: Lexicon,
    paradigm: str,
    *,
    corpora: Sequence[str] = (),
    vocab: Mapping[str, Mapping[str, int]] | None = None,
    coord_order: str = "file",
    seed: int = 0,
) -> Iterator[MinimalPair]:
    """Expand one paradigm for one lexicon, in the reference's row order."""
    b = _Builder(lex, corpora, vocab or {})
    if paradigm == "simple_agrmt":
        for n, v in itertools.product(lex.nouns, lex.verbs):
            for t in NUMBERS:
                yield b.pair(
                    paradigm,
                    b.simple(n, t, v, t),
                    b.simple(n, other(t), v, t),
                    varied="subject",
                    noun=n,
                    n_good=t,
                    verb=v,
                    crit_number=t,
                )
    elif paradigm in ("vp_coord", "long_vp_coord"):
        long = paradigm == "long_vp_coord"
        rng = random.Random(f"{seed}:coord")  # the seed only, never the label
        combos = list(_coord_pairs(lex.verbs, coord_order, rng))
        for n in lex.nouns:
            for v1, v2 in combos:
                for t in NUMBERS:
                    yield b.pair(
                        paradigm,
                        b.coord(n, t, v1, v2, t, long),
                        b.coord(n, other(t), v1, v2, t, long),
                        varied="subject",
                        noun=n,
                        n_good=t,
                        verb=v2,
                        verb_first=v1,
                        crit_number=t,
                    )
    elif paradigm in ("subj_rel", "obj_rel_across_anim", "prep_anim"):
        # subject number varied across a fixed attractor: x is the RC verb, or the preposition
        shape = {
            "subj_rel": lambda n, ns, o, m, x, v, t: b.subj_rel(n, ns, o, m, x, v, t),
            "obj_rel_across_anim": lambda n, ns, o, m, x, v, t: b.obj_rel(n, ns, o, m, x, m, v, t, False),
            "prep_anim": lambda n, ns, o, m, x, v, t: b.prep(n, ns, x, o, m, v, t),
        }[paradigm]
        fillers: Sequence[Verb] | Sequence[str] = lex.preps if paradigm == "prep_anim" else lex.rc_verbs
        for n, o, v, x in itertools.product(lex.nouns, lex.objects, lex.verbs, fillers):
            for t in NUMBERS:
                for m in NUMBERS:
                    yield b.pair(
                        paradigm,
                        shape(n, t, o, m, x, v, t),
                        shape(n, other(t), o, m, x, v, t),
                        varied="subject",
                        noun=n,
                        n_good=t,
                        verb=v,
                        crit_number=t,
                        obj=o,
                        o_good=m,
                        o_bad=m,
                        **({"prep": x} if isinstance(x, str) else {"rc": x}),
                    )
    elif paradigm == "obj_rel_within_anim":
        for n, o, v, r in itertools.product(lex.nouns, lex.objects, lex.verbs, lex.rc_verbs):
            for t in NUMBERS:  # head number (main verb agrees with it)
                for rs in NUMBERS:  # number of the fixed RC verb
                    yield b.pair(
                        paradigm,
                        b.obj_rel(n, t, o, rs, r, rs, v, t, crit_rc=True),
                        b.obj_rel(n, t, o, other(rs), r, rs, v, t, crit_rc=True),
                        varied="attractor",
                        noun=n,
                        n_good=t,
                        verb=v,
                        crit_number=rs,
                        obj=o,
                        o_good=rs,
                        o_bad=other(rs),
                        rc=r,
                    )
    else:
        raise ValueError(f"unknown paradigm {paradigm!r}")
