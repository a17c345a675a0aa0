"""Human statistics: overlap, bias (Eq 1), Yang's predicted overlap (Eqs 5–8), TPR and the tests.

All functions are pure; groups are (dyad, role) for the child and caretaker roles.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from corpusbench.corpus.chat import CARETAKER, CHILD
from corpusbench.errors import ConfigError
from corpusbench.families.cac.records import (
    ADULT_TPR_BASELINE,
    UNIVERSAL_BIAS,
    Alternation,
    GroupStats,
    Site,
    TestResult,
)

ROLES = (CHILD, CARETAKER)


def yang_predicted_overlap(n_types: int, n_tokens: int, bias: float, zipf_exponent: float = 1.0) -> float:
    """Expected overlap of a fully productive two-way combination (Yang 2013; paper Appendix A, Eq 8).

    Noun ranks follow Zipf's law ``p_r = 1 / (r^a H_{N,a})``; each of ``n_tokens`` draws picks a noun
    and then its favoured determiner with probability ``bias``. Returns the mean over ranks of
    ``1 - (b p + 1 - p)^S - ((1 - b) p + 1 - p)^S + (1 - p)^S``.
    """
    if n_types <= 0 or n_tokens <= 0 or not 0.0 <= bias <= 1.0 or math.isnan(bias):
        return math.nan
    r = np.arange(1, n_types + 1, dtype=float)
    w = r ** (-zipf_exponent)
    p = w / w.sum()

    def power(q: np.ndarray) -> np.ndarray:  # (1 - q)^S, accurate for small q
        with np.errstate(divide="ignore"):  # q = 1 (a single type): log1p(-1) = -inf -> 0
            return np.exp(n_tokens * np.log1p(-np.minimum(q, 1.0)))

    e = 1.0 - power((1.0 - bias) * p) - power(bias * p) + power(p)
    return float(np.clip(e, 0.0, 1.0).mean())


def choice_counts(sites: Iterable[Site]) -> dict[str, Counter[str]]:
    """Per key: how often each alternative was chosen."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for s in sites:
        counts[s.key][s.choice] += 1
    return counts


def bias_from_counts(counts: Mapping[str, Counter[str]]) -> float:
    """Eq 1: ``sum_n max_d C(d, n) / S``: the share of tokens with each noun's favourite alternative."""
    total = sum(sum(c.values()) for c in counts.values())
    return sum(max(c.values()) for c in counts.values()) / total if total else math.nan


def empirical_overlap(counts: Mapping[str, Counter[str]], labels: Sequence[str]) -> float:
    """Eq 9: share of keys seen with every alternative (only defined for two alternatives)."""
    if len(labels) != 2:
        raise ConfigError("the overlap test is only defined for exactly two alternatives")
    if not counts:
        return math.nan
    return sum(all(c[lab] > 0 for lab in labels) for c in counts.values()) / len(counts)


def tpr_from_sites(sites: Iterable[Site]) -> tuple[int, float]:
    """Pooled TPR: switches / cases over TPR cases (sum the counts, then divide)."""
    cases = [s for s in sites if s.tpr_case]
    if not cases:
        return 0, math.nan
    return len(cases), sum(s.choice != s.prev_choice for s in cases) / len(cases)


def group_sites(sites: Iterable[Site], roles: Sequence[str] = ROLES) -> dict[tuple[str, str], list[Site]]:
    groups: dict[tuple[str, str], list[Site]] = defaultdict(list)
    for s in sites:
        if s.role in roles:
            groups[(s.dyad, s.role)].append(s)
    return dict(sorted(groups.items()))


def human_stats(
    sites: Iterable[Site], alternation: Alternation = Alternation(), zipf_exponent: float = 1.0
) -> list[GroupStats]:
    """N, S, bias, empirical and predicted overlap, TPR per (dyad, role)."""
    out = []
    for (dyad, role), group in group_sites(sites).items():
        counts = choice_counts(group)
        bias = bias_from_counts(counts)
        binary = alternation.is_binary
        n_tpr, tpr = tpr_from_sites(group)
        out.append(
            GroupStats(
                source="human",
                dyad=dyad,
                role=role,
                n_types=len(counts),
                n_tokens=len(group),
                bias=bias,
                overlap=empirical_overlap(counts, alternation.labels) if binary else math.nan,
                predicted_overlap=yang_predicted_overlap(len(counts), len(group), bias, zipf_exponent)
                if binary
                else math.nan,
                n_tpr=n_tpr,
                tpr=tpr,
            )
        )
    return out


