"""``--labelled-first`` (#37 round nine): quadruplets labellers approved are drawn, paired and judged before
unlabelled ones; the judge still decides, and the run counts the kept items labellers had approved."""

from __future__ import annotations

import json
from dataclasses import asdict, replace

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ParamError
from corpusbench.families.ltswap.generation import pair_words
from corpusbench.families.ltswap.params import LtswapFamilyParams, labelled_filter
from corpusbench.families.ltswap.pipeline import LtswapParams, approved_first, run_ltswap
from corpusbench.families.ltswap.records import Candidate, InflectionPair, Parsed
from corpusbench.families.ltswap.release import labelled_line
from corpusbench.families.ltswap.validity import label_filter
from corpusbench.llm.cache import CachedLLM
from tests.families.ltswap.test_drop_labelled import _row, _write
from tests.families.ltswap.test_pipeline import RuleLLM

PARAMS = LtswapParams(per_cell=1, max_per_bin=200, seed=0, subtasks=("wordswap",))

QUAD = {
    "subtask": "wordswap",
    "w1": "otter",
    "w2": "beaver",
    "tag1": "NN",
    "tag2": "NN",
    "s1_good": "The otter swam.",
    "s1_bad": "The beaver swam.",
    "s2_good": "A beaver dam.",
    "s2_bad": "An otter dam.",
}


def test_approved_means_every_labeller_said_valid(tmp_path) -> None:
    _write(tmp_path / "a.jsonl", [_row(QUAD, ["valid", "valid"])])
    one = label_filter([tmp_path])
    assert one.approves([("The otter swam.", "The beaver swam."), ("A beaver dam.", "An otter dam.")])
    assert one.words_first("wordswap") == [(("otter", "NN"), ("beaver", "NN"))]
    assert one.words_first("inflswap") == []
    assert one.describe()["pairs_valid"] == 2
    _write(tmp_path / "b.jsonl", [_row(QUAD, ["valid", "marginal"])])  # a second labeller doubts pair 2
    two = label_filter([tmp_path])
    assert not two.approves([("The otter swam.", "The beaver swam."), ("A beaver dam.", "An otter dam.")])
    assert two.valid == {("The otter swam.", "The beaver swam.")} and two.words_first("wordswap") == []
    assert two.digest != one.digest


def _word(form: str) -> Candidate:
    return Candidate(
        form=form,
        tag="NN",
        pos="NOUN",
        lemma=form,
        freq=5,
        bin=3,
        cluster_freq=5,
        inflections=(),
        contexts=(f"A {form} here.",),
    )


def test_approved_words_come_first_and_the_rest_keep_their_order() -> None:
    words = [_word(f) for f in ("ant", "bee", "cat", "dog", "eel")]
    approved = [(("eel", "NN"), ("bee", "NN")), (("zebra", "NN"), ("cat", "NN"))]
    out = approved_first({(3, "NN"): words}, approved, "wordswap")
    assert [w.form for w in out[(3, "NN")]] == ["eel", "bee", "cat", "ant", "dog"]


def test_a_word_approved_as_a_noun_keeps_its_verb_reading_in_seeded_order() -> None:
    nouns = [_word(f) for f in ("ant", "bee", "cat")]
    verbs = [replace(w, tag="VB", pos="VERB") for w in nouns]
    out = approved_first({(3, "NN"): nouns, (3, "VB"): verbs}, [(("cat", "NN"), ("bee", "NN"))], "wordswap")
    assert [w.form for w in out[(3, "NN")]] == ["cat", "bee", "ant"]
    assert [w.form for w in out[(3, "VB")]] == ["ant", "bee", "cat"]

    # inflection pairs: matched by their part of speech (the labels' tags, NN/NNS -> NOUN)
    def ip(lemma: str, plural: str, pos: str, t1: str, t2: str) -> InflectionPair:
        return InflectionPair(
            lemma=lemma, pos=pos, form1=lemma, tag1=t1, freq1=5, form2=plural, tag2=t2, freq2=5, bin=3
        )

    pairs = {
        pos: [ip("wonder", "wonders", pos, t1, t2), ip("ark", "arks", pos, t1, t2)]
        for pos, t1, t2 in (("NOUN", "NN", "NNS"), ("VERB", "VB", "VBZ"))
    }
    out = approved_first(pairs, [(("arks", "NNS"), ("ark", "NN"))], "inflswap")
    assert [p.form1 for p in out["NOUN"]] == ["ark", "wonder"]
    assert [p.form1 for p in out["VERB"]] == ["wonder", "ark"]


