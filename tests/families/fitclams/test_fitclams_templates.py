"""Templates: paradigm shapes per language, the reference defects fixed, offsets, pair-count formulas."""

from __future__ import annotations

import pytest

from corpusbench.errors import ConfigError
from corpusbench.families.fitclams.grammar import (
    DEFAULT_PREPS,
    German,
    de_is_weak,
    de_noun_form,
    grammar_for,
)
from corpusbench.families.fitclams.records import PARADIGMS, Lexicon, Noun, Verb
from corpusbench.families.fitclams.templates import expected_pair_counts, generate_pairs


def _lex(lang: str, nouns, verbs, objects, rc, preps=None, corpus="c") -> Lexicon:
    return Lexicon(
        language=lang,
        corpus=corpus,
        nouns=tuple(nouns),
        verbs=tuple(verbs),
        objects=tuple(objects),
        rc_verbs=tuple(rc),
        preps=tuple(preps or DEFAULT_PREPS[lang]),
    )


EN = _lex(
    "en",
    [Noun(sg="farmer", pl="farmers"), Noun(sg="child", pl="children")],
    [
        Verb(sg="sleeps", pl="sleep", complement="in the barn"),
        Verb(sg="laughs", pl="laugh", complement="at home"),
        Verb(sg="swims", pl="swim", complement="in the lake"),
    ],
    [Noun(sg="guard", pl="guards")],
    [Verb(sg="likes", pl="like")],
    ["next to", "behind"],
)
FR = _lex(
    "fr",
    [
        Noun(sg="dame", pl="dames", gender="Fem"),
        Noun(sg="enfant", pl="enfants", gender="Masc"),
        Noun(sg="héros", pl="héros", gender="Masc"),
    ],
    [Verb(sg="dort", pl="dorment", complement="le matin"), Verb(sg="rit", pl="rient", complement="souvent")],
    [
        Noun(sg="docteur", pl="docteurs", gender="Masc"),
        Noun(sg="femme", pl="femmes", gender="Fem"),
        Noun(sg="adulte", pl="adultes", gender="Masc"),
    ],
    [Verb(sg="aime", pl="aiment")],
)
DE = _lex(
    "de",
    [
        Noun(sg="feind", pl="feinde", gender="Masc"),
        Noun(sg="schwester", pl="schwestern", gender="Fem"),
        Noun(sg="kind", pl="kinder", gender="Neut"),
    ],
    [
        Verb(sg="zweifelt", pl="zweifeln", complement="am wetter"),
        Verb(sg="lacht", pl="lachen", complement="laut"),
    ],
    [
        Noun(sg="bauer", pl="bauern", gender="Masc"),
        Noun(sg="matrose", pl="matrosen", gender="Masc"),
        Noun(sg="mitglied", pl="mitglieder", gender="Neut"),
        Noun(sg="familie", pl="familien", gender="Fem"),
    ],
    [Verb(sg="mag", pl="mögen")],
)


def _pairs(lex: Lexicon, paradigm: str) -> list[tuple[str, str]]:
    return [(p.sentence_good, p.sentence_bad) for p in generate_pairs(lex, paradigm)]


@pytest.mark.parametrize("lex", [EN, FR, DE], ids=["en", "fr", "de"])
@pytest.mark.parametrize("paradigm", PARADIGMS)
def test_pair_counts_follow_the_closed_formulas(lex: Lexicon, paradigm: str) -> None:
    pairs = list(generate_pairs(lex, paradigm))
    exp = expected_pair_counts(
        len(lex.nouns), len(lex.verbs), len(lex.objects), len(lex.rc_verbs), len(lex.preps)
    )
    assert len(pairs) == exp[paradigm]
    assert len({p.pair_id for p in pairs}) == len(pairs)  # content ids are unique


def test_formulas_reproduce_paper_table_14() -> None:
    en, fr, de = (
        expected_pair_counts(10, 10, 2, 4, 6),
        expected_pair_counts(9, 7, 2, 1, 5),
        expected_pair_counts(10, 10, 2, 2, 5),
    )
    assert [en[p] for p in PARADIGMS] == [200, 900, 900, 4800, 3200, 3200, 3200]
    assert [fr[p] for p in PARADIGMS] == [126, 378, 378, 2520, 504, 504, 504]
    assert [de[p] for p in PARADIGMS] == [200, 900, 900, 4000, 1600, 1600, 1600]
    assert sum(en.values()) == 16400 and sum(fr.values()) == 4914 and sum(de.values()) == 10800


