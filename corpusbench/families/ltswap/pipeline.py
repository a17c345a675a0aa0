"""The LT-Swap run: candidates -> confirmation -> generation -> checks -> pairing -> LLM filter -> files.

Every LLM call goes through the caller's ``CachedLLM`` (``generate``/``choose``), which commits each
answer as it arrives: a killed run, started again with the same parameters, re-sends nothing that
had finished. A failed call stops the run (``llm.cache.TooManyFailures``, nothing written) unless the
``CachedLLM``'s failure budget allows it. Everything else is deterministic given (stats, parameters,
seed, cached answers). ``plan_ltswap`` is the LLM-free first part (stats -> candidates -> draws).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from corpusbench.corpus.store import CorpusStats
from corpusbench.corpus.taggers import ptb_upos
from corpusbench.errors import ConfigError, ParamError
from corpusbench.families.ltswap import cells as cellmod
from corpusbench.families.ltswap.agreement import det_without_verb_reading
from corpusbench.families.ltswap.assembly import (
    ContrastKey,
    WordKey,
    agrswap_drafts,
    contrast_drafts,
    drop_labelled,
    drop_shortcuts,
    inflswap_drafts,
    rewrite_keys,
    wordswap_drafts,
)
from corpusbench.families.ltswap.candidates import (
    CandidateReport,
    build_candidates,
    inflection_pairs,
    seeded_groups,
)
from corpusbench.families.ltswap.filtering import (
    JUDGE_DROPS,
    assemble,
    best_first,
    draft_item,
    draft_key,
    good_bad,
    judge_order,
    judge_to_fill,
    pick_nonce,
    rejected_order,
    rejected_row,
    spread_key,
    spread_order,
)
from corpusbench.families.ltswap.funnel import Funnel
from corpusbench.families.ltswap.generation import (
    FRAME_STYLES,
    Draft,
    Outcome,
    PosChecker,
    agreement_request,
    apply_pos_check,
    plan_word_pairs,
    rewrite_request,
    same_lemma_requests,
    word_outcome,
    word_request,
    writer_examples,
)
from corpusbench.families.ltswap.judging import FilterRule, Judgement
from corpusbench.families.ltswap.lexicon import EnglishLexicon
from corpusbench.families.ltswap.morph import LANGS as MORPH_LANGS
from corpusbench.families.ltswap.morph import build_morph_candidates
from corpusbench.families.ltswap.morph import describe as describe_morph
from corpusbench.families.ltswap.output import manifest, write_run
from corpusbench.families.ltswap.prompting import DEFAULT_WRITER, writer
from corpusbench.families.ltswap.records import (
    AGREEMENT_RULES,
    SUBTASK_ALIASES,
    SUBTASKS,
    Candidate,
    InflectionPair,
    Quadruplet,
    Tagged,
)
from corpusbench.families.ltswap.validity import LabelFilter
from corpusbench.llm.records import (
    ChoiceRequest,
    ChoiceResult,
    GenRequest,
    GenResult,
    ScoreRequest,
    ScoreResult,
)
from corpusbench.progress_llm import CELLS, ROUND

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]  # (stage, done, total)
Bar = Callable[[int, int], None] | None


class LLM(Protocol):
    """What the generator needs from ``corpusbench.llm.CachedLLM``."""

    def generate(self, reqs: Sequence[GenRequest], progress: Bar = None) -> list[GenResult]: ...
    def choose(self, reqs: Sequence[ChoiceRequest], progress: Bar = None) -> list[ChoiceResult]: ...
    def score(self, reqs: Sequence[ScoreRequest], progress: Bar = None) -> list[ScoreResult]: ...
    def describe(self) -> dict[str, Any]: ...


FORCE_FORM = SUBTASKS  # what --force-form can guide


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    """A list option as given on the command line ("wordswap,inflswap") or in a spec (a list)."""
    return tuple(x for x in value.split(",") if x) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class LtswapParams:
    lang: str = "en"
    seed: int = 0
    # words per (bin, tag); inflection pairs per (bin, POS); noun pairs per bin. One number for all
    # subtasks, or a mapping per subtask ({"wordswap": 3, "inflswap": 4, "agrswap": 1}; a missing one: no cap)
    max_per_bin: int | Mapping[str, int] | None = 200
    subtasks: tuple[str, ...] = SUBTASKS
    rules: tuple[str, ...] = AGREEMENT_RULES
    pairs_per_word: int = 1  # WordSwap matching rounds: each word is in at most this many quadruplets
    agreement_samples: int = 2
    agreement_temperature: float = 0.5
    max_tokens: int = 96
    writer_prompt: str = DEFAULT_WRITER  # prompting.WRITERS: v3 = fixed system turn + the word
    check_pos: bool = True
    confirm_inflections: bool = True  # ask the LLM whether each pair is one lemma (off: trust the lexicon)
    nonce: str = "blick"
    llm_filter: bool = True  # off: keep every paired draft unjudged (for LLMs too weak to judge; say so)
    filter_rule: str = FilterRule().name  # strict (paper) | debiased | pointwise; see judging.py
    filter_threshold: float | None = None  # None: the rule's default
    # WordSwap's own threshold (None: filter_threshold). #37: on the labelled kept WordSwap items, pairs
    # valid 57% at 0.1 and 78% at 0.5 (pointwise; docs/ltswap.md); WordSwap swaps that stay sensible
    wordswap_threshold: float | None = None
    wordswap_rule: str | None = None  # WordSwap's own rule (None: filter_rule); #37: lm, judged best-first
    # fill every (subtask, bin[, SHORT/LONG]) cell with this many kept quadruplets, in rounds (cells.py);
    # max_per_bin is then the draw ceiling per sampling group. None: one round of max_per_bin draws
    per_cell: int | None = None
    agreement_cells: str = "length"  # per_cell's AgreementSwap cells: (bin, SHORT/LONG), or "bin" alone
    # guided decoding (vLLM servers, English) for these subtasks: WordSwap/InflectionSwap forms go in a frame
    # per tag (generation.form_regex), both agreement sentences open with their noun (pair_regex). Measured
    # (benchmarks/bench_ltswap_yield.py): it rescues InflectionSwap and AgreementSwap sentences whose form
    # the writer changed; on WordSwap it loses more sentences to unseen words than it saves
    force_form: tuple[str, ...] = ()
    # where a guided form goes (generation.form_regex): "varied" seeded openings per form, "subject" the same
    # with InflectionSwap nouns as subjects before an agreeing auxiliary, or "fixed" frames
    frames: str = "varied"
    # an InflectionSwap form whose sentence failed the checks while its partner's passed is written again up
    # to this many times (sampled, a new seed each); the first rewrite that passes completes the pair
    rewrites: int = 0
    # guided InflectionSwap sentences hold at least this many words (generation.rest_after: an earlier stop is
    # masked, so a sentence that was long enough is unchanged); 0: no minimum
    min_words: int = 0
    # a cell's drafts of these subtasks are judged most fluent first (filtering.best_first; #37 round five):
    # the smaller per-word log-prob of the two good sentences under the judge model, after round and lemma
    fluent_first: tuple[str, ...] = ()
    # these subtasks draw, pair and judge what labellers approved first (the build's ``labelled`` filter)
    labelled_first: tuple[str, ...] = ()

    def rule(self) -> FilterRule:
        """The judge's rule: ``filter_rule`` at ``filter_threshold``; WordSwap by ``wordswap_rule`` at
        ``wordswap_threshold`` where they are set."""
        own = () if self.wordswap_threshold is None else (("wordswap", float(self.wordswap_threshold)),)
        by_rule = () if self.wordswap_rule is None else (("wordswap", self.wordswap_rule),)
        return FilterRule(self.filter_rule, self.filter_threshold, own, by_rule)

    def __post_init__(self) -> None:
        # the release's spellings (inflectionswap, agreementswap) name the same subtasks
        object.__setattr__(self, "subtasks", tuple(SUBTASK_ALIASES.get(s, s) for s in self.subtasks))
        if isinstance(self.max_per_bin, Mapping):
            caps = {SUBTASK_ALIASES.get(k, k): v for k, v in self.max_per_bin.items()}
            object.__setattr__(self, "max_per_bin", caps)
        if self.lang not in ("en", *MORPH_LANGS):
            raise ParamError("lang", f"must be one of en, fr, de for LT-Swap (got {self.lang!r})")
        if self.lang != "en":  # French/German: WordSwap only (no inflection lexicon / agreement checks)
            if self.subtasks == SUBTASKS:
                object.__setattr__(self, "subtasks", ("wordswap",))
            elif set(self.subtasks) != {"wordswap"}:
                raise ParamError("lang", f"{self.lang}: only the wordswap subtask is available")
        if bad := set(self.subtasks) - set(SUBTASKS):
            raise ConfigError(f"unknown subtask(s) {sorted(bad)}; choose from {', '.join(SUBTASKS)}")
        if bad := set(self.rules) - set(AGREEMENT_RULES):
            raise ConfigError(
                f"unknown agreement rule(s) {sorted(bad)}; choose from {', '.join(AGREEMENT_RULES)}"
            )
        if isinstance(self.max_per_bin, Mapping):
            if bad := set(self.max_per_bin) - set(SUBTASKS):
                raise ParamError(
                    "max_per_bin", f": unknown subtask(s) {sorted(bad)}; use {', '.join(SUBTASKS)}"
                )
            object.__setattr__(
                self, "max_per_bin", {k: self.max_per_bin[k] for k in SUBTASKS if k in self.max_per_bin}
            )
        caps = self.max_per_bin.values() if isinstance(self.max_per_bin, Mapping) else [self.max_per_bin]
        if any(c is not None and (not isinstance(c, int) or c < 1) for c in caps):
            raise ParamError("max_per_bin", f"must be at least 1 (got {self.max_per_bin})")
        self.rule()  # validates the rule name
        writer(self.writer_prompt)  # validates the writer prompt's name
        if self.per_cell is not None and (
            isinstance(self.per_cell, bool) or not isinstance(self.per_cell, int) or self.per_cell < 1
        ):
            raise ParamError("per_cell", f"must be a whole number of at least 1 (got {self.per_cell!r})")
        if self.agreement_cells not in ("length", "bin"):
            raise ParamError("agreement_cells", f"must be length or bin (got {self.agreement_cells!r})")
        object.__setattr__(self, "force_form", _names(self.force_form))
        if bad := set(self.force_form) - set(FORCE_FORM):
            raise ParamError("force_form", f": unknown {sorted(bad)}; choose from {', '.join(FORCE_FORM)}")
        for name in ("fluent_first", "labelled_first"):
            names = tuple(SUBTASK_ALIASES.get(s, s) for s in _names(getattr(self, name)))
            object.__setattr__(self, name, names)
            if bad := set(names) - set(SUBTASKS):
                raise ParamError(name, f": unknown {sorted(bad)}; choose from {', '.join(SUBTASKS)}")
        if self.frames not in FRAME_STYLES:
            raise ParamError("frames", f"must be one of {', '.join(FRAME_STYLES)} (got {self.frames!r})")
        if self.force_form and self.lang != "en":
            raise ParamError("force_form", f": sentence frames exist for English only, not lang {self.lang}")
        for name in ("rewrites", "min_words"):
            n = getattr(self, name)
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ParamError(name, f"must be a whole number of at least 0 (got {n!r})")
        if self.min_words and ("inflswap" not in self.force_form or "inflswap" not in self.subtasks):
            raise ParamError("min_words", ": needs guided InflectionSwap sentences (--force-form inflswap)")
        for name in ("agreement_samples", "pairs_per_word"):
            if getattr(self, name) < 1:
                raise ParamError(name, f"must be at least 1 (got {getattr(self, name)!r})")

    @property
    def by_length(self) -> bool:
        """``--per-cell``'s AgreementSwap cells are split into SHORT and LONG."""
        return self.agreement_cells == "length"

    def cap(self, subtask: str) -> int | None:
        """Items per bin (and tag/POS) sampled for ``subtask``; None: all."""
        if isinstance(self.max_per_bin, Mapping):
            return self.max_per_bin.get(subtask)
        return self.max_per_bin

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True, kw_only=True)
class LtswapPlan:
    """Everything a run reads from the corpus stats, before any LLM call: candidates and the seeded
    draws. Made first, so that unreadable stats fail before an output (or an LLM cache) exists."""

    vocab: dict[str, int]
    cands: list[Candidate]
    cand_report: CandidateReport
    lexicon: dict[str, str]
    words: list[Candidate]
    infl: list[InflectionPair]
    agr: list[InflectionPair]
    pools: dict[str, dict[Any, list[Any]]] = field(default_factory=dict)  # subtask -> group -> draw order
    counts: dict[cellmod.Group, int] = field(default_factory=dict)  # the draw per group
    examples: tuple[str, ...] = ()  # corpus sentences in the writer's system turn (writer prompt v4)


