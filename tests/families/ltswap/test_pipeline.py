"""The whole LT-Swap run with a rule-scripted LLM: outputs, funnel, filter, determinism, resume, CLI."""

import itertools
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import BackendError, ConfigError
from corpusbench.families.ltswap import prompting
from corpusbench.families.ltswap.bins import ltswap_bin
from corpusbench.families.ltswap.checks import token_spans
from corpusbench.families.ltswap.funnel import STAGES
from corpusbench.families.ltswap.pipeline import LtswapParams, run_ltswap
from corpusbench.families.ltswap.records import AGREEMENT_RULES, SUBTASKS
from corpusbench.llm.cache import CachedLLM
from corpusbench.llm.scripted import Crash, ScriptedBackend

WORD_FRAMES = {
    "NN": "And the {} was {}.",
    "NNS": "And the {} were {}.",
    "VB": "I will {} it {}.",
    "VBD": "Then he {} it {}.",
    "VBG": "He was {} it {}.",
    "VBZ": "He {} it {}.",
}
ENDINGS = ("there", "here", "now", "good")  # by word, so that two words rarely share a sentence frame
AGR_FRAMES = {
    "SVSHORT": "Singular: [The {sg} is here.]\nPlural: [The {pl} are here.]",
    "SVLONG": "[The {sg} that can be seen is good.] [The {pl} that can be seen are good.]",
    "ANAPHORSHORT": "Sure!\n1. The {sg} hurt itself.\n2. The {pl} hurt themselves.",
    "ANAPHORLONG": "[The {sg} that can be seen hurt itself.] [The {pl} that can be seen hurt themselves.]",
    "DET": "[This {sg} is good.] [These {pl} are good.]",
}


class RuleLLM(ScriptedBackend):
    """Scripted by request id: template sentences, "yes" to every lemma question, and a judge that
    answers as expected except on quadruplets with a word in ``wrong``. ``crash_after``: the backend
    dies after that many generations (a killed run)."""

    def __init__(self, wrong=frozenset(), crash_after=None):
        super().__init__(model="rule-scripted")
        self.wrong, self.crash_after, self.generated = set(wrong), crash_after, 0

    def generate(self, reqs, on_result=None):
        for r in reqs:
            if r.id.startswith("word:"):
                form, tag = r.id[5:].rsplit("/", 1)
                reply = f"[{WORD_FRAMES[tag].format(form, ENDINGS[sum(map(ord, form)) % 4])}]"
            else:
                _, pair, rule, _ = r.id.split(":", 3)[0], r.id.split(":")[2], r.id.split(":")[3], None
                sg, pl = (x.split("/")[0] for x in pair.split("~"))
                reply = AGR_FRAMES[rule].format(sg=sg, pl=pl)
            self.replies[r.prompt] = reply
        if self.crash_after is not None:
            keep = reqs[: max(0, self.crash_after - self.generated)]
            out = super().generate(keep, on_result)
            self.generated += len(keep)
            if len(keep) < len(reqs):
                self.replies[reqs[len(keep)].prompt] = Crash("server died")
                super().generate(reqs[len(keep) :], on_result)
            return out
        return super().generate(reqs, on_result)

    def answer_top_tokens(self, reqs, k, on_item=None):
        for r in reqs:
            if r.id.startswith("lemma:"):
                self.top[r.prompt] = [("yes", -0.1), ("no", -2.3)]
            elif r.id.startswith("judge:pointwise:"):  # sentences 0, 2 are good, 1, 3 swapped
                good = int(r.id.rsplit(":", 1)[1]) % 2 == 0
                if set(re.split(r"[:~]", r.id)) & self.wrong:
                    good = not good
                self.top[r.prompt] = [("yes", -0.1), ("no", -2.5)] if good else [("no", -0.1), ("yes", -2.5)]
            else:
                want = "AB"[int(r.id.rsplit(":", 1)[1]) % 2]
                words = set(re.split(r"[:~]", r.id))
                if words & self.wrong:
                    want = "B" if want == "A" else "A"
                self.top[r.prompt] = [(want, -0.1), ("B" if want == "A" else "A", -2.5)]
        return super().answer_top_tokens(reqs, k, on_item)


