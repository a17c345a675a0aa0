"""Shared-prefix scoring passes the KV cache by the name the model takes (#32 item 7): no
`past_key_values` deprecation on every eval, and the same log-probs as scoring the full strings."""

from __future__ import annotations

import warnings

import pytest

from corpusbench.eval.causal import CausalScorer


def test_shared_prefix_prints_no_past_key_values_warning(smol, capfd: pytest.CaptureFixture[str]) -> None:
    scorer = CausalScorer(smol.model, smol.tokenizer)
    tok = smol.tokenizer
    ctx = [scorer.prefix_id, *tok("The cat sat on", add_special_tokens=False)["input_ids"]]
    sufs = [tok(s, add_special_tokens=False)["input_ids"] for s in (" the warm mat", " a mat")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, _, (scores,) = scorer.shared_prefix([ctx], [sufs])
    said = [str(w.message) for w in caught] + capfd.readouterr().err.splitlines()
    assert not [s for s in said if "past_key_values" in s], said
    full = scorer.continuation_logprob(["The cat sat on"] * 2, [" the warm mat", " a mat"])
    assert scores == pytest.approx(full, abs=1e-3)
