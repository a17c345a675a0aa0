"""Masked and seq2seq scorers cut inputs longer than the model's window, as the causal scorer does (#39)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from corpusbench.cli import app

LONG = "The cat sat on the mat and the dog sat on the log. " * 60


def test_masked_cuts_long_texts_from_the_left_and_counts_them(tiny):
    from corpusbench.eval.masked import MaskedPllScorer

    lm = tiny["bert"]
    sc = MaskedPllScorer(lm.model, lm.tokenizer)
    assert sc.max_len == 256
    (lp, n), (lp_short, n_short) = sc.score([LONG + "The end.", "The end."])
    assert sc.n_cut == 1 and n_short < n <= 256 - 2 and lp == lp and lp < lp_short  # finite, the tail scored
    enc = sc.encode(LONG + "The end.")
    assert len(enc.ids) == 256 and enc.special[0] and enc.special[-1]  # [CLS] … [SEP] kept
    assert enc.offsets[-2][1] == len(LONG + "The end.")  # the last text token is kept, the first ones go
    assert sc.n_cut == 2 and "cut from the left" in sc.conventions()["longer_than_window"]


def test_seq2seq_cuts_long_inputs_around_the_blank_and_counts_them(tiny):
    from corpusbench.eval.seq2seq import Seq2SeqScorer

    lm = tiny["t5"]
    sc = Seq2SeqScorer(lm.model, lm.tokenizer)
    m = sc.max_len
    words = (LONG * (m // 100 + 2)).split()
    text = " ".join(words)
    assert len(lm.tokenizer(text)["input_ids"]) > m
    end = (len(text) - len(words[-1]), len(text))
    (lp_end, n_end), (lp_start, n_start) = sc.score([text, text], [end, (0, len(words[0]))])
    assert sc.n_cut == 2 and n_end > 0 and n_start > 0 and lp_end == lp_end and lp_start == lp_start
    ids = [5] * (m + 10) + [sc.sentinel_id] + [6] * 20 + [lm.tokenizer.eos_token_id]
    cut = sc.fit(ids)  # the oldest tokens go
    assert len(cut) == m and cut[-22:] == ids[-22:]
    ids = [5] * 3 + [sc.sentinel_id] + [6] * (m + 10) + [lm.tokenizer.eos_token_id]
    cut = sc.fit(ids)  # the blank would go: the tokens before it go, then the last ones before </s>
    assert len(cut) == m and cut[0] == sc.sentinel_id and cut[-1] == lm.tokenizer.eos_token_id
    assert sc.fit([5, sc.sentinel_id, 1]) == [5, sc.sentinel_id, 1] and sc.n_cut == 4


def test_eval_run_flags_long_pairs_of_a_masked_model(tiny_dir, tmp_path):
    pairs = tmp_path / "long.jsonl"
    pairs.write_text(json.dumps({"sentence_good": LONG + "It is.", "sentence_bad": LONG + "It are."}) + "\n")
    res = CliRunner().invoke(
        app,
        [
            "eval",
            "run",
            "--dataset",
            str(pairs),
            "--model",
            str(tiny_dir["bert"]),
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert res.exit_code == 0, res.output
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert results["n_cut_to_window"] == 2
    assert "cut from the left" in results["provenance"]["scorer"]["longer_than_window"]
