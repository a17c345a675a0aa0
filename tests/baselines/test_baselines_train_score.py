"""Training word/tag baselines on a real corpus file, scoring with them, and `--model ngram:DIR`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from corpusbench.baselines.kn import UNK
from corpusbench.baselines.scoring import NgramScorer, align, load_ngram_scorer
from corpusbench.baselines.train import TrainParams, train_ngrams
from corpusbench.cli import app
from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.taggers import make_tagger
from corpusbench.errors import ConfigError, InputError

CORPUS = Path(__file__).resolve().parents[1] / "data" / "genesis_40.txt"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("ngram")
    outs = {"word": root / "word", "tag": root / "tag"}
    report = train_ngrams(CorpusSpec(path=str(CORPUS)), outs, TrainParams(order=3))
    assert report.tokens > 1000 and report.sentences > 40
    return outs


def test_models_carry_provenance_and_the_stats_tagger(models: dict[str, Path]) -> None:
    m = json.loads((models["tag"] / "manifest.json").read_text())
    assert m["model_kind"] == "tag" and m["order"] == 3
    assert m["tagger"]["implementation"] == "corpusbench.fasttag"
    assert len(m["corpus"]["fingerprint"]["sha256"]) == 64 and m["code"]["corpusbench"]
    assert len(m["ngram_types"]) == 3 and m["ngram_types"][0] == len(
        (models["tag"] / "vocab.txt").read_text().split("\n")[:-1]
    )
    # the tag vocabulary is exactly the tags the stats tagger gives this corpus
    tagger = make_tagger("nltk", "en")
    tags = {t[1] for sents in tagger.tag_texts(CORPUS.read_text().splitlines()) for s in sents for t in s}
    assert set((models["tag"] / "vocab.txt").read_text().split("\n")[3:-1]) == tags
    words = (models["word"] / "vocab.txt").read_text().split("\n")
    assert "god" in words and "God" not in words  # lowercased like the stats' forms


def test_align_finds_treebank_tokens_and_quotes() -> None:
    text = 'He said, "Let there be light."'
    toks = ["He", "said", ",", "``", "Let", "there", "be", "light", ".", "''"]
    spans, end = align(text, toks)
    assert [text[a:b] for a, b in spans] == ["He", "said", ",", '"', "Let", "there", "be", "light", ".", '"']
    assert end == len(text)


def test_whole_sentence_and_span_scores_are_sums_of_token_logprobs(models: dict[str, Path]) -> None:
    scorer, prov = load_ngram_scorer(models["word"])
    assert prov["arch"] == "ngram-word" and prov["dtype"] == "n/a" and prov["model_revision"]
    text = "And God saw the light."
    (whole, n_whole), (part, n_part) = scorer.score([text, text], [None, (8, 11)])
    ids = np.array([scorer.ids.get(t, UNK) for t in ["and", "god", "saw", "the", "light", "."]])
    lp = scorer.model.sentence_logprobs([ids])[0]
    assert n_whole == 7 and whole == pytest.approx(float(lp.sum()))  # 6 tokens + </s>
    assert n_part == 1 and part == pytest.approx(float(lp[2]))  # "saw" only
    assert whole < part < 0
    assert scorer.conventions()["scorer"] == "ngram-word"


def test_corpus_sentence_beats_its_scramble(models: dict[str, Path]) -> None:
    scorer = NgramScorer(models["word"])
    good, bad = "And God saw the light, that it was good.", "Light the saw God and, good was it that."
    (g, _), (b, _) = scorer.score([good, bad], [None, None])
    assert g > b
    tag = NgramScorer(models["tag"])
    (tg, _), (tb, _) = tag.score([good, bad], [None, None])
    assert tg > tb


def test_slor_normalises_by_length_against_the_unigram_model(models: dict[str, Path]) -> None:
    plain = NgramScorer(models["word"])
    slor, _ = load_ngram_scorer(Path(f"{models['word']}#slor"))
    assert slor.conventions()["normalisation"] == "slor"
    text = "And God called the light Day."
    ((lp, n),) = plain.score([text], [None])
    ((s, n2),) = slor.score([text], [None])
    toks = np.array([plain.ids.get(t, UNK) for t in ["and", "god", "called", "the", "light", "day", "."]])
    uni = float(plain.model.unigram_logprob(np.append(toks, 2)).sum())
    assert n == n2 == 8 and s == pytest.approx((lp - uni) / n)


def test_bad_inputs_fail_cleanly(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not an n-gram model folder"):
        load_ngram_scorer(tmp_path)
    with pytest.raises(ConfigError, match="order"):
        train_ngrams(CorpusSpec(path=str(CORPUS)), {"word": tmp_path / "m"}, TrainParams(order=0))
    with pytest.raises(ConfigError, match="kind"):
        train_ngrams(CorpusSpec(path=str(CORPUS)), {"words": tmp_path / "m"})
    assert not (tmp_path / "m").exists()


def test_cli_train_then_eval_runner_with_ngram_model(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["baseline", "train", str(CORPUS), "--out", str(tmp_path / "m"), "--order", "3"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "m" / "model.npz").is_file()
    missing = runner.invoke(app, ["baseline", "train", str(tmp_path / "nope"), "--out", str(tmp_path / "x")])
    assert missing.exit_code == 2 and not (tmp_path / "x").exists()

    pairs = [
        ("And God saw the light.", "And God saw the lights."),
        ("And God said, Let there be light.", "And God said, Let there are light."),
        (
            "And the evening and the morning were the first day.",
            "And the evening and the morning was first day the.",
        ),
    ]
    data = tmp_path / "blimp.jsonl"
    data.write_text(
        "".join(json.dumps({"sentence_good": g, "sentence_bad": b, "UID": "demo"}) + "\n" for g, b in pairs)
    )
    from corpusbench.eval.runner import EvalSpec, run_eval

    report = run_eval(EvalSpec(dataset=str(data), model=f"ngram:{tmp_path / 'm'}", out=tmp_path / "eval"))
    results = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert results["provenance"]["model"]["arch"] == "ngram-word"
    assert results["provenance"]["scorer"]["scorer"] == "ngram-word"
    assert results["n_pairs"] == 3 and report.accuracy == results["accuracy"]
    assert report.accuracy == 1.0  # each good sentence is (nearly) verbatim from the training corpus
    slor = run_eval(EvalSpec(dataset=str(data), model=f"ngram:{tmp_path / 'm'}#slor", out=tmp_path / "eval2"))
    assert (
        json.loads((tmp_path / "eval2" / "results.json").read_text())["provenance"]["scorer"]["normalisation"]
        == "slor"
    )
    assert 0 <= slor.accuracy <= 1 and not math.isnan(slor.accuracy)


def test_gradient_analysis_hand_checked() -> None:
    import pandas as pd

    from corpusbench.baselines.gradient import gradient_analysis

    human = np.array([1.0, 1.2, 0.8, -1.0, -1.3, -0.7])
    human = (human - human.mean()) / human.std()
    df = pd.DataFrame({"sentence": list("abcdef"), "type": ["g"] * 3 + ["b"] * 3, "human": human})
    res = gradient_analysis(df, {"same": human * 5 + 2, "flat": np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])})
    same, flat = res["measures"]["same"], res["measures"]["flat"]
    assert res["n_types"] == 2 and same["r_sentences"] == pytest.approx(1.0)
    assert same["mean_within_type_sd"] == pytest.approx(res["human"]["mean_within_type_sd"])
    assert flat["mean_within_type_sd"] == 0.0 and flat["r_type_sds"] is None  # no variation inside types


def test_cli_gradient_with_ngram_model(models: dict[str, Path], tmp_path: Path) -> None:
    rows = [
        ("And God saw the light.", "t1", 1.1),
        ("And God saw the darkness.", "t1", 0.9),
        ("And God called the light Day.", "t1", 1.0),
        ("Light God the saw and.", "t2", -1.2),
        ("Darkness the God saw and.", "t2", -0.8),
        ("Day the called God light and.", "t2", -1.0),
    ]
    data = tmp_path / "judgments.jsonl"
    data.write_text("".join(json.dumps({"sentence": s, "type": t, "z": z}) + "\n" for s, t, z in rows))
    out = tmp_path / "gradient.json"
    res = CliRunner().invoke(
        app, ["baseline", "gradient", str(data), "--model", f"ngram:{models['word']}", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    result = json.loads(out.read_text())
    assert set(result["measures"]) == {"logprob", "mean_logprob", "slor"}
    assert result["measures"]["logprob"]["r_sentences"] > 0.5  # corpus word order is judged better
    assert result["provenance"]["model"]["arch"] == "ngram-word"
    bad = CliRunner().invoke(
        app,
        [
            "baseline",
            "gradient",
            str(data),
            "--model",
            f"ngram:{models['word']}",
            "--out",
            str(out),
            "--human-col",
            "score",
        ],
    )
    assert bad.exit_code == 2 and "missing column" in bad.output