@pytest.mark.parametrize("lex", [EN, FR, DE], ids=["en", "fr", "de"])
@pytest.mark.parametrize("paradigm", PARADIGMS)
def test_offsets_point_at_the_fixed_critical_verb(lex: Lexicon, paradigm: str) -> None:
    verbs = {f for v in lex.verbs for f in (v.sg, v.pl)}
    rc = {f for v in lex.rc_verbs for f in (v.sg, v.pl)}
    for p in generate_pairs(lex, paradigm):
        g = p.sentence_good[p.good_span.start : p.good_span.end]
        b = p.sentence_bad[p.bad_span.start : p.bad_span.end]
        assert g == b == p.critical_word
        assert p.sentence_good != p.sentence_bad
        # the span is a whole token
        assert p.good_span.start == 0 or p.sentence_good[p.good_span.start - 1] == " "
        assert p.good_span.end == len(p.sentence_good) or p.sentence_good[p.good_span.end] == " "
        if paradigm == "obj_rel_within_anim":
            assert g in rc and p.varied == "attractor"
        else:
            assert g in verbs and p.varied == "subject"
        # everything before the critical word is the only thing that differs
        assert p.sentence_good[p.good_span.end :] == p.sentence_bad[p.bad_span.end :]


def test_offsets_not_fooled_by_substrings() -> None:
    """Reference defect: str.index found "und" inside "kunde"; our spans come from assembly."""
    lex = _lex(
        "de",
        [Noun(sg="kunde", pl="kunden", gender="Masc")],
        [
            Verb(sg="schaukelt", pl="schaukeln", complement="auf dem spielplatz"),
            Verb(sg="flüchtet", pl="flüchten", complement="vor dem feuer"),
        ],
        [],
        [],
    )
    p = next(iter(generate_pairs(lex, "long_vp_coord")))
    assert p.sentence_good == "der kunde schaukelt auf dem spielplatz und flüchtet vor dem feuer"
    assert p.sentence_good[p.good_span.start : p.good_span.end] == "flüchtet"
    assert p.good_span.start == p.sentence_good.index(" und ") + len(" und ")


def test_english_shapes() -> None:
    assert _pairs(EN, "simple_agrmt")[:2] == [
        ("the farmer sleeps", "the farmers sleeps"),
        ("the farmers sleep", "the farmer sleep"),
    ]
    assert _pairs(EN, "long_vp_coord")[0] == (
        "the farmer sleeps in the barn and laughs at home",
        "the farmers sleep in the barn and laughs at home",
    )
    assert _pairs(EN, "subj_rel")[0] == (
        "the farmer that likes the guard sleeps",
        "the farmers that like the guard sleeps",
    )
    assert _pairs(EN, "obj_rel_across_anim")[1] == (
        "the farmer that the guards like sleeps",
        "the farmers that the guards like sleeps",
    )
    assert _pairs(EN, "obj_rel_within_anim")[0] == (
        "the farmer that the guard likes sleeps",
        "the farmer that the guards likes sleeps",
    )
    assert _pairs(EN, "prep_anim")[0] == (
        "the farmer next to the guard sleeps",
        "the farmers next to the guard sleeps",
    )


def test_french_gender_elision_and_de_contractions() -> None:
    simple = _pairs(FR, "simple_agrmt")
    assert simple[0] == ("la dame dort", "les dames dort")  # gender from the lexicon, not "le dame"
    assert ("l'enfant dort", "les enfants dort") in simple
    assert _pairs(FR, "subj_rel")[0] == (
        "la dame qui aime le docteur dort",
        "les dames qui aiment le docteur dort",
    )
    assert _pairs(FR, "obj_rel_across_anim")[0] == (
        "la dame que le docteur aime dort",
        "les dames que le docteur aime dort",
    )
    preps = {g for g, _ in _pairs(FR, "prep_anim")}
    for s in (
        "la dame en face du docteur dort",
        "la dame à côté de la femme dort",
        "la dame près de l'adulte dort",
        "la dame devant les femmes dort",
        "la dame à côté des docteurs dort",
        "la dame derrière l'adulte dort",
    ):
        assert s in preps


def test_french_h_aspire_is_not_elided() -> None:
    lex = _lex(
        "fr",
        [Noun(sg="héros", pl="héros", gender="Masc"), Noun(sg="homme", pl="hommes", gender="Masc")],
        [Verb(sg="dort", pl="dorment"), Verb(sg="rit", pl="rient")],
        [],
        [],
    )
    goods = [g for g, _ in _pairs(lex, "simple_agrmt")]
    assert "le héros dort" in goods and "l'homme dort" in goods


