"""``ltswap build --plan``: what a run will cost, before it runs.

A pilot (:func:`run_pilot`) runs the real pipeline on a few of this corpus's own words (``PILOT`` per
subtask: a few dozen writer and judge calls) through the run's LLM cache, so the real run reuses every
answer. It measures what the estimate needs: the share of written sentences passing the checks per
subtask, the share of judged drafts kept, seconds per request and generated tokens per sentence. The
arithmetic then scales them by the run's expected requests, as a range over the 95% (Wilson) intervals of
the pilot's shares. Expected requests come from the draw (``--max-per-bin``) or, under ``--per-cell N``,
from the candidates each cell needs at those yields, capped by the cell's candidates. Where the pilot saw
no sentence of a subtask, the demo run's rates (``DEMO``, issue #29) stand in.

Requests are counted as the run counts them: one writer request per word form (WordSwap word, each
form of an InflectionSwap pair) and per AgreementSwap (noun pair, rule, sample), plus ``--rewrites``
(an InflectionSwap form written again while its partner passed); two confirmation prompts per
inflection/agreement pair; four judge prompts per kept draft and about three per dropped one (its second
pair is asked only when the first passed), and under ``--per-cell`` only the drafts the cells need.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from corpusbench.errors import BackendError, ConfigError
from corpusbench.families.ltswap import cells as cellmod
from corpusbench.families.ltswap.generation import word_request, writer_examples
from corpusbench.families.ltswap.judging import FilterRule, JudgeItem
from corpusbench.families.ltswap.prompting import writer
from corpusbench.intervals import wilson

ENDS = ("low", "mid", "high")  # the pilot's shares at the low end of their 95% interval, as measured, high

# share of written sentences (AgreementSwap: replies) passing the checks, per subtask, and share of judged
# drafts kept: the default demo run's rates (writer v4, --force-form on all three subtasks; #29, 2026-11-26)
SENTENCE_PASS = {"wordswap": 0.85, "inflswap": 0.87, "agrswap": 0.96}  # 58/68, 117/134, 46/48
JUDGE_KEEP = 0.82  # 96 kept of 117 judged drafts
TIMED = 4  # writer and judge requests timed when the pilot's answers all came from the cache
PILOT = {"wordswap": 8, "inflswap": 4, "agrswap": 2}  # pilot items: words, inflection pairs, noun pairs


@dataclass(frozen=True, slots=True, kw_only=True)
class Rates:
    """Shares an estimate assumes: written sentences passing the checks per subtask, judged drafts kept."""

    sentence: Mapping[str, float]
    judge_keep: float


DEMO = Rates(sentence=SENTENCE_PASS, judge_keep=JUDGE_KEEP)


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


def cell_yield(subtask: str, params: Any, cell: cellmod.Cell, rates: Rates = DEMO) -> float:
    """Expected kept quadruplets per drawn candidate of ``cell``."""
    p, keep = rates.sentence[subtask], rates.judge_keep if params.llm_filter else 1.0
    if subtask == "wordswap":
        return p * 0.5 * params.pairs_per_word * keep
    if subtask == "inflswap":
        return pair_pass(p, params.rewrites) * keep
    rules = sum(1 for r in params.rules if not cell.length or cellmod.LENGTH[r] == cell.length)
    return rules * params.agreement_samples * p * keep


def expected_counts(
    params: Any, pools: cellmod.Pools, counts: Mapping[cellmod.Group, int], rates: Rates = DEMO
) -> dict[Any, int]:
    """The draw per group the run is expected to end with: ``counts`` as is, or under ``per_cell`` the
    candidates each cell needs at the assumed yields (at least round 1's draw, at most the pool)."""
    if params.per_cell is None:
        return dict(counts)
    out = {}
    for (s, g), n in counts.items():
        items = pools[s][g]
        groups_in_bin = sum(1 for g2 in pools[s] if cellmod.group_bin(s, g2) == cellmod.group_bin(s, g))
        need = max(
            math.ceil(
                params.per_cell / max(cell_yield(s, params, c, rates), cellmod.MIN_YIELD) / groups_in_bin
            )
            for c in cellmod.cells_of(s, g, params.rules, params.by_length)
        )
        top = params.cap(s)
        out[(s, g)] = max(n, min(need, len(items), top if top is not None else len(items)))
    return out


def estimate(
    params: Any,
    drawn: Mapping[str, int],
    timing: Timing,
    cells: Mapping[str, int] | None = None,
    rates: Rates = DEMO,
) -> list[SubtaskEstimate]:
    """Requests, generated tokens, kept quadruplets and wall time per subtask for ``drawn`` candidates;
    ``cells``: the subtask's cells (under ``--per-cell`` judging stops once they hold N each). Sentence
    scores (the ``lm`` rule, ``--fluent-first``) count as judge requests, priced as one."""
    rows = []
    confirm = 2 if params.confirm_inflections else 0
    keep = rates.judge_keep if params.llm_filter else 1.0
    judge_per = (4 * keep + 3 * (1 - keep)) if params.llm_filter else 0
    for s, n in drawn.items():
        p = rates.sentence[s]
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
        if params.llm_filter and params.rule().for_subtask(s).scored:
            judge = confirms + round(4 * drafts)  # ``best_first`` scores every draft's 4 sentences (``lm``)
        elif params.llm_filter and s in params.fluent_first:
            judge += round(2 * drafts)  # and every draft's 2 good sentences for ``--fluent-first``
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Pilot:
    """What the pilot measured: sentences passing the checks per subtask (passed, written), judged drafts
    and kept ones, the requests it used (``sent`` of them to the backend now, the rest from the cache)."""

    sentences: Mapping[str, tuple[int, int]]
    judged: int
    kept: int
    requests: int
    sent: int
    seconds: float
    timing: Timing | None  # None: too few answers came from the backend now to time it

    def rates(self, end: str = "mid") -> Rates:
        """The pilot's shares (``mid``) or an end of their 95% Wilson intervals; the demo's without data."""

        def share(k: int, n: int, prior: float) -> float:
            if n == 0:
                return prior
            lo, hi = wilson(k, n)
            return {"low": lo, "mid": k / n, "high": hi}[end]

        return Rates(
            sentence={s: share(*self.sentences.get(s, (0, 0)), p) for s, p in SENTENCE_PASS.items()},
            judge_keep=share(self.kept, self.judged, JUDGE_KEEP),
        )


class _Timed:
    """The run's LLM, adding up each call's wall time, fresh calls and writer tokens (``CachedLLM.last``)."""

    def __init__(self, llm: Any):
        self.llm = llm
        self.spent = {"generate": [0.0, 0], "choose": [0.0, 0]}  # op -> [seconds, calls sent]
        self.tokens: list[int] = []  # generated tokens of each word sentence (sent now or cached)

    def _add(self, op: str) -> None:
        last = self.llm.last
        self.spent[op][0] += last.wall_s
        self.spent[op][1] += last.calls

    def generate(self, reqs: Sequence[Any], progress: Any = None) -> list[Any]:
        out = self.llm.generate(reqs, progress)
        self._add("generate")
        self.tokens += [r.tokens_out for r in out if r.ok and r.id.startswith("word:")]
        return out

    def choose(self, reqs: Sequence[Any], progress: Any = None) -> list[Any]:
        out = self.llm.choose(reqs, progress)
        self._add("choose")
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.llm, name)


