"""``ltswap build --plan``: what a run will cost, before it runs.

A few timed calls on the user's backend (writer sentences and judge prompts of this corpus's own
words, sent uncached so that they time the backend) give seconds and generated tokens per request;
the arithmetic then scales them by the run's expected requests. Expected requests come from the draw
(``--max-per-bin``) or, under ``--per-cell N``, from the candidates each cell needs at the assumed
yields below (the demo run's measured rates, issue #29), capped by the cell's candidates.

Requests are counted as the run counts them: one writer request per word form (WordSwap word, each
form of an InflectionSwap pair) and per AgreementSwap (noun pair, rule, sample), plus ``--rewrites``
(an InflectionSwap form written again while its partner passed); two confirmation prompts per
inflection/agreement pair; four judge prompts per kept draft and about three per dropped one (its second
pair is asked only when the first passed), and under ``--per-cell`` only the drafts the cells need.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpusbench.errors import BackendError, ConfigError
from corpusbench.generators.ltswap import cells as cellmod
from corpusbench.generators.ltswap.generation import word_request, writer_examples
from corpusbench.generators.ltswap.judging import FilterRule, JudgeItem
from corpusbench.generators.ltswap.prompting import writer

# share of written sentences (AgreementSwap: replies) passing the checks, per subtask, and share of judged
# drafts kept: the default demo run's rates (writer v4, --force-form on all three subtasks; #29, 2026-11-26)
SENTENCE_PASS = {"wordswap": 0.85, "inflswap": 0.87, "agrswap": 0.96}  # 58/68, 117/134, 46/48
JUDGE_KEEP = 0.82  # 96 kept of 117 judged drafts
TIMED = 4  # writer and judge requests timed


@dataclass(frozen=True, slots=True, kw_only=True)
class Timing:
    """Measured per request: seconds (in a batch of ``TIMED``) and generated tokens."""

    writer_s: float
    writer_tokens: float
    judge_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SubtaskEstimate:
    subtask: str
    candidates: int  # words / inflection pairs / agreement noun pairs drawn
    writer: int
    judge: int  # confirmation + judge prompts
    tokens: int
    kept: int
    seconds: float


def pair_pass(p: float, rewrites: int) -> float:
    """Share of InflectionSwap pairs with both sentences passing, each passing with ``p``, when a failed
    side is written again up to ``rewrites`` times while its partner passed."""
    return p * p + 2 * p * (1 - p) * (1 - (1 - p) ** rewrites)


def rewrites_per_pair(p: float, rewrites: int) -> float:
    """Expected rewrites sent per InflectionSwap pair (the same model as ``pair_pass``)."""
    return 2 * p * (1 - p) * sum((1 - p) ** i for i in range(rewrites))


def _yield(subtask: str, params: Any, cell: cellmod.Cell) -> float:
    """Expected kept quadruplets per drawn candidate of ``cell``."""
    p = SENTENCE_PASS[subtask]
    if subtask == "wordswap":
        return p * 0.5 * params.pairs_per_word * JUDGE_KEEP
    if subtask == "inflswap":
        return pair_pass(p, params.rewrites) * JUDGE_KEEP
    rules = sum(1 for r in params.rules if not cell.length or cellmod.LENGTH[r] == cell.length)
    return rules * params.agreement_samples * p * JUDGE_KEEP


def expected_counts(params: Any, pools: cellmod.Pools, counts: Mapping[cellmod.Group, int]) -> dict[Any, int]:
    """The draw per group the run is expected to end with: ``counts`` as is, or under ``per_cell`` the
    candidates each cell needs at the assumed yields (at least round 1's draw, at most the pool)."""
    if params.per_cell is None:
        return dict(counts)
    out = {}
    for (s, g), n in counts.items():
        items = pools[s][g]
        groups_in_bin = sum(1 for g2 in pools[s] if cellmod.group_bin(s, g2) == cellmod.group_bin(s, g))
        need = max(
            math.ceil(params.per_cell / max(_yield(s, params, c), cellmod.MIN_YIELD) / groups_in_bin)
            for c in cellmod.cells_of(s, g, params.rules, params.by_length)
        )
        top = params.cap(s)
        out[(s, g)] = max(n, min(need, len(items), top if top is not None else len(items)))
    return out


def estimate(
    params: Any, drawn: Mapping[str, int], timing: Timing, cells: Mapping[str, int] | None = None
) -> list[SubtaskEstimate]:
    """Requests, generated tokens, kept quadruplets and wall time per subtask for ``drawn`` candidates;
    ``cells``: the subtask's cells (under ``--per-cell`` judging stops once they hold N each)."""
    rows = []
    confirm = 2 if params.confirm_inflections else 0
    keep = JUDGE_KEEP if params.llm_filter else 1.0
    judge_per = (4 * keep + 3 * (1 - keep)) if params.llm_filter else 0
    for s, n in drawn.items():
        p = SENTENCE_PASS[s]
        if s == "wordswap":
            writer, drafts, confirms, tokens_each = n, n * p / 2 * params.pairs_per_word, 0, 1
        elif s == "inflswap":
            rewrites = n * rewrites_per_pair(p, params.rewrites)
            writer, drafts, confirms = round(2 * n + rewrites), n * pair_pass(p, params.rewrites), confirm * n
            tokens_each = 1
        else:
            k = len(params.rules) * params.agreement_samples
            writer, drafts, confirms, tokens_each = n * k, n * k * p, confirm * n, 2  # two sentences
        judged = drafts
        if params.per_cell is not None and cells and s in cells:
            judged = min(drafts, params.per_cell * cells[s] / keep)
        judge = confirms + round(judge_per * judged)
        rows.append(
            SubtaskEstimate(
                subtask=s,
                candidates=n,
                writer=writer,
                judge=judge,
                tokens=round(writer * timing.writer_tokens * tokens_each),
                kept=round(judged * keep),
                seconds=writer * timing.writer_s * tokens_each + judge * timing.judge_s,
            )
        )
    return rows


def time_backend(backend: Any, params: Any, words: Sequence[Any], nonce: str) -> Timing:
    """Send ``TIMED`` writer and ``TIMED`` judge requests straight to ``backend`` (uncached), after one
    untimed request of each kind (a fresh server's first requests pay its warm-up)."""
    forms = [(w.form, w.tag) for w in words[:TIMED]] or [("word", "NN")] * TIMED
    guided = "wordswap" in params.force_form
    examples = writer_examples(words, params.seed) if writer(params.writer_prompt).examples else ()
    if params.force_form and not backend.guided_regex:
        raise ConfigError(
            f"--force-form: the {backend.name} LLM backend cannot constrain decoding to a regex"
        )
    reqs = [
        word_request(f, t, params.max_tokens, params.lang, params.writer_prompt, guided, examples)
        for f, t in forms
    ]
    backend.generate(reqs[:1])  # warm-up, untimed
    t0 = time.perf_counter()
    gens = backend.generate(reqs)
    writer_s = time.perf_counter() - t0
    a = words[0] if words else None
    b = words[1] if len(words) > 1 else a
    w1, w2 = (a.form, b.form) if a and b else ("word", "thing")
    c1 = a.contexts[0] if a and a.contexts else f"The {w1} was here ."
    c2 = b.contexts[0] if b and b.contexts else f"The {w2} was there ."
    item = JudgeItem(
        id="plan",
        subtask="wordswap",
        w1=w1,
        w2=w2,
        s1_good=c1,
        s2_good=c2,
        s1_bad=c1.replace(w1, w2),
        s2_bad=c2.replace(w2, w1),
        context1=c1,
        context2=c2,
        tag1=a.tag if a else "NN",
        tag2=b.tag if b else "NN",
        lang=params.lang,
    )
    judge_reqs = FilterRule(params.filter_rule, params.filter_threshold).requests(item, nonce)[:TIMED]
    backend.choose(judge_reqs[:1])  # warm-up, untimed
    t0 = time.perf_counter()
    choices = backend.choose(judge_reqs)
    judge_s = time.perf_counter() - t0
    failed = [r for r in [*gens, *choices] if r.status == "error"]
    if failed:
        raise BackendError(
            f"--plan: {len(failed)} of {len(gens) + len(choices)} timed LLM calls failed "
            f"({failed[0].error or 'error'}); fix the backend and rerun"
        )
    tokens = sum(g.tokens_out for g in gens) / len(gens)
    return Timing(writer_s=writer_s / len(reqs), writer_tokens=tokens, judge_s=judge_s / len(judge_reqs))