def passes(p_value: float, alpha: float = 0.05) -> bool | None:
    """The paper's criterion (Table D1): a test is passed when p > alpha (no significant difference);
    ``None`` when p was not computed."""
    return None if math.isnan(p_value) else bool(p_value > alpha)


def _finite_pairs(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, float), np.asarray(b, float)
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


def paired_test(
    a: Sequence[float], b: Sequence[float], *, name: str, role: str, alpha: float = 0.05
) -> TestResult:
    """Two-sided paired t-test of ``a`` vs ``b`` over dyads; pass = p > alpha."""
    from scipy import stats

    x, y = _finite_pairs(a, b)
    if len(x) < 2:
        return TestResult(
            name=name,
            test="paired t",
            role=role,
            n=len(x),
            note=f"not computed: needs >= 2 dyads with values (have {len(x)})",
        )
    if np.allclose(x - y, (x - y)[0]):
        note = "differences are constant: t undefined"
        return TestResult(
            name=name,
            test="paired t",
            role=role,
            n=len(x),
            mean_a=float(x.mean()),
            mean_b=float(y.mean()),
            note=note,
        )
    r = stats.ttest_rel(x, y)
    return TestResult(
        name=name,
        test="paired t",
        role=role,
        n=len(x),
        statistic=float(r.statistic),
        p_value=float(r.pvalue),
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        passed=passes(float(r.pvalue), alpha),
    )


def one_sample_test(
    values: Sequence[float], popmean: float, *, name: str, role: str, alpha: float = 0.05
) -> TestResult:
    """Two-sided one-sample t-test of the dyad values against ``popmean``; pass = p > alpha."""
    from scipy import stats

    x = np.asarray(values, float)
    x = x[np.isfinite(x)]
    if len(x) < 2 or np.allclose(x, x[0]):
        why = "needs >= 2 dyads with values" if len(x) < 2 else "values are constant: t undefined"
        return TestResult(
            name=name,
            test="one-sample t",
            role=role,
            n=len(x),
            mean_b=popmean,
            mean_a=float(x.mean()) if len(x) else math.nan,
            note=f"not computed: {why} (have {len(x)})",
        )
    r = stats.ttest_1samp(x, popmean)
    return TestResult(
        name=name,
        test="one-sample t",
        role=role,
        n=len(x),
        statistic=float(r.statistic),
        p_value=float(r.pvalue),
        mean_a=float(x.mean()),
        mean_b=popmean,
        passed=passes(float(r.pvalue), alpha),
    )


def human_tests(
    stats: Sequence[GroupStats],
    *,
    baseline: float = ADULT_TPR_BASELINE,
    bias_level: float = UNIVERSAL_BIAS,
    alpha: float = 0.05,
) -> list[TestResult]:
    """The paper's §4 tests over dyads. Per role: D×N (paired t, empirical vs predicted overlap), TPR
    (one-sample t vs the adult ``baseline``) and bias (one-sample t vs ``bias_level``, 0.82 from COCA).
    Children vs caretakers, paired over the dyads with both: TPR, bias and empirical overlap."""
    out = []
    for role in ROLES:
        rows = [s for s in stats if s.role == role]
        out.append(
            paired_test(
                [s.overlap for s in rows],
                [s.predicted_overlap for s in rows],
                name="dxn_overlap",
                role=role,
                alpha=alpha,
            )
        )
        out.append(
            one_sample_test(
                [s.tpr for s in rows], baseline, name="tpr_vs_adult_baseline", role=role, alpha=alpha
            )
        )
        out.append(
            one_sample_test(
                [s.bias for s in rows], bias_level, name="bias_vs_adult_level", role=role, alpha=alpha
            )
        )
    for what in ("tpr", "bias", "overlap"):
        child = {s.dyad: getattr(s, what) for s in stats if s.role == CHILD}
        care = {s.dyad: getattr(s, what) for s in stats if s.role == CARETAKER}
        both = sorted(set(child) & set(care))
        out.append(
            paired_test(
                [child[d] for d in both],
                [care[d] for d in both],
                name=f"{what}_child_vs_caretaker",
                role="child-caretaker",
                alpha=alpha,
            )
        )
    return out