def pilot_counts(pools: cellmod.Pools, counts: Mapping[cellmod.Group, int]) -> dict[cellmod.Group, int]:
    """The pilot's draw: ``PILOT`` items per subtask from the groups of the run's first draw, largest first,
    each a prefix of that group's draw, so the real run asks for every pilot item again (from the cache)."""
    out: dict[cellmod.Group, int] = {}
    for s, groups in pools.items():
        left = PILOT[s]
        for g in sorted(groups, key=lambda g: (-counts.get((s, g), 0), str(g))):
            n = counts.get((s, g), 0)
            if left > 0 and n > 0:
                out[(s, g)] = (
                    min(n, max(left, 2)) if s == "wordswap" else min(n, left)
                )  # words pair in a group
                left -= out[(s, g)]
    return out


def run_pilot(
    plan: Any,
    llm: Any,
    params: Any,
    progress: Callable[[str, int, int], None] | None = None,
    labelled: Any = None,
) -> Pilot:
    """Run the pipeline on the pilot's draw through ``llm`` (the run's cache): every draft is judged, but
    those the run's human filter (``labelled``, ``--drop-labelled``) drops, as the run drops them."""
    from corpusbench.families.ltswap import pipeline

    words, infl, agr = pipeline.draw(plan.pools, pilot_counts(plan.pools, plan.counts))
    timed = _Timed(llm)
    before = _used(llm)
    t0 = time.perf_counter()
    attempt = pipeline._attempt(
        plan, timed, replace(params, per_cell=None), words, infl, agr, progress, labelled=labelled
    )
    seconds = time.perf_counter() - t0
    f = attempt.funnel
    kept = sum(len(q) for q in attempt.quads.values())
    judged = kept + sum(n for (_s, _b, r), n in f.drops.items() if r.startswith("filter_"))
    (gen_s, gen_n), (cho_s, cho_n) = timed.spent["generate"], timed.spent["choose"]
    timing = None
    if gen_n >= TIMED and cho_n >= TIMED and timed.tokens:
        timing = Timing(
            writer_s=gen_s / gen_n, writer_tokens=sum(timed.tokens) / len(timed.tokens), judge_s=cho_s / cho_n
        )
    return Pilot(
        sentences={s: (f.sentences[(s, "passed")], f.sentences[(s, "written")]) for s in params.subtasks},
        judged=judged,
        kept=kept,
        requests=_used(llm) - before,
        sent=gen_n + cho_n,
        seconds=seconds,
        timing=timing,
    )