@dataclass(slots=True, kw_only=True)
class LtswapResult:
    out: Path
    quadruplets: dict[str, list[Quadruplet]]
    funnel: Funnel
    candidates: CandidateReport
    manifest: dict[str, Any]
    rejects: list[dict[str, Any]] = field(default_factory=list)
    cells: list[cellmod.CellReport] | None = None  # --per-cell runs
    rejected_drafts: list[dict[str, Any]] = field(default_factory=list)  # judged and dropped


def item_pools(
    params: LtswapParams, cands: list[Candidate], labelled: LabelFilter | None = None
) -> dict[str, dict[Any, list[Any]]]:
    """subtask -> sampling group -> its items in seeded draw order: WordSwap words (with a corpus
    context) per (bin, tag), InflectionSwap pairs per (bin, POS), agreement noun pairs per bin; for the
    ``labelled_first`` subtasks the items of quadruplets ``labelled`` approved first (``approved_first``)."""

    def pool(salt: str, items: Callable[[], list[Any]], group: Callable[[Any], Any]) -> dict[Any, list[Any]]:
        return seeded_groups(items(), group, f"{params.seed}:{salt}", key=lambda x: x.id)

    makers = {
        "wordswap": lambda: pool("ws", lambda: [c for c in cands if c.contexts], lambda c: (c.bin, c.tag)),
        "inflswap": lambda: pool("is", lambda: inflection_pairs(cands), lambda p: (p.bin, p.pos)),
        "agrswap": lambda: pool("as", lambda: inflection_pairs(cands, nouns_only=True), lambda p: p.bin),
    }
    pools = {s: make() for s, make in makers.items() if s in params.subtasks}
    if labelled is not None:
        for s in set(params.labelled_first) & set(pools):
            pools[s] = approved_first(pools[s], labelled.words_first(s), s)
    return pools