def test_labelled_pairs_are_formed_before_the_seeded_matchings() -> None:
    words = [_word(f) for f in ("ant", "bee", "cat", "dog")]
    texts = {w.form: f"The {w.form} sat on mat {n}." for n, w in enumerate(words)}
    parsed = {f: Parsed(text=t, start=4, end=4 + len(f)) for f, t in texts.items()}
    plain, _ = pair_words(words, parsed, 1, 0, "en")
    pairs = {(d.w1, d.w2) for d in plain}
    missing = next(
        (a.form, b.form) for a in words for b in words if a.form < b.form and (a.form, b.form) not in pairs
    )
    first, _ = pair_words(words, parsed, 1, 0, "en", [((missing[0], "NN"), (missing[1], "NN"))])
    assert (first[0].w1, first[0].w2) == missing
    assert [(d.w1, d.w2) for d in first[1:]] == [(d.w1, d.w2) for d in plain]
    as_verbs, _ = pair_words(words, parsed, 1, 0, "en", [((missing[0], "VB"), (missing[1], "VB"))])
    assert [(d.w1, d.w2) for d in as_verbs] == [(d.w1, d.w2) for d in plain]  # approved as verbs: not here


@pytest.fixture(scope="module")
def wide(slice_stats, tmp_path_factory):
    """A run with cells of 3: its kept quadruplets are what a run with cells of 1 could keep."""
    out = tmp_path_factory.mktemp("labelled_first")
    res = run_ltswap(
        slice_stats, CachedLLM(RuleLLM(), out / "cache.sqlite"), replace(PARAMS, per_cell=3), out / "wide"
    )
    return out, res


def test_an_approved_quadruplet_fills_its_cell_first(wide, slice_stats, tmp_path) -> None:
    out, res = wide
    narrow = run_ltswap(slice_stats, CachedLLM(RuleLLM(), out / "cache.sqlite"), PARAMS, tmp_path / "plain")
    plain = {(q.s1_good, q.s2_good) for q in narrow.quadruplets["wordswap"]}
    q = next(x for x in res.quadruplets["wordswap"] if (x.s1_good, x.s2_good) not in plain)
    labels = tmp_path / "labels.jsonl"
    _write(labels, [_row(asdict(q), ["valid", "valid"])])
    again = run_ltswap(
        slice_stats,
        CachedLLM(RuleLLM(), out / "cache.sqlite"),
        replace(PARAMS, labelled_first=("wordswap",)),
        tmp_path / "first",
        labelled=label_filter([labels]),
    )
    kept = {(x.s1_good, x.s2_good) for x in again.quadruplets["wordswap"] if x.bin == q.bin}
    assert kept == {(q.s1_good, q.s2_good)}  # the cell of 1 holds the approved quadruplet
    assert again.manifest["labelled"]["approved_kept"]["wordswap"] == 1
    assert again.manifest["parameters"]["labelled_first"] == ("wordswap",)
    line, n = labelled_line(again.manifest, "wordswap"), len(again.quadruplets["wordswap"])
    assert f"1 of the {n} kept quadruplets had both pairs approved" in line
    assert "judged first: `labelled_first`" in line
    # the same labels without --labelled-first only count it: the plain draw and order stand
    counted = run_ltswap(
        slice_stats,
        CachedLLM(RuleLLM(), out / "cache.sqlite"),
        PARAMS,
        tmp_path / "counted",
        labelled=label_filter([labels]),
    )
    assert {(x.s1_good, x.s2_good) for x in counted.quadruplets["wordswap"]} == plain
    assert counted.manifest["labelled"]["approved_kept"]["wordswap"] == 0
    assert "judged first" not in labelled_line(counted.manifest, "wordswap")


def test_labelled_first_needs_labels(tmp_path) -> None:
    with pytest.raises(ParamError, match="labelled_first"):
        labelled_filter(LtswapFamilyParams(labelled_first=("wordswap",)))
    with pytest.raises(ParamError, match="labelled_first"):
        LtswapParams(labelled_first="wordswap,nouns")
    res = CliRunner().invoke(
        app, ["ltswap", "build", "x", "--out", str(tmp_path / "o"), "--labelled-first", "wordswap"]
    )
    assert res.exit_code != 0 and "--labelled-first: needs label files" in res.output
    assert not (tmp_path / "o" / "manifest.json").exists()
    assert json.dumps(LtswapParams(labelled_first="inflectionswap").labelled_first) == '["inflswap"]'
