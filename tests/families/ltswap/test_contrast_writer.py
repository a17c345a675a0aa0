"""Writer prompt v6, the contrastive writer (#37): WordSwap pairs are made before writing, and each
sentence is written against its partner word, which the prompt names and the sentence must not contain."""

from corpusbench.families.ltswap import prompting
from corpusbench.families.ltswap.generation import plan_word_pairs, word_outcome, word_request
from corpusbench.families.ltswap.pipeline import LtswapParams, plan_ltswap, run_ltswap
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.records import GenResult
from corpusbench.llm.scripted import ScriptedBackend
from tests.families.ltswap.test_pipeline import ENDINGS, WORD_FRAMES, RuleLLM

PARAMS = LtswapParams(max_per_bin=4, seed=0, subtasks=("wordswap",), pairs_per_word=2, writer_prompt="v6")


def test_v6_prompt_names_both_words_and_v5_stays_for_single_words():
    r = word_request("vault", "NN", 96, writer="v6", examples=("The king spake .",), partner="fleet")
    assert '"vault"' in r.prompt and '"fleet"' in r.prompt and r.id == "word:vault/NN~fleet"
    assert "second word" in r.system and "The king spake ." in r.system
    guided = word_request("vault", "NN", 96, writer="v6", force_form=True, partner="fleet")
    assert guided.regex is not None and "vault" in guided.regex  # the form is still forced
    # without a partner (InflectionSwap) v6 asks exactly what v5 asks: answers cached under v5 are reused
    v5, v6 = word_request("vaults", "NNS", 96, writer="v5"), word_request("vaults", "NNS", 96, writer="v6")
    assert (v5.system, v5.prompt, v5.id) == (v6.system, v6.prompt, v6.id)
    assert prompting.WORD_V6_CONTRAST in prompting.prompt_hashes()


def test_partner_word_in_the_sentence_rejects_it():
    vocab = dict.fromkeys(
        ["then", "Then", "the", "was", "filled", "with", "gold", "fleet", "vault", "and", "."], 5
    )
    ok = GenResult(id="x", text="Then the vault was filled with gold.", status="ok")
    bad = GenResult(id="x", text="Then the vault and the fleet were filled with gold.", status="ok")
    assert word_outcome(ok, "vault", vocab, "en", ("fleet",)).stage == "checked"
    o = word_outcome(bad, "vault", vocab | {"were": 5}, "en", ("fleet",))
    assert (o.stage, o.reason) == ("parsed", "other_word_present")


def test_pairs_are_planned_per_group_and_stable_when_the_draw_grows(slice_stats):
    words = plan_ltswap(slice_stats, PARAMS).words
    pairs = plan_word_pairs(words, 2)
    assert pairs and all((a.bin, a.tag) == (b.bin, b.tag) and a.lemma != b.lemma for a, b in pairs)
    per_word = {w.form: sum(w.form in (a.form, b.form) for a, b in pairs) for w in words}
    assert max(per_word.values()) <= 2
    fewer = plan_word_pairs(words[:-1], 2)
    neighbours = {(a.form, b.form) for a, b in fewer} & {(a.form, b.form) for a, b in pairs}
    assert len(neighbours) >= len(fewer) - 2


class ContrastLLM(RuleLLM):
    """RuleLLM answering a v6 request (``word:form/tag~partner``) with its template sentence; every
    sentence written against ``leaky`` also contains that partner word."""

    def __init__(self, leaky=""):
        super().__init__()
        self.leaky, self.partners = leaky, []

    def generate(self, reqs, on_result=None):
        if not any(r.id.startswith("word:") and "~" in r.id for r in reqs):
            return super().generate(reqs, on_result)
        for r in reqs:
            form, rest = r.id[5:].rsplit("/", 1)
            tag, partner = rest.split("~", 1)
            self.partners.append(partner)
            text = WORD_FRAMES[tag].format(form, ENDINGS[sum(map(ord, form)) % 4])
            if partner == self.leaky:
                text = text.rstrip(".") + f" and the {partner}."
            self.replies[r.prompt] = f"[{text}]"
        return ScriptedBackend.generate(self, reqs, on_result)


def test_v6_run_writes_each_sentence_against_its_partner(slice_stats, tmp_path):
    llm = ContrastLLM()
    res = run_ltswap(slice_stats, CachedLLM(llm, tmp_path / "c.sqlite"), PARAMS, tmp_path / "out")
    quads = res.quadruplets["wordswap"]
    assert quads and llm.partners
    planned = {(a.form, b.form) for a, b in plan_word_pairs(plan_ltswap(slice_stats, PARAMS).words, 2)}
    assert {(q.w1, q.w2) for q in quads} <= planned
    assert res.manifest["parameters"]["writer_prompt"] == "v6"


def test_v6_run_drops_a_sentence_holding_its_partner(slice_stats, tmp_path):
    words = plan_ltswap(slice_stats, PARAMS).words
    a, b = plan_word_pairs(words, 2)[0]
    llm = ContrastLLM(leaky=b.form)
    res = run_ltswap(slice_stats, CachedLLM(llm, tmp_path / "c.sqlite"), PARAMS, tmp_path / "out")
    assert all(b.form not in (q.w1, q.w2) or a.form not in (q.w1, q.w2) for q in res.quadruplets["wordswap"])
    assert res.funnel.reason_totals("wordswap").get("other_word_present", 0) >= 1
