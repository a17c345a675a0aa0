"""``corpusbench eval`` end to end: files written, metrics consistent, bad input leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ConfigError, InputError

from .conftest import ROOT, SMOL

PAIRS = [
    {
        "sentence_good": "The cat sits on the mat.",
        "sentence_bad": "The cat sit on the mat.",
        "group": "agr",
        "bin": 1,
        "span_good": [8, 12],
        "span_bad": [8, 11],
        "freq_subj": 10,
        "freq_verb": 3,
    },
    {
        "sentence_good": "The dogs bark loudly.",
        "sentence_bad": "The dogs barks loudly.",
        "group": "agr",
        "bin": 2,
        "freq_subj": 100,
        "freq_verb": 1,
    },
    {
        "sentence_good": "She is reading a book.",
        "sentence_bad": "She are reading a book.",
        "group": "agr",
        "bin": 2,
        "freq_subj": 5,
        "freq_verb": 40,
    },
    {
        "sentence_good": "The children are playing in the park.",
        "sentence_bad": "Park the in playing are children the.",
        "group": "order",
        "bin": 1,
        "freq_subj": 7,
        "freq_verb": 70,
    },
    {
        "sentence_good": "The cat sat on the mat.",
        "sentence_bad": "Mat the on sat cat the.",
        "group": "order",
        "bin": 2,
        "freq_subj": 50,
        "freq_verb": 2,
    },
]


@pytest.fixture
def pairs_file(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in PAIRS), encoding="utf-8")
    return path


def run(*args):
    return CliRunner().invoke(app, ["eval", "run", *map(str, args)])


@pytest.mark.parametrize("kind", ["gpt2", "bert", "t5"])
def test_eval_end_to_end(tiny_dir, pairs_file, tmp_path, kind):
    out = tmp_path / f"out-{kind}"
    res = run("--dataset", pairs_file, "--model", tiny_dir[kind], "--out", out, "--batch-tokens", 256)
    assert res.exit_code == 0, res.output
    assert {p.name for p in out.iterdir()} >= {
        "results.json",
        "scores.parquet",
        "summary.md",
        "timing.json",
        "accuracy_by_group.png",
        "accuracy_by_bin.png",
    }
    results = json.loads((out / "results.json").read_text())
    scores = pd.read_parquet(out / "scores.parquet")
    assert list(scores["id"]) == [f"default:{i}" for i in range(5)]  # output order = input order
    assert results["accuracy"] == pytest.approx((scores["logprob_good"] > scores["logprob_bad"]).mean())
    assert results["provenance"]["model"]["arch"] == {"gpt2": "causal", "bert": "mlm", "t5": "seq2seq"}[kind]
    assert results["configs"]["default"]["by_group"]["agr"]["n"] == 3
    assert results["configs"]["default"]["by_bin"].keys() == {"1", "2"}
    # plain pairs (not a release): no benchmark block, the tie rule and scoring mode are stated
    assert results["benchmarks"] == {} and results["skipped"] == {}
    assert "not a win" in results["tie_rule"] and results["scoring_mode"]["per_config"] == {
        "default": "mixed"
    }
    # the first pair carries critical-region spans: only the verb tokens are scored
    assert scores.loc[0, "n_tokens_good"] < scores.loc[1, "n_tokens_good"] + 3
    full = run(
        "--dataset", pairs_file, "--model", tiny_dir[kind], "--out", tmp_path / "full", "--scoring", "full"
    )
    assert full.exit_code == 0, full.output
    full_scores = pd.read_parquet(tmp_path / "full" / "scores.parquet")
    assert full_scores.loc[0, "n_tokens_good"] > scores.loc[0, "n_tokens_good"]
    assert full_scores.loc[1, "logprob_good"] == pytest.approx(scores.loc[1, "logprob_good"], abs=1e-5)


def test_prefix_sharing_switch_keeps_scores_and_is_recorded(tiny_dir, pairs_file, tmp_path):
    runs = {}
    for flag in ("--share-prefixes", "--no-share-prefixes"):
        out = tmp_path / flag
        res = run("--dataset", pairs_file, "--model", tiny_dir["gpt2"], "--out", out, flag)
        assert res.exit_code == 0, res.output
        scorer = json.loads((out / "results.json").read_text())["provenance"]["scorer"]
        runs[scorer["prefix_sharing"]] = pd.read_parquet(out / "scores.parquet")
    assert runs.keys() == {"tree", "off"}
    for col in ("logprob_good", "logprob_bad"):
        assert list(runs["tree"][col]) == pytest.approx(list(runs["off"][col]), abs=1e-4)
    assert list(runs["tree"]["n_tokens_good"]) == list(runs["off"]["n_tokens_good"])


def test_report_compares_runs(tiny_dir, pairs_file, tmp_path):
    for kind in ("gpt2", "bert"):
        assert (
            run("--dataset", pairs_file, "--model", tiny_dir[kind], "--out", tmp_path / kind).exit_code == 0
        )
    res = CliRunner().invoke(
        app, ["compare", str(tmp_path / "gpt2"), str(tmp_path / "bert"), "--out", str(tmp_path / "cmp")]
    )
    assert res.exit_code == 0, res.output
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "gpt2" in md and "bert" in md


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (["--model", "{gpt2}"], ConfigError, "needs --dataset"),
        (["--dataset", "{bad}", "--model", "{gpt2}"], InputError, "missing column"),
        (["--dataset", "{empty}", "--model", "{gpt2}"], InputError, "no rows"),
        (["--dataset", "{pairs}", "--model", "{tmp}/no-such-model"], InputError, "model folder not found"),
        (["--dataset", "{pairs}", "--model", "{gpt2}", "--device", "cuda"], ConfigError, "no CUDA GPU"),
        (["--dataset", "{pairs}", "--model", "{gpt2}", "--arch", "rnn"], ConfigError, "unknown --arch"),
    ],
)
def test_bad_input_writes_nothing(tiny_dir, pairs_file, tmp_path, args, error, message):
    import torch

    if "cuda" in args and torch.cuda.is_available():
        pytest.skip("a GPU is present, so cuda is not an error here")
    (tmp_path / "bad.jsonl").write_text('{"sentence_good": "A b.", "bad": "B a."}\n')
    (tmp_path / "empty.jsonl").write_text("")
    subst = {
        "{gpt2}": str(tiny_dir["gpt2"]),
        "{bad}": str(tmp_path / "bad.jsonl"),
        "{pairs}": str(pairs_file),
        "{empty}": str(tmp_path / "empty.jsonl"),
        "{tmp}": str(tmp_path),
    }
    args = [next((a.replace(k, v) for k, v in subst.items() if k in a), a) for a in args]
    out = tmp_path / "out"
    res = run(*args, "--out", out)
    shown = res.output if res.output.strip() else str(res.exception)
    assert res.exit_code == error.exit_code == 2 and message in " ".join(shown.split())
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


@pytest.mark.slow
def test_cli_process_smollm2_and_exit_code(pairs_file, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "2"}
    cmd = [
        sys.executable,
        "-m",
        "corpusbench",
        "eval",
        "run",
        "--dataset",
        str(pairs_file),
        "--model",
        str(SMOL),
    ]
    ok = subprocess.run(
        [*cmd, "--out", str(tmp_path / "smol")], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    results = json.loads((tmp_path / "smol" / "results.json").read_text())
    assert results["accuracy"] == pytest.approx(0.8)  # pair 0 (verb-only "sits"/"sit") is missed by SmolLM2
    scores = pd.read_parquet(tmp_path / "smol" / "scores.parquet")
    assert scores.loc[4, "logprob_good"] == pytest.approx(-42.5148, abs=2e-3)
    assert results["provenance"]["scorer"]["bos"] == "prepend"
    bad = subprocess.run(
        [*cmd[:6], str(tmp_path / "missing.jsonl"), *cmd[7:], "--out", str(tmp_path / "x")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "no such file" in bad.stderr and not (tmp_path / "x").exists()


def test_eval_help_says_what_it_scores():
    res = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    text = " ".join(res.output.split())
    assert res.exit_code == 0 and "run" in text and "compare" in text and "clusters" in text
    for what in ("minimal pairs", "LT-Swap", "FIT-CLAMS", "CAC", "skipped"):
        assert what in text, what
    top = " ".join(CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output.split())
    assert "compare" in top


def test_family_run_options_travel_in_the_spec_and_are_recorded(tmp_path):
    """A family's ``eval run`` options (``EvalKind.run_options``) ride in ``EvalSpec.options``; results.json
    records each registered family's option beside the run's others, its default where not given."""
    from corpusbench.eval.spec import EvalSpec, spec_dict

    recorded = spec_dict(EvalSpec(dataset="d", model="m", out=tmp_path, options={"train_corpus": "b"}))
    assert recorded["train_corpus"] == "b" and recorded["context_step"] is None and "options" not in recorded
    with pytest.raises(ConfigError, match="did you mean context_step"):
        EvalSpec(dataset="d", model="m", out=tmp_path, options={"context_stp": 1})


def test_timing_per_stage_and_auto_choices_are_recorded(tiny_dir, pairs_file, tmp_path):
    out = tmp_path / "timed"
    res = run("--dataset", pairs_file, "--model", tiny_dir["gpt2"], "--out", out)
    assert res.exit_code == 0, res.output
    results = json.loads((out / "results.json").read_text())
    timing = results["timing"]
    stages = {"import", "load", "tokenize", "forward", "metrics", "figures", "write"}
    assert stages <= timing["seconds"].keys()
    assert sum(timing["seconds"].values()) <= timing["seconds_total"] + 1e-3
    assert timing["tokens_forward"] > 0 and timing["tokens_per_s_forward"] > 0
    assert json.loads((out / "timing.json").read_text())["seconds"] == timing["seconds"]
    line = next(x for x in res.output.splitlines() if x.startswith("time: "))
    assert "forward" in line and f"{timing['tokens_forward']:,} tokens" in line
    assert "- time: " in (out / "summary.md").read_text()
    model = results["provenance"]["model"]  # auto on a CPU: float32 and the CPU budget, and why
    assert (model["dtype"], model["batch_tokens"]) == ("float32", 2048)
    assert model["batch_tokens_choice"] == "auto: cpu" and model["dtype_choice"].startswith("auto")
    assert results["provenance"]["scorer"]["batch_tokens"] == 2048


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--limit", "-5"),
        ("--limit", "0"),
        ("--batch-tokens", "lots"),
        ("--batch-tokens", "8"),
        ("--context-utterances", "0"),  # a family's run option, checked by the family (CacRunOptions)
    ],
)
def test_bad_numbers_are_refused_in_one_line(pairs_file, tmp_path, flag, value):
    res = run("--dataset", pairs_file, "--model", "x", "--out", tmp_path / "o", flag, value)
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert f"{flag} must be" in res.output and not (tmp_path / "o").exists()


def test_pairs_longer_than_the_window_are_cut_from_the_left_and_flagged(tiny_dir, tmp_path):
    from corpusbench.eval.causal import CausalScorer
    from corpusbench.eval.models import load_model

    lm = load_model(str(tiny_dir["gpt2"]))  # 512 positions
    long = "The cat sat on the mat and the dog sat on the log. " * 60
    sc = CausalScorer(lm.model, lm.tokenizer)
    (lp, n), (lp_short, _) = sc.score([long + "The end.", "The end."])
    assert sc.n_cut == 1 and n < 512 and lp == lp and lp < lp_short  # finite, only the last tokens scored
    tail = sc.token_logprobs([long])[0]
    assert tail[0].logprob != tail[0].logprob and tail[-1].logprob == tail[-1].logprob  # cut: unscored (NaN)
    pairs = tmp_path / "long.jsonl"
    pairs.write_text(json.dumps({"sentence_good": long + "It is.", "sentence_bad": long + "It are."}) + "\n")
    res = run("--dataset", pairs, "--model", tiny_dir["gpt2"], "--out", tmp_path / "o")
    assert res.exit_code == 0, res.output
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert (
        results["n_cut_to_window"] == 2
        and "cut from the left" in results["provenance"]["scorer"]["longer_than_window"]
    )
