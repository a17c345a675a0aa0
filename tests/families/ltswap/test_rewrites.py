"""``--rewrites N``: an InflectionSwap form whose sentence failed while its partner's passed is written
again (sampled, a new seed: a new cache key); a passing rewrite completes the pair; a rerun sends nothing;
N = 0 changes nothing."""

from dataclasses import replace

import pytest

from corpusbench.errors import ConfigError
from corpusbench.families.ltswap.generation import REWRITE_TEMPERATURE
from corpusbench.families.ltswap.pipeline import LtswapParams, plan_ltswap, run_ltswap
from corpusbench.llm.cache import CachedLLM, gen_key
from tests.families.ltswap.test_pipeline import RuleLLM

PARAMS = LtswapParams(max_per_bin=3, seed=0, subtasks=("inflswap",))


class FirstTryMisses(RuleLLM):
    """RuleLLM whose first sentence for each form in ``miss`` leaves the form out (``target_missing``);
    its rewrites (``#rewrite`` ids) are the template sentence. Keeps every word request it gets."""

    def __init__(self, miss):
        super().__init__()
        self.miss, self.word_reqs = set(miss), []

    def generate(self, reqs, on_result=None):
        self.word_reqs += [r for r in reqs if r.id.startswith("word:")]
        sent = []
        for r in reqs:
            base = r.id.split("#")[0]
            if r.id.startswith("word:") and base == r.id and base[5:].rsplit("/", 1)[0] in self.miss:
                base = (
                    "word:kindred/" + base.rsplit("/", 1)[1]
                )  # another word's sentence: the form is missing
            sent.append(replace(r, id=base))
        return super().generate(sent, on_result)


@pytest.fixture(scope="module")
def missed(slice_stats):
    """The second form of the first three InflectionSwap pairs (forms in no other pair)."""
    infl = plan_ltswap(slice_stats, PARAMS).infl
    seen = [f for p in infl for f in (p.form1, p.form2)]
    pairs = [p for p in infl if seen.count(p.form2) == 1 and seen.count(p.form1) == 1][:3]
    assert len(pairs) == 3
    return pairs


def _run(stats, tmp_path, backend, params, name, cache="c.sqlite"):
    return run_ltswap(stats, CachedLLM(backend, tmp_path / cache), params, tmp_path / name)


def _pairs(res):
    return {(q.w1, q.w2) for q in res.quadruplets["inflswap"]}


def test_failed_side_is_rewritten_and_the_pair_kept(slice_stats, tmp_path, missed):
    miss = {p.form2 for p in missed}
    clean = _run(slice_stats, tmp_path, RuleLLM(), PARAMS, "clean", "clean.sqlite")
    want = {(p.form1, p.form2) for p in missed}
    assert want <= _pairs(clean)

    no = _run(slice_stats, tmp_path, FirstTryMisses(miss), PARAMS, "n0", "n0.sqlite")
    assert not want & _pairs(no)  # a failed side loses the pair
    assert "rewrites" not in no.manifest and not (no.funnel.rewrites)

    backend = FirstTryMisses(miss)
    res = _run(slice_stats, tmp_path, backend, replace(PARAMS, rewrites=2), "r")
    assert _pairs(res) == _pairs(clean)  # every rewritten side passed: the same pairs as a clean run
    rewrites = [r for r in backend.word_reqs if "#rewrite" in r.id]
    assert sorted(r.id.split("#")[0][5:].rsplit("/", 1)[0] for r in rewrites) == sorted(miss)
    assert all(r.id.endswith("#rewrite1") for r in rewrites)  # passed at once: no second attempt
    first = {r.id: r for r in backend.word_reqs if "#" not in r.id}
    for r in rewrites:
        orig = first[r.id.split("#")[0]]
        assert (r.prompt, r.system, r.regex) == (orig.prompt, orig.system, orig.regex)
        assert r.sample == 1 and r.params.temperature == REWRITE_TEMPERATURE and r.params.seed == 0
        assert gen_key("m", r) != gen_key("m", orig)  # a new cache entry, not the failed answer
    rows = res.manifest["rewrites"]
    assert sum(r["sent"] for r in rows) == sum(r["passed"] for r in rows) == 3
    # the 3 failed first sentences and their 3 rewrites are all written sentences; the rewrites passed
    before, after = no.manifest["sentences"]["inflswap"], res.manifest["sentences"]["inflswap"]
    assert after["written"] == before["written"] + 3 and after["passed"] == before["passed"] + 3
    assert res.manifest["parameters"]["rewrites"] == 2

    again = FirstTryMisses(miss)  # resume: every answer, rewrites included, comes from the cache
    res2 = _run(slice_stats, tmp_path, again, replace(PARAMS, rewrites=2), "r2")
    assert again.calls == [] and _pairs(res2) == _pairs(res) and res2.manifest["rewrites"] == rows


def test_a_failed_rewrite_is_tried_again_up_to_n(slice_stats, tmp_path, missed):
    """Rewrites that fail too: N attempts each, then the pair is dropped as before."""
    miss = {p.form2 for p in missed}

    class AlwaysMisses(FirstTryMisses):
        def generate(self, reqs, on_result=None):
            reqs = [replace(r, id=r.id.split("#")[0]) if "#" in r.id else r for r in reqs]
            return super().generate(reqs, on_result)

    backend = AlwaysMisses(miss)
    backend.word_reqs = []
    res = _run(slice_stats, tmp_path, backend, replace(PARAMS, rewrites=2), "r")
    no = _run(slice_stats, tmp_path, FirstTryMisses(miss), PARAMS, "n0", "n0.sqlite")
    assert _pairs(res) == _pairs(no)
    rows = res.manifest["rewrites"]
    assert sum(r["sent"] for r in rows) == 6 and sum(r["passed"] for r in rows) == 0


def test_zero_rewrites_changes_nothing(slice_stats, tmp_path):
    a = _run(slice_stats, tmp_path, RuleLLM(), LtswapParams(max_per_bin=3, seed=0), "a", "a.sqlite")
    b = _run(slice_stats, tmp_path, RuleLLM(), LtswapParams(max_per_bin=3, rewrites=0), "b", "b.sqlite")
    assert a.quadruplets == b.quadruplets and a.funnel.rows() == b.funnel.rows()
    assert "rewrites" not in a.manifest and a.manifest["parameters"]["rewrites"] == 0


@pytest.mark.parametrize("bad", [-1, 1.5, True, "1"])
def test_bad_rewrites(bad):
    with pytest.raises(ConfigError, match=r"^rewrites must be a whole number"):  # the CLI says --rewrites
        LtswapParams(rewrites=bad)


def test_a_run_from_before_the_param_is_reused_as_its_old_value():
    """A run made before ``rewrites``, ``frames``, ``labelled_first`` and ``min_words`` existed ran with 0
    rewrites, the fixed frames, nothing labelled first and no minimum length."""
    from corpusbench.families.ltswap.release import why_not_reused

    old = {"parameters": {"seed": 0}, "corpus": {"fingerprint": "f"}, "llm": {"model": "m"}}
    then = {"seed": 0, "rewrites": 0, "frames": "fixed", "labelled_first": [], "min_words": 0}
    assert why_not_reused(old, then, "f", "m") is None
    assert "min_words differs (spec 8, run 0)" in why_not_reused(old, {**then, "min_words": 8}, "f", "m")
    assert "rewrites differs (spec 1, run 0)" in why_not_reused(old, {**then, "rewrites": 1}, "f", "m")
    varied = why_not_reused(old, {**then, "frames": "varied"}, "f", "m")
    assert 'frames differs (spec "varied", run "fixed")' in varied
