"""Conformance with the released reference pairs (``$FITCLAMS_REFERENCE_DIR``, default ``../shared/fitclams``;
validation only, never copied). Without that data the module is skipped with one reason, except under
``CI=true``, where its absence is an error (``.ci/run`` checks it before ``make test``).

The reference's chosen words are fed to the template stage and the sentences compared with the released
pairs: identical, except where a documented fix differs (reference notes §7.1). The fixes are applied to
the *reference* sentences with literal rewrite rules written here, independently of the generator.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from fitclams_reference import available, in_ci, missing_reason, reference_lexicon, reference_pairs

if not available():
    if in_ci():
        pytest.fail(f"{missing_reason()}; CI must run the conformance tests", pytrace=False)
    pytest.skip(missing_reason(), allow_module_level=True)

from corpusbench.corpus.store import CorpusStats
from corpusbench.families.fitclams.candidates import extract, resolve_gender
from corpusbench.families.fitclams.records import PARADIGMS, Lexicon
from corpusbench.families.fitclams.templates import generate_pairs

CORPORA = ("childes", "wiki")
# Reference defects, and the literal rewrites that turn a defective reference sentence into the fixed one.
DE_ACCUSATIVE = {"der bauer": "den bauern", "der matrose": "den matrosen"}  # subj_rel objects
DE_DATIVE = {"dem bauer ": "dem bauern ", "in der nähe von dem ": "in der nähe vom "}  # prep_anim


def _ours(lex: Lexicon, paradigm: str) -> list[tuple[str, str]]:
    return [(p.sentence_good, p.sentence_bad) for p in generate_pairs(lex, paradigm, coord_order="file")]


def _agreement(ours: list[tuple[str, str]], ref: list[tuple[str, str]]) -> tuple[float, float]:
    """(share of pairs identical at the same row, share identical as a multiset)."""
    in_order = sum(a == b for a, b in zip(ours, ref, strict=True)) / len(ref)
    as_set = sum((Counter(ours) & Counter(ref)).values()) / len(ref)
    return in_order, as_set


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("paradigm", PARADIGMS)
def test_english_identical_to_reference(corpus: str, paradigm: str) -> None:
    ref = reference_pairs("en", corpus, paradigm)
    ours = _ours(reference_lexicon("en", corpus), paradigm)
    assert len(ours) == len(ref)
    assert ours == ref


def _fix_de(paradigm: str, lex: Lexicon, sentence: str) -> str:
    if paradigm == "subj_rel":
        head, rc, verb = sentence.split(" , ")
        rel, rest = rc.split(" ", 1)
        for nom, acc in DE_ACCUSATIVE.items():
            if rest.startswith(nom + " "):
                rest = acc + rest[len(nom) :]
        return " , ".join([head, f"{rel} {rest}", verb])
    if paradigm == "obj_rel_within_anim":
        head, rc, verb = sentence.split(" , ")
        noun = head.split(" ", 1)[1]
        sg = {n.sg: n.gender for n in lex.nouns}
        pronoun = {"Masc": "den", "Fem": "die", "Neut": "das"}[sg[noun]] if noun in sg else "die"
        return " , ".join([head, pronoun + " " + rc.split(" ", 1)[1], verb])
    if paradigm == "prep_anim":
        for bad, good in DE_DATIVE.items():
            sentence = sentence.replace(bad, good)
    return sentence


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("paradigm", PARADIGMS)
def test_german_identical_after_documented_fixes(corpus: str, paradigm: str) -> None:
    lex = reference_lexicon("de", corpus)
    ref = reference_pairs("de", corpus, paradigm)
    ours = _ours(lex, paradigm)
    fixed = [(_fix_de(paradigm, lex, g), _fix_de(paradigm, lex, b)) for g, b in ref]
    assert ours == fixed
    raw, _ = _agreement(ours, ref)
    if paradigm in ("subj_rel", "obj_rel_within_anim") or (paradigm == "prep_anim"):
        assert raw < 1.0  # the reference defect is really there, and we really differ from it
    else:
        assert raw == 1.0


def _genders_from_context(stats_path: Path) -> dict[str, str | None]:
    s = CorpusStats.load(stats_path)
    nouns, _ = extract(s.counts, "fr", "noun")
    return {c.sg: resolve_gender(c, "fr", s.contexts) for c in nouns}


@pytest.mark.parametrize("corpus", CORPORA)
def test_french_identical_with_gender_from_context(corpus: str, fr_stats: Path) -> None:
    genders = _genders_from_context(fr_stats)
    assert genders["dame"] == "Fem"  # the reference tagged "dame" alone and got Masc ("le dame")
    lex = reference_lexicon("fr", corpus)
    resolved = {n.sg: genders.get(n.sg) or n.gender for n in (*lex.nouns, *lex.objects)}
    disagree = {
        w: (g, n.gender)
        for n in (*lex.nouns, *lex.objects)
        for w, g in [(n.sg, resolved[n.sg])]
        if g != n.gender
    }
    assert disagree == ({"dame": ("Fem", "Masc")} if corpus == "childes" else {})
    lex = replace(
        lex,
        nouns=tuple(replace(n, gender=resolved[n.sg]) for n in lex.nouns),
        objects=tuple(replace(n, gender=resolved[n.sg]) for n in lex.objects),
    )
    for paradigm in PARADIGMS:
        ref = reference_pairs("fr", corpus, paradigm)
        fixed = [(re.sub(r"\ble dame\b", "la dame", g), re.sub(r"\ble dame\b", "la dame", b)) for g, b in ref]
        ours = _ours(lex, paradigm)
        in_order, as_set = _agreement(ours, fixed)
        assert as_set == 1.0, paradigm
        # the released FR-wiki files list "vilaine" before "cuisinier" (code != data); rows otherwise align
        assert in_order == 1.0 or corpus == "wiki", paradigm