def approved_first(
    groups: Mapping[Any, list[Any]], approved: Sequence[tuple[Tagged, Tagged]], subtask: str
) -> dict[Any, list[Any]]:
    """Each group's items reordered (``--labelled-first``): those of an ``approved`` ((word 1, tag 1),
    (word 2, tag 2)) quadruplet first, in the labels' order (WordSwap: a quadruplet's two words side by
    side), then the rest in their seeded order. A word is matched with its tag (WordSwap) or its pair's
    part of speech (inflection and agreement pairs): a noun's approval does not move its verb reading up."""
    rank: dict[Any, int] = {}
    for n, (a, b) in enumerate(approved):
        if subtask == "wordswap":
            rank.setdefault(a, 2 * n)
            rank.setdefault(b, 2 * n + 1)
        else:
            rank.setdefault((frozenset((a[0], b[0])), ptb_upos(a[1])), n)

    def key(item: Any) -> Any:
        if subtask == "wordswap":
            return (item.form, item.tag)
        return (frozenset((item.form1, item.form2)), item.pos)

    big = len(rank) * 2 + 1
    return {
        g: sorted(items, key=lambda it: rank.get(key(it), big))  # stable: the rest keep their order
        for g, items in groups.items()
    }


def draw(
    pools: Mapping[str, Mapping[Any, list[Any]]], counts: Mapping[cellmod.Group, int]
) -> tuple[list[Candidate], list[InflectionPair], list[InflectionPair]]:
    """The first ``counts[(subtask, group)]`` items of each group: words, infl. pairs, agreement pairs."""
    got: dict[str, list[Any]] = {s: [] for s in SUBTASKS}
    for s, groups in pools.items():
        for g, items in groups.items():
            got[s].extend(items[: counts.get((s, g), 0)])
    return got["wordswap"], got["inflswap"], got["agrswap"]