def _used(llm: Any) -> int:
    report = getattr(llm, "report", None)
    return len(report.used) if report is not None else 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Priced:
    """``--plan``'s answer: the pilot, the timing used, and per end of the range (``ENDS``) the draw per
    group, the expected kept per cell and the estimate per subtask."""

    pilot: Pilot
    timing: Timing
    timed_apart: bool  # the timing came from uncached calls after the pilot (its answers were cached)
    draws: Mapping[str, Mapping[cellmod.Group, int]]
    kept: Mapping[str, Mapping[cellmod.Cell, float]]
    rows: Mapping[str, list[SubtaskEstimate]]


def price(
    plan: Any,
    llm: Any,
    params: Any,
    progress: Callable[[str, int, int], None] | None = None,
    labelled: Any = None,
) -> Priced:
    """The pilot on this corpus (with the run's human filter, ``labelled``), then the run's estimate at the
    low end, the value and the high end of the pilot's shares."""
    from corpusbench.families.ltswap.filtering import pick_nonce

    pilot = run_pilot(plan, llm, params, progress, labelled)
    timing = pilot.timing or time_backend(
        llm.backend, params, plan.words, pick_nonce(params.nonce, plan.vocab)
    )
    draws, kept, rows = {}, {}, {}
    for end in ENDS:
        rates = pilot.rates(end)
        draws[end] = expected_counts(params, plan.pools, plan.counts, rates)
        cells: dict[cellmod.Cell, float] = {}
        drawn: dict[str, int] = {}
        for (s, g), n in draws[end].items():
            drawn[s] = drawn.get(s, 0) + n
            for c in cellmod.cells_of(s, g, params.rules, params.by_length):
                cells[c] = cells.get(c, 0.0) + n * cell_yield(s, params, c, rates)
        kept[end] = cells
        n_cells = {s: sum(1 for c in cells if c.subtask == s) for s in drawn}
        rows[end] = estimate(
            params, {s: drawn[s] for s in params.subtasks if s in drawn}, timing, n_cells, rates
        )
    return Priced(
        pilot=pilot, timing=timing, timed_apart=pilot.timing is None, draws=draws, kept=kept, rows=rows
    )
