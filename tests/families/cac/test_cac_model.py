"""Model-side metrics: Eqs 2–4 on hand-computed cases, one-hot consistency with the human side, tests."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from cac_helpers import make_site

from corpusbench.errors import InputError
from corpusbench.families.cac.model import (
    evaluate_model,
    expected_bias,
    expected_overlap,
    expected_tpr,
    mle_accuracy,
    model_stats,
    model_tests,
    poisson_binomial,
)
from corpusbench.families.cac.records import Alternation, GroupStats, SiteChoice
from corpusbench.families.cac.sites import link_antecedents
from corpusbench.families.cac.stats import human_stats


def test_eq2_expected_overlap_hand_computed():
    # x: p = (0.5, 0.5) -> 1 - 0.25 - 0.25 = 0.5; y: one site -> 1 - 0.9 - 0.1 = 0; z: (0.2, 0.6, 1.0)
    # -> 1 - 0.12 - 0 = 0.88.
    assert expected_overlap({"x": [0.5, 0.5], "y": [0.9], "z": [0.2, 0.6, 1.0]}) == pytest.approx(
        (0.5 + 0 + 0.88) / 3
    )


def test_eq3_expected_bias_and_realised_variant():
    p = {"x": [0.5, 0.5], "y": [0.9]}
    # Eq 3 (max of expectations): x: max(1, 1) = 1; y: max(0.9, 0.1) = 0.9 -> 1.9 / 3.
    assert expected_bias(p) == pytest.approx(1.9 / 3)
    # E[max]: x: counts 0,1,2 w.p. .25,.5,.25 -> E max(X, 2-X) = .25*2 + .5*1 + .25*2 = 1.5; y: 1 -> 2.5/3.
    assert expected_bias(p, "realised") == pytest.approx(2.5 / 3)
    assert poisson_binomial([0.5, 0.5]) == pytest.approx([0.25, 0.5, 0.25])
    assert poisson_binomial([0.2, 0.6, 1.0]) == pytest.approx(
        [0, 0.8 * 0.4, 0.2 * 0.4 + 0.8 * 0.6, 0.2 * 0.6]
    )


def test_eq4_expected_tpr_hand_computed():
    c = SiteChoice.binary("s", 0.7)
    # After 'a' the model switches with P(the) = 0.7; after 'the' with P(a) = 0.3.
    assert expected_tpr([("a", c), ("the", c)]) == (2, pytest.approx(0.5))
    assert expected_tpr([("a", c)]) == (1, pytest.approx(0.7))
    assert expected_tpr([]) == (0, pytest.approx(math.nan, nan_ok=True))
    three = SiteChoice.from_probs("t", {"this": 0.5, "that": 0.3, "the": 0.2})
    assert expected_tpr([("that", three)]) == (1, pytest.approx(0.7))


def test_site_choice_validation_and_argmax():
    with pytest.raises(InputError, match="sum to 1"):
        SiteChoice.from_probs("s", {"the": 0.7, "a": 0.7})
    assert SiteChoice.from_probs("s", {"the": 2, "a": 2}, renormalise=True).p("a") == 0.5
    tie = SiteChoice.binary("s", 0.5)
    assert tie.argmax(("the", "a")) == "the" and tie.argmax(("a", "the")) == "a"


def _dialogue():
    seq = [
        make_site(0, "caretaker", "the", "dog"),
        make_site(1, "child", "a", "dog"),
        make_site(2, "caretaker", "the", "ball"),
        make_site(3, "child", "the", "ball"),
        make_site(4, "child", "a", "ball"),
        make_site(5, "caretaker", "a", "ball"),
        make_site(7, "child", "the", "ball"),
        make_site(9, "child", "a", "cup"),
    ]
    first = list(link_antecedents(seq))
    second = list(
        link_antecedents(
            [
                replace(
                    s,
                    id=s.id.replace("f:", "g:"),
                    file="g",
                    dyad="e",
                    choice="the" if s.choice == "a" else "a",
                )
                for s in seq
            ]
        )
    )
    return first + second


def test_one_hot_model_reproduces_human_statistics():
    sites = _dialogue()
    choices = [SiteChoice.binary(s.id, 1.0 if s.choice == "the" else 0.0) for s in sites]
    model = {(m.dyad, m.role): m for m in model_stats(sites, choices, source="oracle")}
    for h in human_stats(sites):
        m = model[(h.dyad, h.role)]
        assert (m.n_types, m.n_tokens, m.n_tpr) == (h.n_types, h.n_tokens, h.n_tpr)
        for field in ("bias", "overlap", "predicted_overlap", "tpr"):
            assert getattr(m, field) == pytest.approx(getattr(h, field)), field
        assert m.accuracy == 1.0


def test_model_stats_hand_computed_child_group():
    sites = [s for s in _dialogue() if s.dyad == "d"]
    p = {"f:1:0": 0.4, "f:3:0": 0.8, "f:4:0": 0.5, "f:7:0": 0.9, "f:9:0": 0.1}
    choices = [SiteChoice.binary(i, v) for i, v in p.items()]
    (child,) = model_stats(sites, choices, source="m")
    assert (child.role, child.n_types, child.n_tokens) == ("child", 3, 5)
    # dog [0.4]: 0; ball [0.8, 0.5, 0.9]: 1 - 0.36 - 0.01 = 0.63; cup [0.1]: 0.
    assert child.overlap == pytest.approx(0.63 / 3)
    # Eq 3: dog max(.4,.6) = .6; ball max(2.2, 0.8) = 2.2; cup .9 -> 3.7 / 5.
    assert child.bias == pytest.approx(3.7 / 5)
    # TPR cases: f:1 after 'the' -> P(a) = .6; f:3 after 'the' -> .2; f:7 after 'a' -> P(the) = .9.
    assert (child.n_tpr, child.tpr) == (3, pytest.approx((0.6 + 0.2 + 0.9) / 3))
    # argmax vs child: a(.4 -> a) ok, the(.8) ok, a(.5 tie -> the) wrong, the(.9) ok, a(.1) ok.
    assert child.accuracy == pytest.approx(4 / 5)


def test_in_window_only_drops_cases_with_antecedent_outside_the_context():
    sites = [s for s in _dialogue() if s.dyad == "d"]
    choices = [SiteChoice.binary(s.id, 0.5, antecedent_in_context=(s.id != "f:7:0")) for s in sites]
    (_, child) = model_stats(sites, choices, source="m", in_window_only=True)
    assert child.n_tpr == 2


def test_unknown_sites_and_labels_are_errors():
    sites = _dialogue()
    with pytest.raises(InputError, match="unknown site ids"):
        model_stats(sites, [SiteChoice.binary("nope:1:0", 0.5)], source="m")
    with pytest.raises(InputError, match="alternation"):
        model_stats(sites, [SiteChoice.from_probs(sites[0].id, {"this": 0.5, "that": 0.5})], source="m")


def test_degenerate_model_is_flagged_and_its_test_reported_as_computed():
    """App. D / Table D1: BabyBERTa-3 (bias 0.999) passes the D×N test (p = 0.863); the pass is reported
    as computed, with ``degenerate`` beside it (it used to be forced to a fail)."""
    rows = [
        GroupStats(source="m", dyad=f"d{i}", role="child", n_types=50, n_tokens=200, bias=0.995,
                   overlap=0.010 + d, predicted_overlap=0.010, n_tpr=20, tpr=0.5)
        for i, d in enumerate((0.002, -0.001, 0.001, -0.002, 0.0005))
    ]  # fmt: skip
    verdict = model_tests(rows)
    dxn = verdict.tests[0]
    assert verdict.degenerate and verdict.mean_bias == pytest.approx(0.995)
    assert dxn.p_value > 0.05 and dxn.passed is True and verdict.dxn_pass is True
    assert "degenerate" in dxn.note and dxn.as_row()["degenerate"] is True
    # a constant model on real sites: flagged, the test's own verdict kept
    sites = _dialogue()
    _, const = evaluate_model(sites, [SiteChoice.binary(s.id, 0.999) for s in sites], source="const")
    assert const.degenerate and const.dxn_pass is const.tests[0].passed
    healthy = model_tests([replace(r, bias=0.8) for r in rows])
    assert not healthy.degenerate and "degenerate" not in healthy.tests[0].note
    assert healthy.tests[0].as_row()["degenerate"] is False


def test_model_verdict_tests_and_accuracy_helper():
    rng = np.random.default_rng(1)
    sites = _dialogue()
    choices = [SiteChoice.binary(s.id, float(rng.uniform(0.2, 0.8))) for s in sites]
    stats, verdict = evaluate_model(sites, choices, source="m", human=human_stats(sites))
    assert {t.name for t in verdict.tests} == {"dxn_overlap", "tpr_vs_adult_baseline", "tpr_vs_human_child"}
    assert all(t.n == 2 for t in verdict.tests) and not verdict.degenerate
    assert len(stats) == 4
    pairs = [(s, c) for s, c in zip(sites, choices, strict=True)]
    assert 0 <= mle_accuracy(pairs, ("the", "a")) <= 1


def test_multi_way_alternation_choice_metrics():
    alt = Alternation.parse("this,that")
    sites = [
        replace(
            s,
            choice="this" if s.choice == "the" else "that",
            prev_choice=None if s.prev_choice is None else ("this" if s.prev_choice == "the" else "that"),
        )
        for s in _dialogue()
    ]
    choices = [SiteChoice.from_probs(s.id, {"this": 0.25, "that": 0.75}) for s in sites]
    stats = model_stats(sites, choices, source="m", alternation=alt)
    assert all(not math.isnan(s.tpr) or s.n_tpr == 0 for s in stats)
    alt3 = Alternation.parse("this,that,the")
    assert not alt3.is_binary
    h = human_stats([replace(s, choice="the") for s in sites], alt3)
    assert all(math.isnan(s.overlap) and math.isnan(s.predicted_overlap) for s in h)