def first_counts(params: LtswapParams, pools: Mapping[str, Mapping[Any, list[Any]]]) -> dict[Any, int]:
    """The (first round's) draw per group: under --per-cell N drafts' worth per bin spread over its
    groups, else the subtask's cap."""
    if params.per_cell is not None:
        rules = (
            min(Counter(cellmod.LENGTH[r] for r in params.rules).values())
            if params.by_length
            else len(params.rules)
        )
        drafts_per = {  # a WordSwap word joins pairs_per_word drafts, each shared by two words
            "wordswap": params.pairs_per_word / 2,
            "inflswap": 1.0,
            "agrswap": float(rules * params.agreement_samples),
        }
        return cellmod.first_counts(pools, params.per_cell, ceilings(params), drafts_per)
    return {
        (s, g): len(items) if params.cap(s) is None else min(params.cap(s), len(items))  # type: ignore[type-var]
        for s, groups in pools.items()
        for g, items in groups.items()
    }


def ceilings(params: LtswapParams) -> dict[str, int | None]:
    """--per-cell's draw ceiling per group of each subtask: its --max-per-bin cap (None: no cap)."""
    return {s: params.cap(s) for s in params.subtasks}


def sample_items(
    params: LtswapParams, cands: list[Candidate]
) -> tuple[list[Candidate], list[InflectionPair], list[InflectionPair]]:
    """Seeded draws: WordSwap words (with a corpus context), InflectionSwap pairs, agreement noun pairs."""
    pools = item_pools(params, cands)
    return draw(pools, first_counts(params, pools))


def word_slots(words: Sequence[Candidate], infl: Sequence[InflectionPair]) -> dict[tuple[str, str], str]:
    """(form, tag) -> POS of every word that needs a sentence: WordSwap words and both forms of each
    InflectionSwap pair (a form in both is written once)."""
    pos_of = {(w.form, w.tag): w.pos for w in words}
    for p in infl:
        pos_of |= {(p.form1, p.tag1): p.pos, (p.form2, p.tag2): p.pos}
    return pos_of


def _bar(progress: Progress | None, stage: str) -> Bar:
    return None if progress is None else (lambda done, total: progress(stage, done, total))


def _confirm(
    llm: LLM, params: LtswapParams, pairs: dict[str, InflectionPair], progress: Progress | None
) -> dict[str, str]:
    """pair id -> "" if confirmed as one lemma (both orders answered yes), else the drop reason."""
    if not params.confirm_inflections:
        return dict.fromkeys(pairs, "")
    reqs = {pid: same_lemma_requests(p) for pid, p in pairs.items()}
    flat = [r for rs in reqs.values() for r in rs]
    answers = dict(
        zip([r.id for r in flat], llm.choose(flat, _bar(progress, "confirm")) if flat else [], strict=True)
    )
    out = {}
    for pid, rs in reqs.items():
        res = [answers[r.id] for r in rs]
        if any(r.status == "error" for r in res):  # a failed call (only under a failure budget)
            out[pid] = "confirm_llm_error"
        elif not all(r.ok for r in res):
            out[pid] = "confirm_no_answer"
        else:
            out[pid] = "" if all(r.choice == "yes" for r in res) else "not_same_lemma"
    return out


