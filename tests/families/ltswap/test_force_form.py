"""``--force-form``: guided decoding that keeps the exact word form in each writer sentence."""

from __future__ import annotations

import re

import pytest

from corpusbench.errors import ConfigError
from corpusbench.families.ltswap.generation import (
    GUIDED_MAX_TOKENS,
    agreement_request,
    form_regex,
    pair_regex,
    sv_verb,
    word_outcome,
    word_request,
)
from corpusbench.families.ltswap.pipeline import LtswapParams, run_ltswap
from corpusbench.families.ltswap.records import InflectionPair
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.records import GenResult
from tests.families.ltswap.test_pipeline import RuleLLM


def test_varied_openings_are_seeded_and_keep_the_target_away_from_a_telling_word():
    from corpusbench.families.ltswap.generation import OPENINGS, opening

    assert form_regex("mended", "VBD", seed=3) == form_regex("mended", "VBD", seed=3)  # reproducible
    firsts = {opening(f"w{i}", "NN", 0)[0].split(" ")[0] for i in range(60)}
    assert len(firsts) >= 8  # many openings, not one per tag
    rx = form_regex("heavens", "NNS", seed=0, marked=True)
    det = next(o for o in OPENINGS["NNS+"] if rx.startswith(o + " "))
    assert re.fullmatch(rx, f"{det} fair heavens shone above us.")
    assert not re.fullmatch(rx, f"{det} heavens heavens shone above us.")  # an adjective of the list
    assert not re.fullmatch(rx, f"{det} heavens shone above us.")  # an adjective between determiner and noun
    rx = form_regex("purse", "NN", seed=0)
    assert rx.split(" purse")[0].endswith("the")  # "the", never a/an chosen by the target's first letter
    rx = form_regex("mend", "VB", seed=0, marked=True)  # InflectionSwap: an adverb if the writer wants one
    modal = next(o for o in OPENINGS["VB"] if rx.startswith(o + "("))
    assert re.fullmatch(rx, f"{modal} never mend the nets.") and re.fullmatch(rx, f"{modal} mend the nets.")
    assert not re.fullmatch(rx, f"{modal} soon mend the nets.")
    assert "never" not in form_regex("mend", "VB", seed=0)  # WordSwap: none (#37: "must always portend")
    for tag in ("VBD", "VBZ"):  # a noun subject right before the verb, not a pronoun
        assert OPENINGS[tag][0].split(" ")[-1] not in ("he", "she", "it", "they")


@pytest.mark.parametrize(
    ("form", "tag", "text", "ok"),
    [
        ("see", "VB", "I will see the sun.", True),
        ("see", "VB", "They can see it, now!", True),
        ("see", "VB", "They see it.", False),  # a modal first: "They saw it" would stay grammatical
        ("see", "VB", "The old men who live here can see it.", False),  # the form comes after the opening
        ("see", "VB", "I saw the sun.", False),  # another form
        ("see", "VB", "I will see it. Then I slept.", False),  # one sentence only
        ("see", "VB", "I will see it", False),  # no final stop
        ("mended", "VBD", "She mended the coat.", True),
        ("mended", "VBD", "The woman mended the coat.", True),
        ("mended", "VBD", "They mended the coat.", False),  # "They mend" would stay grammatical
        ("mended", "VBD", "She recommended the coat.", False),  # inside another word
        ("mending", "VBG", "They were mending nets.", True),
        ("mending", "VBG", "They was mending nets.", False),  # the auxiliary agrees with its subject
        ("mends", "VBZ", "The king mends coats.", True),
        ("mends", "VBZ", "The tailorsmith mends coats.", False),  # no free word to merge others into
        ("thing", "NN", "They found a thing in the hay.", True),
        ("thing", "NN", "They found the thing in the hay.", False),  # "the things" would stay grammatical
        ("thing", "NN", "They found an thing.", False),  # the article fits the form
        ("apple", "NN", "We ate an apple.", False),  # verbs that say something of the noun: no "ate"
        ("apple", "NN", "We bought an apple.", True),
        ("thing", "NN", "They found a broken thing.", False),  # no slot to fill with a lookalike
        ("thing", "NN", "The toys broke.", False),
        ("sparrows", "NNS", "We heard many sparrows at dawn.", True),
        ("sparrows", "NNS", "We heard the sparrows at dawn.", False),
        ("sparrows", "NNS", "We heard a sparrows at dawn.", False),  # a plural determiner
        ("sparrows", "NNS", "We saw the sparrows'\nnest.", False),
    ],
)
def test_form_regex_fixed_frames(form, tag, text, ok):
    assert bool(re.fullmatch(form_regex(form, tag, "fixed"), text)) is ok