def test_french_noun_without_gender_is_a_config_error() -> None:
    lex = _lex("fr", [Noun(sg="dame", pl="dames")], [Verb(sg="dort", pl="dorment")], [], [])
    with pytest.raises(ConfigError, match="needs a gender"):
        list(generate_pairs(lex, "simple_agrmt"))


def test_german_subject_relative_object_is_accusative() -> None:
    goods = {g for g, _ in _pairs(DE, "subj_rel")}
    assert "der feind , der den bauern mag , zweifelt" in goods  # reference: "der der bauer" (nominative)
    assert "der feind , der den matrosen mag , zweifelt" in goods  # weak noun: -n in the accusative
    assert "die schwester , die das mitglied mag , zweifelt" in goods
    assert "das kind , das die familie mag , zweifelt" in goods
    assert "die feinde , die die bauern mögen , zweifeln" in goods
    assert not any(" , der der " in g or " , die der " in g for g in goods)


def test_german_object_relative_pronoun_agrees_with_the_head() -> None:
    within = _pairs(DE, "obj_rel_within_anim")
    assert (
        "die feinde , die der bauer mag , zweifeln",
        "die feinde , die die bauern mag , zweifeln",
    ) in within
    assert (
        "der feind , den die bauern mögen , zweifelt",
        "der feind , den der bauer mögen , zweifelt",
    ) in within
    assert (
        "das kind , das die familien mögen , zweifelt",
        "das kind , das die familie mögen , zweifelt",
    ) in within
    for good, bad in within:  # the pronoun never changes within a pair
        assert good.split(" , ")[1].split()[0] == bad.split(" , ")[1].split()[0]
    across = {g for g, _ in _pairs(DE, "obj_rel_across_anim")}
    assert "die schwester , die der matrose mag , zweifelt" in across
    assert "der feind , den der matrose mag , zweifelt" in across


def test_german_prepositions_take_the_dative() -> None:
    goods = {g for g, _ in _pairs(DE, "prep_anim")}
    for s in (
        "der feind vor dem bauern zweifelt",
        "der feind neben den mitgliedern zweifelt",
        "der feind hinter der familie zweifelt",
        "der feind in der nähe vom matrosen zweifelt",
        "der feind gegenüber den familien zweifelt",
        "der feind in der nähe von der familie zweifelt",
    ):
        assert s in goods


def test_german_declension_helpers() -> None:
    assert [
        de_is_weak(Noun(sg=s, pl=p, gender="Masc"))
        for s, p in [
            ("kollege", "kollegen"),
            ("präsident", "präsidenten"),
            ("polizist", "polizisten"),
            ("bauer", "bauern"),
            ("doktor", "doktoren"),
            ("feind", "feinde"),
            ("vater", "väter"),
            ("mensch", "menschen"),
        ]
    ] == [True, True, True, True, False, False, False, True]
    assert de_noun_form(Noun(sg="herr", pl="herren", gender="Masc"), "sg", "acc") == "herrn"
    assert de_noun_form(Noun(sg="kind", pl="kinder", gender="Neut"), "pl", "dat") == "kindern"
    assert de_noun_form(Noun(sg="auto", pl="autos", gender="Neut"), "pl", "dat") == "autos"
    assert German().pp("von", Noun(sg="kind", pl="kinder", gender="Neut"), "sg") == ["vom", "kind"]


def test_seeded_coordination_order_varies_but_is_reproducible() -> None:
    verbs = [Verb(sg=f"v{i}s", pl=f"v{i}") for i in range(6)]
    lex = _lex("en", [Noun(sg="cat", pl="cats")], verbs, [], [])
    file_order = [(p.verb_first, p.verb) for p in generate_pairs(lex, "vp_coord", coord_order="file")]
    assert all(a < b for a, b in file_order)
    s1 = [(p.verb_first, p.verb) for p in generate_pairs(lex, "vp_coord", coord_order="seeded", seed=3)]
    s2 = [(p.verb_first, p.verb) for p in generate_pairs(lex, "vp_coord", coord_order="seeded", seed=3)]
    assert s1 == s2 and s1 != file_order and sorted(map(sorted, s1)) == sorted(map(sorted, file_order))


def test_unknown_language() -> None:
    with pytest.raises(ConfigError, match="supported: en, fr, de"):
        grammar_for("nl")
