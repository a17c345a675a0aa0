"""Model-side CAC metrics from per-site choice probabilities (paper §3.2, Eqs 2–4).

The eval runner scores each site (the model takes the human speaker's place, given the gold
context) and hands a list of :class:`SiteChoice` to :func:`evaluate_model`, together with the
sites from ``sites.parquet`` (:func:`corpusbench.families.cac.io.load_sites`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from corpusbench.errors import ConfigError, InputError
from corpusbench.families.cac.records import (
    ADULT_TPR_BASELINE,
    DEGENERATE_BIAS,
    Alternation,
    GroupStats,
    Site,
    SiteChoice,
    TestResult,
)
from corpusbench.families.cac.stats import group_sites, one_sample_test, paired_test, yang_predicted_overlap

BIAS_METHODS = ("expectation", "realised")


def expected_overlap(p_by_key: Mapping[str, Sequence[float]]) -> float:
    """Eq 2: mean over keys of ``1 - prod p_i - prod (1 - p_i)`` (p = P(first alternative) per site)."""
    if not p_by_key:
        return math.nan
    vals = [1.0 - math.prod(ps) - math.prod(1.0 - p for p in ps) for ps in p_by_key.values()]
    return float(np.mean(vals))


def expected_bias(p_by_key: Mapping[str, Sequence[float]], method: str = "expectation") -> float:
    """Model bias. ``expectation`` is Eq 3: ``sum_n max(sum p, sum (1-p)) / S`` (max of expectations,
    as in the paper). ``realised`` is ``sum_n E[max(X_n, k_n - X_n)] / S`` with X_n Poisson-binomial:
    the expected value of the human statistic (Eq 1) on a corpus sampled from the model."""
    if method not in BIAS_METHODS:
        raise ConfigError(f"unknown bias method {method!r} ({', '.join(BIAS_METHODS)})")
    total = sum(len(ps) for ps in p_by_key.values())
    if not total:
        return math.nan
    if method == "expectation":
        return sum(max(sum(ps), sum(1.0 - p for p in ps)) for ps in p_by_key.values()) / total
    acc = 0.0
    for ps in p_by_key.values():
        dist = poisson_binomial(ps)
        k = len(ps)
        acc += float(sum(q * max(x, k - x) for x, q in enumerate(dist)))
    return acc / total


def poisson_binomial(ps: Sequence[float]) -> np.ndarray:
    """Distribution of the number of successes of independent Bernoulli(p_i) trials (exact DP)."""
    dist = np.zeros(len(ps) + 1)
    dist[0] = 1.0
    for i, p in enumerate(ps, 1):
        dist[1 : i + 1] = dist[1 : i + 1] * (1.0 - p) + dist[0:i] * p
        dist[0] *= 1.0 - p
    return dist


def expected_tpr(cases: Iterable[tuple[str, SiteChoice]]) -> tuple[int, float]:
    """Eq 4, for any number of alternatives: mean over cases of ``1 - P(model picks the antecedent's
    choice)``; for {the, a} this is ``M_the P(C=a) + M_a P(C=the)`` with a known antecedent."""
    vals = [1.0 - choice.p(prev) for prev, choice in cases]
    return len(vals), (float(np.mean(vals)) if vals else math.nan)


def mle_accuracy(pairs: Iterable[tuple[Site, SiteChoice]], order: tuple[str, ...]) -> float:
    """Share of sites where the model's most probable alternative equals the human's choice."""
    hits = [c.argmax(order) == s.choice for s, c in pairs]
    return float(np.mean(hits)) if hits else math.nan


def _join(
    sites: Iterable[Site], choices: Iterable[SiteChoice], alt: Alternation
) -> list[tuple[Site, SiteChoice]]:
    by_id = {c.site_id: c for c in choices}
    site_ids = set()
    pairs = []
    for s in sites:
        site_ids.add(s.id)
        if s.id in by_id:
            c = by_id[s.id]
            if sorted(k for k, _ in c.probs) != sorted(alt.labels):
                raise InputError(
                    f"site {s.id}: choice labels {[k for k, _ in c.probs]} != alternation {list(alt.labels)}"
                )
            pairs.append((s, c))
    unknown = sorted(set(by_id) - site_ids)
    if unknown:
        raise InputError(
            f"{len(unknown)} choice(s) for unknown site ids, e.g. {unknown[0]!r}: "
            "were the probabilities computed on another sites.parquet?"
        )
    return pairs


def model_stats(
    sites: Iterable[Site],
    choices: Iterable[SiteChoice],
    *,
    source: str,
    alternation: Alternation = Alternation(),
    bias_method: str = "expectation",
    in_window_only: bool = False,
    zipf_exponent: float = 1.0,
) -> list[GroupStats]:
    """Per (dyad, role) over the scored sites: expected overlap (Eq 2), bias (Eq 3 or E[max]),
    Yang's predicted overlap from that bias, expected TPR (Eq 4) and MLE accuracy.

    ``in_window_only`` restricts TPR cases to those whose antecedent was inside the model's context.
    """
    pairs = _join(sites, choices, alternation)
    first = alternation.labels[0]
    lookup = {s.id: c for s, c in pairs}
    out = []
    for (dyad, role), sites_in_group in group_sites(s for s, _ in pairs).items():
        group = [(s, lookup[s.id]) for s in sites_in_group]
        p_by_key: dict[str, list[float]] = defaultdict(list)
        for s, c in group:
            p_by_key[s.key].append(c.p(first))
        binary = alternation.is_binary
        bias = expected_bias(p_by_key, bias_method) if binary else _multi_bias(group)
        cases = [
            (s.prev_choice, c)
            for s, c in group
            if s.tpr_case
            and s.prev_choice is not None
            and not (in_window_only and c.antecedent_in_context is False)
        ]
        n_tpr, tpr = expected_tpr(cases)  # type: ignore[arg-type]
        out.append(
            GroupStats(
                source=source,
                dyad=dyad,
                role=role,
                n_types=len(p_by_key),
                n_tokens=len(group),
                bias=bias,
                overlap=expected_overlap(p_by_key) if binary else math.nan,
                predicted_overlap=yang_predicted_overlap(len(p_by_key), len(group), bias, zipf_exponent)
                if binary
                else math.nan,
                n_tpr=n_tpr,
                tpr=tpr,
                accuracy=mle_accuracy(group, alternation.labels),
            )
        )
    return out


def _multi_bias(group: Sequence[tuple[Site, SiteChoice]]) -> float:
    """Eq 3 generalised to k alternatives: ``sum_n max_d sum_i P_i(d) / S``."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for s, c in group:
        for label, p in c.probs:
            sums[s.key][label] += p
    return sum(max(v.values()) for v in sums.values()) / len(group) if group else math.nan


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelVerdict:
    """The model's tests for one role. The D×N test decides ``dxn_pass`` as computed (p > alpha, as
    Table D1 prints it); ``degenerate`` (mean bias >= 0.98, App. D) is reported beside it, because a
    near-constant choice passes trivially. The one-sample TPR test vs the adult baseline decides
    ``tpr_pass`` (the paper's TPR column); the paired TPR test vs humans is reported, not deciding."""

    role: str
    mean_bias: float
    degenerate: bool
    dxn_pass: bool | None
    tpr_pass: bool | None
    tests: tuple[TestResult, ...] = field(default_factory=tuple)