def plan_ltswap(
    stats: CorpusStats,
    params: LtswapParams,
    progress: Progress | None = None,
    labelled: LabelFilter | None = None,
) -> LtswapPlan:
    """Read the stats and draw the run's words and pairs (no LLM, nothing written); ``labelled`` orders
    the draw of the ``labelled_first`` subtasks."""
    if stats.language != params.lang:
        raise ConfigError(f"{stats.path}: stats are for language {stats.language!r}, not {params.lang!r}")
    vocab = stats.vocabulary
    if params.lang == "en":
        lexicon = EnglishLexicon()
        cands, cand_report = build_candidates(stats, lexicon, _bar(progress, "candidates"))
        lexicon_info = lexicon.describe()
    else:
        cands, cand_report = build_morph_candidates(stats, _bar(progress, "candidates"))
        lexicon_info = describe_morph()
    pools = item_pools(params, cands, labelled)
    counts = first_counts(params, pools)
    words, infl, agr = draw(pools, counts)
    examples = writer_examples(cands, params.seed) if writer(params.writer_prompt).examples else ()
    return LtswapPlan(
        examples=examples,
        pools=pools,
        counts=counts,
        vocab=vocab,
        cands=cands,
        cand_report=cand_report,
        lexicon=lexicon_info,
        words=words,
        infl=infl,
        agr=agr,
    )


@dataclass(slots=True, kw_only=True)
class Attempt:
    """One pass over a draw: kept quadruplets, the funnel and rejects, and the filter's nonce and rule."""

    quads: dict[str, list[Quadruplet]]
    funnel: Funnel
    rejects: list[dict[str, Any]]
    nonce: str
    rule: FilterRule
    by_length: bool = True  # AgreementSwap cells split into SHORT and LONG
    rejected: list[dict[str, Any]] = field(default_factory=list)  # drafts the judge judged and dropped

    def kept_per_cell(self) -> Counter[cellmod.Cell]:
        return Counter(
            cellmod.cell_of(s, q.bin, q.rule, self.by_length) for s, qs in self.quads.items() for q in qs
        )


def run_ltswap(
    stats: CorpusStats,
    llm: LLM,
    params: LtswapParams,
    out: str | Path,
    progress: Progress | None = None,
    plan: LtswapPlan | None = None,
    labelled: LabelFilter | None = None,
) -> LtswapResult:
    """Build the three LT-Swap subtasks from ``stats`` with ``llm``; write them to ``out``.

    ``plan``: ``plan_ltswap(stats, params)`` when the caller made it already (before opening ``llm``).
    ``labelled``: drafts with a minimal pair a labeller marked not valid are dropped and replaced.
    With ``params.per_cell`` the run goes in rounds (cells.py); each round re-runs the whole pass over
    a larger draw, its earlier answers coming from the cache."""
    t0 = time.perf_counter()
    out = Path(out)
    plan = plan or plan_ltswap(stats, params, progress, labelled)
    drafted: dict[str, int] = {}
    first = (plan.words, plan.infl, plan.agr)
    attempt = _attempt(plan, llm, params, *first, progress, drafted, labelled=labelled)
    cell_reports, rounds = None, []
    if params.per_cell is not None:
        attempt, cell_reports, rounds = _fill_cells(plan, llm, params, attempt, progress, drafted, labelled)
    quads, funnel, rejects, rule = attempt.quads, attempt.funnel, attempt.rejects, attempt.rule
    meta = manifest(
        stats=stats,
        llm=llm,
        params=params.as_dict(),
        nonce=attempt.nonce,
        judge=rule.describe() if params.llm_filter else None,
        lexicon=plan.lexicon,
        cand_report=plan.cand_report,
        funnel=funnel,
        quads=quads,
        seconds=time.perf_counter() - t0,
    )
    if labelled is not None:
        meta["labelled"] = labelled.describe() | {"approved_kept": _approved_kept(quads, labelled)}
    if cell_reports is not None:
        meta["cells"] = [c.as_dict() for c in cell_reports]
        meta["rounds"] = rounds
    write_run(out, quads, plan.cands, funnel, rejects, meta, attempt.rejected)
    log.info("ltswap: %s quadruplets in %.1fs", {s: len(q) for s, q in quads.items()}, meta["seconds"])
    return LtswapResult(
        out=out,
        quadruplets=quads,
        funnel=funnel,
        candidates=plan.cand_report,
        manifest=meta,
        rejects=rejects,
        cells=cell_reports,
        rejected_drafts=attempt.rejected,
    )


def _approved_kept(quads: Mapping[str, Sequence[Quadruplet]], labelled: LabelFilter) -> dict[str, int]:
    """Per subtask, the kept quadruplets whose two minimal pairs labellers approved."""
    return {
        s: sum(labelled.approves(((q.s1_good, q.s1_bad), (q.s2_good, q.s2_bad))) for q in qs)
        for s, qs in quads.items()
    }


