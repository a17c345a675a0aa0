"""End to end on the real vLLM CPU server (default model): a SIGKILLed run resumes from the LLM cache."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap.funnel import STAGES
from corpusbench.families.ltswap.records import SUBTASKS


def _cached_rows(path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return db.execute("SELECT count(*) FROM results").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


@pytest.mark.slow
def test_vllm_server_run_killed_then_resumed(tmp_path, slice_corpus, slice_stats, ltswap_vllm):
    out = tmp_path / "lt"
    args = [
        "ltswap",
        "build",
        str(slice_corpus),
        "--stats",
        str(slice_stats.path),
        "--out",
        str(out),
        "--llm-backend",
        "vllm-server",
        "--llm-base-url",
        ltswap_vllm.base_url,
        "--llm-model",
        ltswap_vllm.name,
        "--max-per-bin",
        "2",
        "--rules",
        "SVSHORT,DET",
        "--agreement-samples",
        "1",
        "--max-tokens",
        "48",
    ]
    # 1. a run SIGKILLed once some answers are in the cache: nothing final is written
    env = {**os.environ, "NLTK_DATA": os.environ.get("NLTK_DATA", ""), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "corpusbench", *args], env=env, stdout=subprocess.DEVNULL)
    cache = out / "llm-cache.sqlite"
    deadline = time.monotonic() + 300
    while proc.poll() is None and _cached_rows(cache) < 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL, "the run ended before it could be killed"
    before = _cached_rows(cache)
    assert before >= 10
    assert not (out / "manifest.json").exists()

    # 2. the same command resumes: what was answered before the kill comes from the cache
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    rep = manifest["llm_report"]
    assert rep["cache_hits"] >= before and rep["calls"] > 0 and rep["failures"] == 0
    assert manifest["llm"]["backend"] == "openai" and manifest["llm"]["model"] == ltswap_vllm.name
    totals = {
        s: {st: sum(row[st] for row in manifest["funnel"] if row["subtask"] == s) for st in STAGES}
        for s in SUBTASKS
    }
    assert totals["wordswap"]["candidates"] >= 10
    assert totals["wordswap"]["generated"] == totals["wordswap"]["confirmed"]  # every word answered
    # an empty subtask is reported with its reasons: in the manifest and in the command's output
    reasons = {s: {d["reason"] for d in manifest["drop_reasons"] if d["subtask"] == s} for s in SUBTASKS}
    for s in SUBTASKS:
        assert manifest["counts"][s] == totals[s]["kept"]
        if manifest["counts"][s] == 0:
            assert reasons[s], f"{s} is empty but no drop reason was recorded"
            said = " ".join(r.output.split())
            assert f"{s}: no quadruplets: " in said
            assert all(reason in said for reason in reasons[s])
    frames = {s: pd.read_parquet(out / f"{s}.parquet") for s in SUBTASKS}

    # 3. once more: 0 backend calls, identical output
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    manifest2 = json.loads((out / "manifest.json").read_text())
    assert manifest2["llm_report"]["calls"] == 0
    assert manifest2["llm_report"]["cache_hits"] == rep["calls"] + rep["cache_hits"]
    assert manifest2["funnel"] == manifest["funnel"]
    for s in SUBTASKS:
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{s}.parquet"), frames[s])


@pytest.mark.slow
def test_vllm_server_french_wordswap(tmp_path, ltswap_vllm):
    """French WordSwap end to end: spaCy-fr candidates, French prompts, French checks, real server."""
    corpus = tmp_path / "fr"
    corpus.mkdir()
    (corpus / "fr.txt").write_text(
        (Path(__file__).parent / "data" / "fr.txt").read_text(encoding="utf-8"), encoding="utf-8"
    )
    out = tmp_path / "lt-fr"
    args = ["ltswap", "build", str(corpus), "--lang", "fr", "--out", str(out), "--llm-backend", "vllm-server"]
    args += ["--llm-base-url", ltswap_vllm.base_url, "--llm-model", ltswap_vllm.name, "--max-per-bin", "2"]
    r = CliRunner().invoke(app, [*args, "--max-tokens", "48"])
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["parameters"]["subtasks"] == ["wordswap"] and manifest["corpus"]["language"] == "fr"
    assert manifest["lexicon"]["kind"].startswith("corpus tagger")
    t = {st: sum(row[st] for row in manifest["funnel"] if row["subtask"] == "wordswap") for st in STAGES}
    assert t["candidates"] >= 8 and t["generated"] == t["candidates"] >= t["parsed"] >= t["checked"]
    assert manifest["llm_report"]["failures"] == 0
    assert "ltswap/word_sentence_system.v3" in manifest["prompts"]  # the default writer prompt (v3)
    assert manifest["parameters"]["writer_prompt"] == "v3"
    df = pd.read_parquet(out / "wordswap.parquet")
    assert len(df) == manifest["counts"]["wordswap"]


@pytest.mark.slow
def test_guided_decoding_on_the_real_server(ltswap_vllm):
    """--force-form's regexes compile on the CPU server and every reply matches its frame."""
    import re

    from corpusbench.families.ltswap.generation import agreement_request, word_request
    from corpusbench.families.ltswap.records import InflectionPair
    from corpusbench.llm.openai_backend import OpenAIBackend

    backend = OpenAIBackend(ltswap_vllm.base_url, ltswap_vllm.name)
    pair = InflectionPair(
        lemma="dog", pos="NOUN", form1="dog", tag1="NN", freq1=3, form2="dogs", tag2="NNS", freq2=2, bin=2
    )
    reqs = [
        word_request(f, t, 96, force_form=True)
        for f, t in (("see", "VB"), ("mended", "VBD"), ("sparrows", "NNS"))
    ]
    reqs.append(agreement_request(pair, "SVSHORT", 0, 0.5, 0, 160, force_form=True))
    out = backend.generate(reqs)
    for req, res in zip(reqs, out, strict=True):
        assert res.status == "ok", res.error
        # a reply cut at max_tokens is the start of a sentence of its frame: a final stop completes it (the
        # 135M test model sometimes runs on, "The old woman asked us to see 1000 1000 ..": round five's
        # openings left 2 of these 4 replies unfinished)
        text = res.text if res.finish_reason == "stop" else res.text.rstrip() + "."
        assert re.fullmatch(req.regex, text), (req.regex, res.text, res.finish_reason)
    assert sum(r.finish_reason == "stop" for r in out) >= 2
