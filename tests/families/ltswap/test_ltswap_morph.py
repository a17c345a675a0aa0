"""French and German WordSwap candidates from the corpus tagger (spaCy fr, HanTa de) on small texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.stats import StatsParams, compute_stats
from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import ConfigError
from corpusbench.families.ltswap.generation import PosChecker, word_request
from corpusbench.families.ltswap.morph import build_morph_candidates, slot
from corpusbench.families.ltswap.pipeline import LtswapParams
from corpusbench.families.ltswap.records import Parsed

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module", params=["fr", "de"])
def lang_stats(request, tmp_path_factory) -> CorpusStats:
    lang = request.param
    corpus = tmp_path_factory.mktemp(f"ltswap-{lang}")
    (corpus / f"{lang}.txt").write_text((DATA / f"{lang}.txt").read_text(encoding="utf-8"), encoding="utf-8")
    out = corpus / "stats"
    compute_stats(CorpusSpec(path=str(corpus / f"{lang}.txt")), out, StatsParams(lang=lang))
    return CorpusStats.load(out)


def test_slots_from_features_and_stts():
    assert slot("NOUN", "NOUN", "Gender=Masc|Number=Plur") == "NNS"
    assert slot("NOUN", "NN", "") == "NN"
    assert slot("VERB", "VERB", "Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin") == "VFIN"
    assert slot("VERB", "VERB", "VerbForm=Inf") == "VINF"
    assert slot("VERB", "VVPP", "") == "VPART"
    assert slot("AUX", "VAFIN", "") is None and slot("ADJ", "ADJA", "") is None


def test_candidates_from_the_tagger(lang_stats):
    cands, report = build_morph_candidates(lang_stats)
    by_form = {c.form: c for c in cands}
    assert report.dropped["proper_noun"] >= 1 and report.dropped["not_noun_or_verb"] >= 10
    assert {c.pos for c in cands} == {"NOUN", "VERB"}
    for c in cands:
        assert c.form.isalpha() and c.bin == (1 if c.freq == 1 else 2 if c.freq < 4 else c.bin)
        assert sum(i.freq for i in c.inflections) == c.cluster_freq
        assert all(c.form in s.lower().split() for s in c.contexts)
    if lang_stats.language == "fr":
        assert by_form["lanternes"].tag == "NNS" and by_form["lanternes"].lemma == "lanterne"
        # the lemma cluster: boulanger (2) + boulangers (1) = 3 stays in bin [2,4)
        assert by_form["boulanger"].cluster_freq == 3 and "boulangers" not in by_form  # 1 vs cluster 3
        assert by_form["regardent"].tag == "VFIN" and by_form["regardent"].lemma == "regarder"
    else:
        assert by_form["hund"].cluster_freq == 3 and "hunde" not in by_form
        assert by_form["pflanzt"].tag == "VFIN" and by_form["pflanzt"].lemma == "pflanzen"
        assert "anna" not in by_form and "paul" not in by_form


def test_params_and_prompts_for_other_languages():
    assert LtswapParams(lang="fr").subtasks == ("wordswap",)
    with pytest.raises(ConfigError, match="only the wordswap subtask"):
        LtswapParams(lang="de", subtasks=("wordswap", "agrswap"))
    with pytest.raises(ConfigError, match="en, fr, de"):
        LtswapParams(lang="it")
    assert "German sentence" in word_request("laterne", "NN", 48, "de", "v2").prompt
    assert "French" in word_request("lanternes", "NNS", 48, "fr", "v2").prompt
    assert "English" in word_request("lanterns", "NNS", 48, writer="v2").prompt
    # v3 (default): the language is named in the fixed system turn; the user turn is the word alone
    de = word_request("laterne", "NN", 48, "de")
    assert "German sentence" in de.system and de.prompt == 'noun "laterne"'
    assert "French" in word_request("lanternes", "NNS", 48, "fr").system


def test_pos_check_uses_the_language_tagger():
    checker = PosChecker("fr")
    text = "Les enfants regardent les lanternes."
    s = text.index("lanternes")
    noun = Parsed(text=text, start=s, end=s + len("lanternes"))
    v = text.index("regardent")
    verb = Parsed(text=text, start=v, end=v + len("regardent"))
    assert checker.check([(noun, "NOUN"), (noun, "VERB"), (verb, "VERB")]) == [True, False, True]