def _fill_cells(
    plan: LtswapPlan,
    llm: LLM,
    params: LtswapParams,
    attempt: Attempt,
    progress: Progress | None,
    drafted: dict[str, int],
    labelled: LabelFilter | None = None,
) -> tuple[Attempt, list[cellmod.CellReport], list[dict[str, Any]]]:
    """Rounds of larger draws for the cells still short of ``params.per_cell`` (cells.py)."""
    assert params.per_cell is not None
    counts, top = plan.counts, ceilings(params)
    report = getattr(llm, "report", None)
    rounds: list[dict[str, Any]] = []

    def record(a: Attempt) -> None:
        kept = a.kept_per_cell()
        short = sum(1 for c in all_cells(counts) if kept[c] < params.per_cell)  # type: ignore[operator]
        rounds.append(
            {
                "round": len(rounds) + 1,
                "drawn": sum(counts.values()),
                "kept": {s: len(q) for s, q in a.quads.items() if s in params.subtasks},
                "cells_short": short,
                "calls": report.calls if report is not None else None,  # cumulative fresh calls
            }
        )
        log.info("ltswap round %d: %s", len(rounds), rounds[-1])
        if progress is not None:
            _show_cells(progress, kept, all_cells(counts), params.per_cell)  # type: ignore[arg-type]

    def all_cells(c: Mapping[cellmod.Group, int]) -> set[cellmod.Cell]:
        return {cell for (s, g) in c for cell in cellmod.cells_of(s, g, params.rules, params.by_length)}

    def state(done: int) -> cellmod.RoundState:
        return cellmod.RoundState(
            pools=plan.pools,
            counts=counts,
            kept=attempt.kept_per_cell(),
            per_cell=params.per_cell,  # type: ignore[arg-type]
            ceiling=top,
            rules=tuple(params.rules),
            rounds=done,
            by_length=params.by_length,
        )

    record(attempt)
    while len(rounds) < cellmod.MAX_ROUNDS:
        nxt = cellmod.next_counts(state(len(rounds)))
        if not cellmod.grew(counts, nxt):
            break
        counts = nxt
        words, infl, agr = draw(plan.pools, counts)
        attempt = _attempt(plan, llm, params, words, infl, agr, progress, drafted, len(rounds) + 1, labelled)
        record(attempt)
    cells = cellmod.reports(state(len(rounds)))
    return attempt, cells, rounds


def _show_cells(progress: Progress, kept: Counter[cellmod.Cell], cells: set[cellmod.Cell], n: int) -> None:
    """Tell ``progress`` each subtask's fill: kept quadruplets (at most ``n`` a cell) of ``n`` per cell."""
    fill: Counter[str] = Counter()
    want: Counter[str] = Counter()
    for c in cells:
        fill[c.subtask] += min(kept[c], n)
        want[c.subtask] += n
    for s in sorted(want):
        progress(CELLS + s, fill[s], want[s])


def _rewrite(
    llm: LLM,
    params: LtswapParams,
    vocab: Mapping[str, int],
    infl: Sequence[InflectionPair],
    word_reqs: Mapping[WordKey, GenRequest],
    outcomes: dict[WordKey, Outcome],
    raw: dict[WordKey, GenResult | None],
    pos_of: Mapping[WordKey, str],
    checker: PosChecker | None,
    guided: Mapping[WordKey, bool],
    funnel: Funnel,
    attempt: int,
) -> bool:
    """Rewrite ``attempt`` of every InflectionSwap form whose sentence failed while its partner's passed
    (``assembly.rewrite_keys``); a rewrite that passes the checks (and holds no partner form) replaces the
    failed sentence in ``outcomes`` and ``raw``. False when there was nothing to rewrite."""
    need = rewrite_keys(infl, outcomes, params.lang)
    if not need:
        return False
    keys = sorted(need)
    got = llm.generate([rewrite_request(word_reqs[k], attempt, params.seed) for k in keys])
    new = apply_pos_check(
        {
            k: word_outcome(r, k[0], vocab, params.lang, need[k][1], guided[k])
            for k, r in zip(keys, got, strict=True)
        },
        pos_of,
        checker,
    )
    for k, r in zip(keys, got, strict=True):
        passed = new[k].stage == "checked"
        funnel.rewrite("inflswap", need[k][0], passed)
        if passed:
            outcomes[k], raw[k] = new[k], r
    return True