PARAMS = LtswapParams(max_per_bin=3, seed=0)


@pytest.fixture(scope="module")
def first_run(slice_stats, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    backend = RuleLLM()
    llm = CachedLLM(backend, out / "cache.sqlite")
    return out, run_ltswap(slice_stats, llm, PARAMS, out / "lt"), backend


def test_outputs_and_quadruplets(first_run, slice_stats):
    out, res, _ = first_run
    vocab = slice_stats.vocabulary
    for sub in SUBTASKS:
        df = pd.read_parquet(out / "lt" / f"{sub}.parquet")
        assert len(df) == len(res.quadruplets[sub]) > 0, sub
        assert df["id"].is_unique
        for q in df.itertuples():
            good1 = [t for t, _, _ in token_spans(q.s1_good)]
            bad1 = [t for t, _, _ in token_spans(q.s1_bad)]
            diff = [(a, b) for a, b in zip(good1, bad1, strict=True) if a != b]
            assert [(a.lower(), b.lower()) for a, b in diff] == [
                (q.w1, q.w2)
            ]  # only the swapped word differs
            good2 = [t for t, _, _ in token_spans(q.s2_good)]
            assert [
                b.lower()
                for a, b in zip(good2, [t for t, _, _ in token_spans(q.s2_bad)], strict=True)
                if a != b
            ] == [q.w1]
            for s in (q.s1_good, q.s2_good, q.s1_bad, q.s2_bad):
                assert s[0].isupper() and s.endswith(".")  # same casing rule for good and bad
            assert all(p in vocab for t in good1 if t.lower() != q.w1 for p in re.findall(r"\w+", t.lower()))
            if sub == "wordswap":
                assert q.tag1 == q.tag2 and q.bin == ltswap_bin(q.freq_w1) == ltswap_bin(q.freq_w2) >= 1
                assert q.context1 and q.context2 and q.rule in ("NOUN", "VERB")
            else:
                assert q.bin == ltswap_bin(min(q.freq_w1, q.freq_w2))
            if sub == "agrswap":
                assert q.rule in AGREEMENT_RULES
                assert q.s1_good.split()[-1] in {"is.", "itself.", f"{q.w1}."}  # cut after the marker
                if q.rule == "DET":
                    assert q.s1_good == f"This {q.w1}." and q.s2_good == f"These {q.w2}."
        assert (df["filter_margin"] > 2.0).all()


def test_funnel_and_manifest(first_run):
    out, res, _ = first_run
    rows = res.funnel.rows()
    assert len(rows) == 3 * 11  # empty bins are rows of zeros, not errors
    for r in rows:
        for a, b in itertools.pairwise(STAGES[:5]):
            assert r[a] >= r[b], (r, a, b)
        assert r["paired"] >= r["kept"]
    for sub in SUBTASKS:
        assert res.funnel.totals(sub)["kept"] == len(res.quadruplets[sub])
    m = res.manifest
    assert m["corpus"]["fingerprint"]["sha256"] and m["code"]["corpusbench"]
    assert m["llm"]["backend"] == "scripted" and m["prompts"] == prompting.prompt_hashes()
    assert m["parameters"]["writer_prompt"] == "v3"
    assert m["counts"] == {s: len(q) for s, q in res.quadruplets.items()}
    assert (out / "lt" / "funnel.json").exists() and (out / "lt" / "candidates.parquet").exists()
    sents = m["sentences"]  # every sentence written per subtask, and the share that passed the checks
    assert sents["wordswap"]["written"] == sum(r["generated"] for r in rows if r["subtask"] == "wordswap")
    assert sents["wordswap"]["passed"] == res.funnel.totals("wordswap")["checked"]
    for sub, r in sents.items():
        assert 0 < r["passed"] <= r["written"] and r["share"] == round(r["passed"] / r["written"], 3), sub


def test_filter_drops_what_the_judge_gets_wrong(first_run, slice_stats, tmp_path):
    _, res, _ = first_run
    victim = res.quadruplets["wordswap"][0].w1
    llm = CachedLLM(RuleLLM(wrong={victim}), tmp_path / "c.sqlite")
    res2 = run_ltswap(slice_stats, llm, PARAMS, tmp_path / "lt")
    assert victim not in {q.w1 for q in res2.quadruplets["wordswap"]} | {
        q.w2 for q in res2.quadruplets["wordswap"]
    }
    assert res2.funnel.reason_totals("wordswap")["filter_below_threshold"] >= 1  # default rule: pointwise
    assert len(res2.quadruplets["agrswap"]) == len(res.quadruplets["agrswap"])
    assert res2.manifest["judge"]["rule"] == "pointwise" and res2.manifest["judge"]["prompts"]


@pytest.mark.parametrize("rule", ["strict", "debiased"])
def test_pairwise_rules_drop_what_the_judge_gets_wrong(first_run, slice_stats, tmp_path, rule):
    _, res, _ = first_run
    victim = res.quadruplets["agrswap"][0].w1
    params = LtswapParams(max_per_bin=3, seed=0, filter_rule=rule)
    res2 = run_ltswap(
        slice_stats, CachedLLM(RuleLLM(wrong={victim}), tmp_path / "c.sqlite"), params, tmp_path / "o"
    )
    kept = res2.quadruplets["agrswap"]
    assert kept and victim not in {q.w1 for q in kept}
    reason = "filter_rejected" if rule == "strict" else "filter_below_threshold"
    assert res2.funnel.reason_totals("agrswap")[reason] >= 1
    assert all(q.filter_rule == rule and len(q.filter_margins) == 2 and q.filter_margin > 0 for q in kept)


def test_same_seed_and_cache_give_identical_output_without_calls(first_run, slice_stats, tmp_path):
    out, res, _ = first_run
    backend = RuleLLM()
    again = run_ltswap(slice_stats, CachedLLM(backend, out / "cache.sqlite"), PARAMS, tmp_path / "again")
    assert (
        backend.calls == [] and again.manifest["llm_report"]["calls"] == 0
    )  # everything came from the cache
    for sub in SUBTASKS:
        pd.testing.assert_frame_equal(
            pd.read_parquet(out / "lt" / f"{sub}.parquet"),
            pd.read_parquet(tmp_path / "again" / f"{sub}.parquet"),
        )
    other = run_ltswap(
        slice_stats,
        CachedLLM(RuleLLM(), tmp_path / "c2.sqlite"),
        LtswapParams(max_per_bin=3, seed=1),
        tmp_path / "seed1",
    )
    assert {q.id for q in other.quadruplets["wordswap"]} != {q.id for q in res.quadruplets["wordswap"]}


def test_killed_run_resumes_from_the_cache(first_run, slice_stats, tmp_path):
    _, res, first_backend = first_run
    cache = tmp_path / "cache.sqlite"
    with pytest.raises(BackendError):
        run_ltswap(slice_stats, CachedLLM(RuleLLM(crash_after=20), cache), PARAMS, tmp_path / "lt")
    assert not (tmp_path / "lt" / "manifest.json").exists()  # nothing half-written
    backend = RuleLLM()
    res2 = run_ltswap(slice_stats, CachedLLM(backend, cache), PARAMS, tmp_path / "lt")

    def count(b, op, lemma):
        return sum(o == op and ("same English" in p) == lemma for o, p in b.calls)

    # the 20 generations and all confirmations finished before the crash: none is sent again
    assert count(backend, "generate", False) == count(first_backend, "generate", False) - 20
    assert count(backend, "top", True) == 0 < count(first_backend, "top", True)
    assert count(backend, "top", False) == count(first_backend, "top", False)
    for sub in SUBTASKS:
        assert [q.id for q in res2.quadruplets[sub]] == [q.id for q in res.quadruplets[sub]]


def test_params_validation():
    with pytest.raises(ConfigError, match="en, fr, de"):
        LtswapParams(lang="nl")
    with pytest.raises(ConfigError, match="subtask"):
        LtswapParams(subtasks=("wordswap", "blimp"))
    with pytest.raises(ConfigError, match=r"^max_per_bin must be at least 1"):  # the CLI says --max-per-bin
        LtswapParams(max_per_bin=0)
    with pytest.raises(ConfigError, match="writer prompt 'v9'; choose from v2, v3"):
        LtswapParams(writer_prompt="v9")


def test_per_subtask_caps(slice_stats):
    """A cap per subtask samples each subtask as the single cap of that size would (same seeded draw)."""
    from corpusbench.families.ltswap.candidates import build_candidates
    from corpusbench.families.ltswap.lexicon import EnglishLexicon
    from corpusbench.families.ltswap.params import parse_caps
    from corpusbench.families.ltswap.pipeline import sample_items

    cands, _ = build_candidates(slice_stats, EnglishLexicon(), None)
    by_sub = sample_items(LtswapParams(max_per_bin={"agrswap": 1, "wordswap": 2, "inflswap": 3}), cands)
    single = {n: sample_items(LtswapParams(max_per_bin=n), cands) for n in (1, 2, 3)}
    assert [x.id for x in by_sub[0]] == [x.id for x in single[2][0]]  # wordswap: cap 2
    assert [x.id for x in by_sub[1]] == [x.id for x in single[3][1]]  # inflswap: cap 3
    assert [x.id for x in by_sub[2]] == [x.id for x in single[1][2]]  # agrswap: cap 1
    assert len(single[1][2]) < len(single[3][2])  # the caps do bite on this slice
    no_cap = LtswapParams(max_per_bin={"wordswap": 1})
    assert no_cap.cap("wordswap") == 1 and no_cap.cap("agrswap") is None
    assert parse_caps("4") == 4
    assert parse_caps("wordswap=3, agrswap=1") == {"wordswap": 3, "agrswap": 1}
    with pytest.raises(ConfigError, match="max-per-bin"):
        parse_caps("wordswap=three")
    with pytest.raises(ConfigError, match="unknown subtask"):
        LtswapParams(max_per_bin={"blimp": 2})
    with pytest.raises(ConfigError, match="at least 1"):
        LtswapParams(max_per_bin={"wordswap": 0})


def test_cli_with_an_llm_that_answers_nothing(slice_stats, tmp_path):
    out = tmp_path / "lt"
    r = CliRunner().invoke(
        app,
        [
            "ltswap",
            "build",
            "unused",
            "--stats",
            str(slice_stats.path),
            "--out",
            str(out),
            "--llm-backend",
            "scripted",
            "--max-per-bin",
            "1",
            "--rules",
            "SVSHORT,DET",
        ],
    )
    assert r.exit_code == 0, r.output
    for sub in SUBTASKS:
        assert pd.read_parquet(out / f"{sub}.parquet").empty
    # the scripted default names no option and holds no sentence ("(no answer)"; an empty reply
    # would be a failed call, exit 3: tests/llm/test_malformed_replies.py)
    assert "wordswap" in r.output and "target_missing" in r.output
    reasons = {x["reason"] for x in pd.read_json(out / "funnel.json", typ="series")["drop_reasons"]}
    assert {"target_missing", "confirm_no_answer"} <= reasons
    assert (out / "llm-cache.sqlite").exists()


def test_cli_bad_input(tmp_path, slice_stats):
    r = CliRunner().invoke(
        app, ["ltswap", "build", "x", "--stats", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]
    )
    assert r.exit_code == 2 and "not a corpusbench stats folder" in r.output
    r = CliRunner().invoke(
        app,
        [
            "ltswap",
            "build",
            "x",
            "--stats",
            str(slice_stats.path),
            "--out",
            str(tmp_path / "o"),
            "--lang",
            "de",
            "--llm-backend",
            "scripted",
        ],
    )
    assert r.exit_code == 2 and "stats are for language 'en', not 'de'" in r.output