def test_form_regex_escapes_the_form_and_knows_its_tags():
    assert re.fullmatch(form_regex("o'er", "VB", "fixed"), "They shall o'er the hill.")
    assert not re.fullmatch(form_regex("a.b", "NN", "fixed"), "They saw the axb.")
    with pytest.raises(ConfigError, match="frame style"):
        form_regex("manger", "NN", "free")
    with pytest.raises(ConfigError, match="no sentence frame for tag 'VINF'"):
        form_regex("manger", "VINF")


def test_pair_regex():
    rx = pair_regex("dog", "dogs")
    assert re.fullmatch(rx, "Singular: The dog barks.\nPlural: The dogs bark.")
    assert re.fullmatch(rx, "Singular: This dog is good.\nPlural: These dogs are good.")
    assert not re.fullmatch(rx, "Singular: The cat meows.\nPlural: The dogs bark.")
    assert not re.fullmatch(rx, "The dog barks.\nThe dogs bark.")


def test_requests_carry_the_regex_only_when_forced():
    plain, forced = word_request("mended", "VBD", 96), word_request("mended", "VBD", 96, force_form=True)
    assert plain.regex is None and plain.params.max_tokens == 96
    assert forced.regex == form_regex("mended", "VBD") and forced.params.max_tokens == GUIDED_MAX_TOKENS
    assert (forced.prompt, forced.system, forced.id) == (plain.prompt, plain.system, plain.id)
    pair = InflectionPair(
        lemma="dog", pos="NOUN", form1="dog", tag1="NN", freq1=3, form2="dogs", tag2="NNS", freq2=2, bin=2
    )
    agr = agreement_request(pair, "SVSHORT", 0, 0.5, 0, 160, force_form=True)
    verb = sv_verb(pair.id, "SVSHORT", 0, 0)  # the seeded verb right after the noun (#37)
    assert agr.regex == pair_regex("dog", "dogs", "SVSHORT", verb)
    assert agr.params.max_tokens == 2 * GUIDED_MAX_TOKENS
    assert agreement_request(pair, "SVSHORT", 0, 0.5, 0, 160).regex is None


def test_guided_reply_cut_at_max_tokens_is_dropped():
    cut = GenResult(id="w", status="ok", text="Gleaning is the act of", finish_reason="length")
    assert word_outcome(cut, "glean", {}, "en", guided=True).reason == "cut_off"
    assert word_outcome(cut, "glean", {}, "en").reason == "target_missing"  # unguided: as before


class NoGuideLLM(RuleLLM):
    name = "noguide"
    guided_regex = False


class RecordingLLM(RuleLLM):
    """Keeps every generation request (with its regex)."""

    def __init__(self):
        super().__init__()
        self.requests = []

    def generate(self, reqs, on_result=None):
        self.requests += list(reqs)
        return super().generate(reqs, on_result)


def test_force_form_is_english_only():
    with pytest.raises(ConfigError, match="English only"):
        LtswapParams(lang="fr", force_form=("wordswap",))
    with pytest.raises(ConfigError, match="unknown"):
        LtswapParams(force_form=("nouns",))
    assert LtswapParams(lang="fr").force_form == () and LtswapParams(
        force_form="wordswap,agrswap"
    ).force_form == (
        "wordswap",
        "agrswap",
    )


def test_forced_run_sends_each_word_its_regex(slice_stats, tmp_path):
    backend = RecordingLLM()
    params = LtswapParams(max_per_bin=2, subtasks=("wordswap",), force_form=("wordswap",))
    res = run_ltswap(slice_stats, CachedLLM(backend, None), params, tmp_path / "a")
    assert res.manifest["parameters"]["force_form"] == ("wordswap",) and res.quadruplets["wordswap"]
    sent = backend.requests
    vocab = slice_stats.vocabulary  # openings only of words the corpus has
    assert sent and all(r.regex == form_regex(*r.id[5:].rsplit("/", 1), vocab=vocab) for r in sent)


def test_forced_on_a_backend_that_cannot_is_a_one_line_error(slice_stats, tmp_path):
    params = LtswapParams(max_per_bin=1, subtasks=("agrswap",), force_form=("agrswap",))
    with pytest.raises(ConfigError, match="noguide LLM backend cannot constrain decoding") as e:
        run_ltswap(slice_stats, CachedLLM(NoGuideLLM(), None), params, tmp_path / "c")
    assert "\n" not in str(e.value)


def test_openings_use_only_corpus_words_when_some_do():
    from corpusbench.families.ltswap.generation import OPENINGS, opening

    vocab = {w.lower(): 1 for o in OPENINGS["VBZ"][1:] for w in o.split(" ")}
    picks = {opening(f"w{i}", "VBZ", vocab=vocab)[0] for i in range(40)}
    assert OPENINGS["VBZ"][0] not in picks and len(picks) > 3
    assert opening("w1", "VBZ", vocab={})[0] in OPENINGS["VBZ"]  # none fits: all of them
