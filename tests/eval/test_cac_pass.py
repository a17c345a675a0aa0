"""CAC in one pass per transcript window equals the per-site path, on the real Eve transcript."""

from __future__ import annotations

import pytest

from corpusbench.eval.causal import CausalScorer
from corpusbench.families.cac import lm_pass as cac_pass
from corpusbench.families.cac.lm import choose_causal
from corpusbench.families.cac.lm_pass import prefix_runs

from .conftest import ROOT

EVE = ROOT / "data" / "childes" / "eve.cha"


@pytest.fixture(scope="module")
def eve_sites(tmp_path_factory):
    """The scorer's view of the first 60 child/caretaker sites of Eve (two pseudo-dyads), as eval does."""
    from corpusbench.families.cac.io import load_sites
    from corpusbench.families.cac.pipeline import CacConfig, run_cac
    from corpusbench.families.cac.score import alternation_of, determiner_sites_from_lines, select_sites
    from corpusbench.families.cac.table import session_lines
    from corpusbench.io import read_json

    out = tmp_path_factory.mktemp("cac") / "eve"
    run_cac([EVE], out, CacConfig(split_sessions=2))
    sites, sessions = load_sites(out)
    chosen = select_sites(sites, None)[:60]
    alt = alternation_of(read_json(out / "manifest.json"))
    return determiner_sites_from_lines(chosen, session_lines(sessions), alt, None)


def margins(choices) -> list[float]:
    return [c.logprobs[f] - c.logprobs[g] for c in choices for f in c.logprobs for g in c.logprobs]


def forwards(model, fn):
    """(result of ``fn()``, number of base-model forwards it made)."""
    seen: list[int] = []
    hook = model.base_model.register_forward_pre_hook(lambda *_: seen.append(1))
    try:
        return fn(), len(seen)
    finally:
        hook.remove()


@pytest.mark.parametrize(("attn", "step"), [("sdpa", 0), ("sdpa", 150), ("eager", 150)])
def test_one_pass_equals_per_site_on_eve(tiny, eve_sites, monkeypatch, attn, step):
    lm = tiny["gpt2"]
    lm.model.set_attn_implementation(attn)
    try:
        sc = CausalScorer(lm.model, lm.tokenizer)
        assert cac_pass.pass_mask_kind(sc) == {"sdpa": "bool", "eager": "float"}[attn]
        one, n_one = forwards(lm.model, lambda: choose_causal(sc, eve_sites, window=400, context_step=step))
        per_site = choose_causal(sc, eve_sites, window=400, reuse=False, context_step=step)
        monkeypatch.setattr(cac_pass, "pass_mask_kind", lambda _s: None)  # the carried-cache path
        chain, n_chain = forwards(
            lm.model, lambda: choose_causal(sc, eve_sites, window=400, context_step=step)
        )
    finally:
        lm.model.set_attn_implementation("sdpa")
    assert sum(c.truncated for c in one) > 10 and sum(not c.truncated for c in one) >= 5
    for other in (per_site, chain):
        assert [c.id for c in one] == [c.id for c in other]
        assert [c.n_context_tokens for c in one] == [c.n_context_tokens for c in other]
        assert max(abs(a - b) for a, b in zip(margins(one), margins(other), strict=True)) <= 1e-4
        assert [c.p_the > 0.5 for c in one] == [c.p_the > 0.5 for c in other]
    assert n_one < n_chain  # one trunk and a few branch chunks per pass, not two forwards per site


def test_prefix_runs_split_where_ids_differ():
    ctx = [[1, 2, 3], [1, 2], [1, 2, 3, 4], [1, 2, 5], [7]]
    order = sorted(range(len(ctx)), key=lambda k: (ctx[k], k))
    # [1, 2, 5] does not extend [1, 2, 3, 4] (a different token at the site): a run of its own
    assert prefix_runs(ctx, order) == [[1, 0, 2], [3], [4]]


def test_branch_mask_sees_its_site_and_its_own_suffix():
    m = cac_pass.branch_mask([2, 3], [2, 1], trunk=4, kind="bool", dtype=None)[0, 0].int().tolist()
    assert m == [
        [1, 1, 0, 0, 1, 0, 0],
        [1, 1, 0, 0, 1, 1, 0],
        [1, 1, 1, 0, 0, 0, 1],
    ]
