"""`corpusbench eval` on a CAC folder built from the real Eve transcript: SmolLM2 and a tiny RoBERTa."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.errors import ConfigError, InputError
from corpusbench.eval.causal import CausalScorer
from corpusbench.eval.runner import EvalSpec, run_eval
from corpusbench.families.cac.lm import merge_p_the
from corpusbench.families.cac.records import Alternation, Site
from corpusbench.families.cac.score import (
    QUICK_CONTEXT_STEP,
    QUICK_CONTEXT_TOKENS,
    ContextWindow,
    context_window,
    is_cac_folder,
    label_probs,
    select_sites,
)

from .conftest import ROOT, SMOL

EVE = ROOT / "data" / "childes" / "eve.cha"


@pytest.fixture(scope="session")
def eve_cac(tmp_path_factory):
    """A CAC folder from the real eve.cha (two pseudo-dyads, so the across-dyad tests run)."""
    from corpusbench.families.cac.pipeline import CacConfig, run_cac

    out = tmp_path_factory.mktemp("cac") / "eve"
    run_cac([EVE], out, CacConfig(split_sessions=2))
    return out


def _site(i: int, dyad: str, role: str = "child") -> Site:
    return Site(
        id=f"f:{i}:0", file="f", dyad=dyad, utterance_index=i, position=i, speaker="CHI", role=role,
        text="a dog", choice="a", form="a", key="dog", head_text="dog", char_start=0, char_end=1,
        token=0, head_token=1,
    )  # fmt: skip


def test_label_probs_and_selection_hand_cases():
    alt = Alternation()
    got = label_probs({"a": math.log(0.1), "an": math.log(0.3), "the": math.log(0.2)}, alt)
    assert got == pytest.approx({"a": 0.4 / 0.6, "the": 0.2 / 0.6})
    caps = {"A": math.log(0.1), "An": math.log(0.3), "The": math.log(0.2)}
    assert got["the"] == pytest.approx(merge_p_the(caps))
    assert label_probs({"a": -math.inf, "an": -math.inf, "the": -math.inf}, alt) == {"a": 0.5, "the": 0.5}
    three = Alternation.parse("this,that,those")
    assert sum(label_probs({"this": -1.0, "that": -2.0, "those": -3.0}, three).values()) == pytest.approx(1)
    sites = [_site(i, "d1" if i < 5 else "d2", "other" if i == 1 else "child") for i in range(8)]
    assert [s.id for s in select_sites(sites, 2, "first")] == ["f:0:0", "f:2:0", "f:5:0", "f:6:0"]
    assert len(select_sites(sites, None)) == 7
    # the default --limit sample: seeded, 2 per dyad × role, spread over the group, in transcript order
    drawn = [select_sites(sites, 2, "stratified", seed) for seed in range(6)]
    for got in drawn:
        ids = [s.id for s in got]
        assert ids == sorted(ids, key=lambda i: int(i.split(":")[1]))
        assert sum(s.dyad == "d1" for s in got) == 2 and sum(s.dyad == "d2" for s in got) == 2
        assert "f:1:0" not in ids  # role "other" is never scored
    assert drawn[0] == select_sites(sites, 2, "stratified", 0)
    assert len({tuple(s.id for s in g) for g in drawn}) > 1  # the seed changes the sample
    assert select_sites(sites, 9, "stratified", 0) == select_sites(sites, None)
    with pytest.raises(ConfigError, match="limit-mode"):
        select_sites(sites, 2, "random")


def test_context_window_quick_cap_and_paper_window(tmp_path):
    def spec(limit=None, **options):  # CAC's run options (context_step, context_tokens) by name
        return EvalSpec(dataset="d", model="m", out=tmp_path, limit=limit, options=options)

    full = context_window(spec(), 8192)  # a full run: the model's whole window in overlapping windows
    assert (full.tokens, full.step) == (8192, (8192 - 11) // 4) and "--context-step 0" in full.reason
    exact = context_window(spec(context_step=0), 8192)  # every site cut exactly (before 2026-11-27)
    assert (exact.tokens, exact.step) == (8192, 0) and "exactly" in exact.reason
    assert context_window(spec(), 8192, causal=False) == exact  # masked / seq2seq: no cache to carry
    assert context_window(spec(limit=20), 8192, causal=False).step == 0
    quick = context_window(spec(limit=20), 8192)  # a quick run is capped, with KV reuse, and says so
    assert (quick.tokens, quick.step) == (
        QUICK_CONTEXT_TOKENS,
        QUICK_CONTEXT_STEP,
    ) and "--limit" in quick.reason
    assert context_window(spec(limit=20, context_step=0), 8192).step == 0
    small = context_window(spec(limit=20), 256)  # never beyond the model's window; a step that fits it
    assert small.tokens == 256 and 0 < small.step < (256 - 11) // 2
    assert context_window(spec(limit=20, context_tokens=0), 8192) == full
    assert context_window(spec(context_tokens=2048), 8192) == ContextWindow(2048, 0, "--context-tokens")
    for bad in (-1, 10):
        with pytest.raises(ConfigError, match="--context-tokens"):
            context_window(spec(context_tokens=bad), 8192)


@pytest.mark.slow
def test_cac_eval_smollm2_on_eve(eve_cac, smol, tmp_path):
    assert is_cac_folder(eve_cac) and not is_cac_folder(tmp_path)
    out = tmp_path / "smol"
    rep = run_eval(
        EvalSpec(dataset=str(eve_cac), model=str(SMOL), out=out, limit=3, options={"context_utterances": 12})
    )
    assert rep.n_pairs == 12  # 3 sites × 2 pseudo-dyads × {child, caretaker}
    for f in ("results.json", "scores.parquet", "model_stats.csv", "overlap.png", "tpr.png", "summary.md"):
        assert (out / f).is_file(), f
    res = json.loads((out / "results.json").read_text())
    assert res["kind"] == "cac" and res["n_sites"] == 12 and set(res["configs"]) == {"child", "caretaker"}
    assert res["provenance"]["dataset"]["dataset_fingerprint"]
    child = res["configs"]["child"]
    assert child["n_dyads"] == 2 and child["tests"][0]["name"] == "dxn_overlap"
    df = pd.read_parquet(out / "scores.parquet")
    assert len(df) == 12 and ((df.p_the + df.p_a - 1).abs() < 1e-9).all()
    # the scores equal the reference method (three full strings) on one site, rebuilt by hand
    from corpusbench.families.cac.io import load_sites, site_prompt

    sites, sessions = load_sites(eve_cac)
    row = df.iloc[5]
    site = next(s for s in sites if s.id == row.site_id)
    left, right = site_prompt(site, sessions[site.file], max_utterances=12)
    sc = CausalScorer(smol.model, smol.tokenizer)
    full = {f: sc.sequence_logprob([left + f + right])[0] for f in ("a", "an", "the")}
    assert row.p_the == pytest.approx(merge_p_the(full), abs=1e-4)
    assert row.context_lines == min(12, site.position)
    # antecedent in the window exactly when it is at most 12 utterances back
    for r in df.itertuples():
        s = next(x for x in sites if x.id == r.site_id)
        want = None if s.prev_distance is None else s.prev_distance <= 12
        assert (None if pd.isna(r.antecedent_in_context) else bool(r.antecedent_in_context)) == want
    assert res["accuracy_pooled"] == pytest.approx(((df.p_the > 0.5) == (df.human_choice == "the")).mean())


@pytest.mark.slow
def test_cac_eval_tiny_roberta_truncates_and_cli(eve_cac, tiny_dir, tmp_path):
    from corpusbench.cli import app

    out = tmp_path / "rob"
    r = CliRunner().invoke(
        app,
        ["eval", "run", "--dataset", str(eve_cac), "--model", str(tiny_dir["roberta"]), "--out", str(out),
         "--limit", "2"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    res = json.loads((out / "results.json").read_text())
    assert res["window"] == 256 and res["n_truncated"] > 0  # whole-session contexts cut to the window
    assert res["context_step"] == 0  # a masked model cuts every context exactly (no KV cache to carry)
    df = pd.read_parquet(out / "scores.parquet")
    assert (df.n_context_tokens <= 256).all() and df.truncated.any()
    assert {"logprob_a", "logprob_an", "logprob_the"} <= set(df.columns)
    assert "| child |" in (out / "summary.md").read_text()


@pytest.mark.slow
def test_cac_eval_context_step_cli(eve_cac, tiny_dir, tmp_path):
    from corpusbench.cli import app

    args = ["eval", "run", "--dataset", str(eve_cac), "--model", str(tiny_dir["gpt2"]), "--limit", "3"]
    r = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "step"), "--context-step", "64"])
    assert r.exit_code == 0, r.output
    res = json.loads((tmp_path / "step" / "results.json").read_text())
    assert res["provenance"]["spec"]["context_step"] == 64 and res["n_truncated"] > 0
    df = pd.read_parquet(tmp_path / "step" / "scores.parquet")
    assert (df.n_context_tokens <= res["window"]).all()
    bad = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "bad"), "--context-step", "100000"])
    assert bad.exit_code == 2 and "context step 100000" in bad.output
    assert not (tmp_path / "bad").exists()


def test_cac_score_is_the_childrens_agreement_and_the_figure(eve_cac, tiny_dir, tmp_path):
    """Table D1's accuracy: agreement with the children, mean over child dyads (``score``); the
    caretakers' and the pooled figures beside it; the unit of analysis; the per-dyad figure."""
    out = tmp_path / "tiny"
    spec = EvalSpec(
        dataset=str(eve_cac), model=str(tiny_dir["gpt2"]), out=out, limit=3, options={"context_utterances": 4}
    )
    run_eval(spec)
    res = json.loads((out / "results.json").read_text())
    df = pd.read_parquet(out / "scores.parquet")
    df["hit"] = (df.p_the > 0.5) == (df.human_choice == "the")
    per_dyad = df.groupby(["role", "dyad"])["hit"].mean()
    assert res["score"] == res["accuracy"] == pytest.approx(per_dyad["child"].mean())
    assert res["accuracy_caretaker"] == pytest.approx(per_dyad["caretaker"].mean())
    assert res["accuracy_pooled"] == pytest.approx(df["hit"].mean())
    assert res["dyad_unit"]["unit"] == "file" and res["dyad_unit"]["parts"] == 2
    dxn = res["configs"]["child"]["tests"][0]
    assert dxn["name"] == "dxn_overlap" and isinstance(dxn["degenerate"], bool)
    summary = (out / "summary.md").read_text()
    assert "agreement with the children" in summary and "unit of analysis: dyad = one transcript" in summary
    png = (out / "cac_dyads.png").read_bytes()
    assert png[:4] == b"\x89PNG" and int.from_bytes(png[16:20], "big") >= 2000  # 300 dpi, ~10 in wide


def test_cac_eval_bad_folder_writes_nothing(eve_cac, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text((eve_cac / "manifest.json").read_text())
    out = tmp_path / "out"
    with pytest.raises(InputError, match="not a CAC output folder"):
        run_eval(EvalSpec(dataset=str(broken), model=str(SMOL), out=out))
    assert not out.exists()