def agreement_rules(
    pairs: Sequence[InflectionPair],
    rules: Sequence[str],
    rotate: bool,
    det_ok: Callable[[InflectionPair], bool] = lambda p: True,
) -> dict[str, tuple[str, ...]]:
    """The agreement rules each noun pair is written under: every rule, but DET only where ``det_ok`` (#37
    round four: "This crowns." / "These crown." are grammatical as a pronoun and a verb, so a noun with a
    verb reading makes a DET item whose bad sentences are not wrong). ``rotate`` (one cell per bin): one rule
    each, the bin's k-th pair in draw order from ``rules[k % len(rules)]`` on (skipping DET where not
    ``det_ok``), so a bin's first pairs cover the rules and each kept quadruplet comes from its own noun pair
    (all rules for every pair wrote three drafts per pair of which a cell of 3 used one: 66 of the demo's 99
    agreement drafts were never judged). A larger draw keeps the earlier pairs' rules."""
    out: dict[str, tuple[str, ...]] = {}
    seen: Counter[int] = Counter()
    for p in pairs:
        usable = [r for r in rules if r != "DET" or det_ok(p)]
        if not rotate:
            out[p.id] = tuple(usable)
            continue
        k = seen[p.bin]
        seen[p.bin] += 1
        start = [rules[(k + j) % len(rules)] for j in range(len(rules))]
        out[p.id] = tuple(r for r in start if r in usable)[:1]
    return out