def is_degenerate(mean_bias: float, degenerate_bias: float = DEGENERATE_BIAS) -> bool:
    """App. D: a mean bias >= 0.98 means the model (nearly) always picks one alternative."""
    return bool(mean_bias >= degenerate_bias)


def model_tests(
    stats: Sequence[GroupStats],
    human: Sequence[GroupStats] = (),
    *,
    role: str = "child",
    baseline: float = ADULT_TPR_BASELINE,
    alpha: float = 0.05,
    degenerate_bias: float = DEGENERATE_BIAS,
) -> ModelVerdict:
    """Across dyads: D×N paired t (expected vs predicted overlap), TPR one-sample t vs ``baseline``,
    and (if ``human`` stats are given) TPR paired t vs the humans of the same role and dyads."""
    from dataclasses import replace

    rows = sorted((s for s in stats if s.role == role), key=lambda s: s.dyad)
    if not rows:
        raise InputError(f"no scored sites for role {role!r}")
    mean_bias = float(np.nanmean([s.bias for s in rows]))
    degenerate = is_degenerate(mean_bias, degenerate_bias)
    dxn = paired_test(
        [s.overlap for s in rows],
        [s.predicted_overlap for s in rows],
        name="dxn_overlap",
        role=role,
        alpha=alpha,
    )
    flag = f"degenerate: mean bias {mean_bias:.3f} >= {degenerate_bias} (a pass is trivial, App. D)"
    dxn = replace(
        dxn,
        note="; ".join(x for x in (dxn.note, flag if degenerate else "") if x),
        extra={"degenerate": degenerate},
    )
    tpr = one_sample_test(
        [s.tpr for s in rows], baseline, name="tpr_vs_adult_baseline", role=role, alpha=alpha
    )
    tests = [dxn, tpr]
    hum = {s.dyad: s.tpr for s in human if s.role == role}
    if hum:
        both = [s for s in rows if s.dyad in hum]
        tests.append(
            paired_test(
                [s.tpr for s in both],
                [hum[s.dyad] for s in both],
                name=f"tpr_vs_human_{role}",
                role=role,
                alpha=alpha,
            )
        )
    return ModelVerdict(
        role=role,
        mean_bias=mean_bias,
        degenerate=degenerate,
        dxn_pass=dxn.passed,
        tpr_pass=tpr.passed,
        tests=tuple(tests),
    )


def evaluate_model(
    sites: Sequence[Site],
    choices: Sequence[SiteChoice],
    *,
    source: str,
    alternation: Alternation = Alternation(),
    human: Sequence[GroupStats] = (),
    role: str = "child",
    bias_method: str = "expectation",
    in_window_only: bool = False,
    baseline: float = ADULT_TPR_BASELINE,
    alpha: float = 0.05,
) -> tuple[list[GroupStats], ModelVerdict]:
    """Per-dyad model statistics plus the verdict for ``role`` (what the eval runner calls)."""
    stats = model_stats(
        sites,
        choices,
        source=source,
        alternation=alternation,
        bias_method=bias_method,
        in_window_only=in_window_only,
    )
    return stats, model_tests(stats, human, role=role, baseline=baseline, alpha=alpha)