def _attempt(
    plan: LtswapPlan,
    llm: LLM,
    params: LtswapParams,
    words: list[Candidate],
    infl: list[InflectionPair],
    agr: list[InflectionPair],
    progress: Progress | None,
    drafted: dict[str, int] | None = None,
    round_no: int = 1,
    labelled: LabelFilter | None = None,
) -> Attempt:
    """Confirmation, generation, checks, pairing and the LLM filter over one draw (no files).
    ``drafted``: the run's drafts so far and the round each first appeared in (updated here)."""
    vocab = plan.vocab
    drafted = {} if drafted is None else drafted
    if progress is not None and params.per_cell is not None:
        progress(ROUND, round_no, cellmod.MAX_ROUNDS)
    funnel: Funnel = Funnel()
    rejects: list[dict[str, Any]] = []
    for w in words:
        funnel.add("wordswap", w.bin, "candidates")
        funnel.add("wordswap", w.bin, "confirmed")

    verdicts = _confirm(llm, params, {p.id: p for p in infl + agr}, progress)
    kept: dict[str, list[InflectionPair]] = {"inflswap": [], "agrswap": []}
    rules_of = agreement_rules(
        agr, params.rules, rotate=not params.by_length, det_ok=det_without_verb_reading(params.lang)
    )
    for sub, pairs, n in (("inflswap", infl, 1), ("agrswap", agr, None)):
        for p in pairs:
            k = n or len(rules_of[p.id])
            funnel.add(sub, p.bin, "candidates", k)
            if verdicts[p.id]:
                funnel.drop(sub, p.bin, verdicts[p.id], k)
            else:
                funnel.add(sub, p.bin, "confirmed", k)
                kept[sub].append(p)
    infl, agr = kept["inflswap"], kept["agrswap"]

    # generation: one batch for all subtasks (identical prompts share one call through the cache)
    # the contrastive writer (v6): WordSwap pairs first, each sentence written against its partner word
    contrast = writer(params.writer_prompt).contrast is not None and "wordswap" in params.subtasks
    ws_pairs = plan_word_pairs(words, params.pairs_per_word) if contrast else []
    pos_of = word_slots([] if contrast else words, infl)
    word_keys = sorted(pos_of)
    forced = set(params.force_form)
    guided_agr = "agrswap" in forced
    ws_keys = {(w.form, w.tag) for w in words} if "wordswap" in forced else set()
    is_keys = (
        {k for p in infl for k in ((p.form1, p.tag1), (p.form2, p.tag2))} if "inflswap" in forced else set()
    )
    guided = {k: k in ws_keys or k in is_keys for k in word_keys}  # a form both use: guided if either is
    word_reqs = {
        (f, t): word_request(
            f,
            t,
            params.max_tokens,
            params.lang,
            params.writer_prompt,
            guided[(f, t)],
            plan.examples,
            frames=params.frames,
            seed=params.seed,
            marked=(f, t) in is_keys,
            vocab=vocab,
            min_words=params.min_words,
        )
        for f, t in word_keys
    }
    reqs = list(word_reqs.values())
    contrast_reqs: dict[ContrastKey, GenRequest] = {}
    for a, b in ws_pairs:
        for w, other in ((a, b), (b, a)):
            contrast_reqs[(w.form, w.tag, other.form)] = word_request(
                w.form,
                w.tag,
                params.max_tokens,
                params.lang,
                params.writer_prompt,
                "wordswap" in forced,
                plan.examples,
                frames=params.frames,
                seed=params.seed,
                vocab=vocab,
                partner=other.form,
            )
    reqs += list(contrast_reqs.values())
    agr_items = [
        (p, rule, s) for p in agr for rule in rules_of[p.id] for s in range(params.agreement_samples)
    ]
    reqs += [
        agreement_request(
            p, rule, s, params.agreement_temperature, params.seed, params.max_tokens + 64, guided_agr, vocab
        )
        for p, rule, s in agr_items
    ]
    results = dict(zip([r.id for r in reqs], llm.generate(reqs, _bar(progress, "generate")), strict=True))
    raw = {k: results.get(f"word:{k[0]}/{k[1]}") for k in word_keys}
    checker = PosChecker(params.lang) if params.check_pos and word_keys else None
    outcomes = apply_pos_check(
        {k: word_outcome(raw[k], k[0], vocab, params.lang, guided=guided[k]) for k in word_keys},
        pos_of,
        checker,
    )
    c_raw = {k: results.get(r.id) for k, r in contrast_reqs.items()}
    c_outcomes = apply_pos_check(
        {  # type: ignore[arg-type]
            k: word_outcome(c_raw[k], k[0], vocab, params.lang, (k[2],), guided="wordswap" in forced)
            for k in contrast_reqs
        },
        {k: next(w.pos for w in words if (w.form, w.tag) == k[:2]) for k in contrast_reqs},  # type: ignore[misc]
        PosChecker(params.lang) if params.check_pos and contrast_reqs and checker is None else checker,
    )
    for k in contrast_reqs:
        funnel.sentence("wordswap", c_outcomes[k].stage == "checked")  # type: ignore[index]
    for w in words if not contrast else ():  # each sentence once per subtask; rewrites: Funnel.rewrite
        funnel.sentence("wordswap", outcomes[(w.form, w.tag)].stage == "checked")
    for k in sorted({k for p in infl for k in ((p.form1, p.tag1), (p.form2, p.tag2))}):
        funnel.sentence("inflswap", outcomes[k].stage == "checked")
    for n in range(1, params.rewrites + 1):
        if not _rewrite(
            llm, params, vocab, infl, word_reqs, outcomes, raw, pos_of, checker, guided, funnel, n
        ):
            break
    if contrast:
        drafts = contrast_drafts(ws_pairs, c_outcomes, c_raw, funnel, rejects)  # type: ignore[arg-type]
    else:
        first = labelled.words_first("wordswap") if labelled and "wordswap" in params.labelled_first else ()
        drafts = wordswap_drafts(
            words, outcomes, raw, params.pairs_per_word, params.seed, params.lang, funnel, rejects, first
        )
    drafts += inflswap_drafts(infl, outcomes, raw, params.lang, funnel, rejects)
    drafts += agrswap_drafts(agr_items, results, vocab, params.lang, funnel, rejects, guided_agr)
    drafts = drop_shortcuts(drafts, params.lang, funnel, rejects)  # answers needing no knowledge of the word
    if labelled is not None:  # pairs a person marked not valid (--drop-labelled): replaced, never judged
        drafts = drop_labelled(drafts, labelled.not_valid, funnel, rejects)

    # the LLM filter: 4 prompts per draft under the run's rule
    nonce = pick_nonce(params.nonce, vocab)
    rule = params.rule()
    items = [draft_item(d, params.lang) for d in drafts]
    verdicts: list[Judgement | None] = [None] * len(drafts)
    if params.llm_filter:
        for it in items:  # the round a draft first appeared in: it keeps its place in the queue
            drafted.setdefault(draft_key(it), round_no)
        cells = [cellmod.cell_of(d.subtask, d.bin, d.rule, params.by_length) for d in drafts]
        approved = [  # --labelled-first: drafts labellers approved go first, as if from round 0
            labelled is not None and d.subtask in params.labelled_first and labelled.approves(_pairs(d))
            for d in drafts
        ]
        verdicts = judge_to_fill(
            llm,
            items,
            cells,
            spread_order(  # many lemmas per cell before one twice
                cells,
                [
                    judge_order(it, 0 if ok else drafted[draft_key(it)], params.seed, best)
                    for it, ok, best in zip(
                        items,
                        approved,
                        best_first(llm, items, rule, _bar(progress, "score"), params.fluent_first),
                        strict=True,
                    )
                ],
                [spread_key(d) for d in drafts],
            ),
            rule,
            nonce,
            params.per_cell,
            _bar(progress, "filter"),
            unique_sentences=True,  # a good sentence in one kept quadruplet only (#37)
        )
    quads: dict[str, list[Quadruplet]] = {s: [] for s in SUBTASKS}
    rejected: list[dict[str, Any]] = []  # this pass's (the run writes its last pass's, as its rejects)
    for n, d in enumerate(drafts):
        j = verdicts[n]
        if not params.llm_filter or (j is not None and j.keep):
            funnel.add(d.subtask, d.bin, "kept")
            quads[d.subtask].append(assemble(d, items[n], j))
        else:
            funnel.drop(d.subtask, d.bin, j.reason if j is not None else "cell_full")
            if j is not None and j.reason in JUDGE_DROPS:
                rejected.append(rejected_row(d, items[n], j))
    for s in quads:
        quads[s].sort(key=lambda q: (q.bin, q.rule, q.w1, q.w2, q.id))
    rejected.sort(key=rejected_order)
    return Attempt(
        quads=quads,
        funnel=funnel,
        rejects=rejects,
        nonce=nonce,
        rule=rule,
        by_length=params.by_length,
        rejected=rejected,
    )


def _pairs(d: Draft) -> tuple[tuple[str, str], tuple[str, str]]:
    s1, s2, b1, b2 = good_bad(d)
    return (s1, b1), (s2, b2)
