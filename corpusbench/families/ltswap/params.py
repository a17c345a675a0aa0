"""The LT-Swap family's parameters, declared once (#40, :mod:`corpusbench.params`).

:class:`LtswapFamilyParams` makes the options of ``corpusbench ltswap build`` (``--max-per-bin`` ...
``--batch-size``, in that order on the command line) and :data:`LtswapSpec`, what a release spec's
``ltswap`` ``params`` may say (checked when the spec loads: types, then :func:`check`). The command's run
arguments (``CORPUS``, ``--out``, ``--stats``, ``--workers`` and the shared ``--llm-*`` options of
:mod:`corpusbench.llm.options`) stay with the command; the release's spec-only keys (``base_url``,
``llm_timeout`` ...) are the spec's spelling of some of them. Both sides make the run's input,
:class:`~corpusbench.families.ltswap.pipeline.LtswapParams` (the manifest's ``parameters``), with
:func:`run_params`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import ConfigError, InputError, ParamError
from corpusbench.families.ltswap.prompting import DEFAULT_WRITER
from corpusbench.families.ltswap.records import AGREEMENT_RULES, SUBTASKS
from corpusbench.llm.api import DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT
from corpusbench.params import param, spec_view


def _writer_help() -> str:
    """``--writer-prompt``'s help: every writer prompt (prompting.WRITERS) with its template files."""
    from corpusbench.families.ltswap.prompting import WRITERS

    def files(w) -> str:  # type: ignore[no-untyped-def]
        names = [n.split("/")[-1] for n in (w.system, w.user) if n]
        pair = " + ".join(n.split("/")[-1] for n in w.contrast or ())
        contrast = f"; WordSwap per pair: {pair}" if pair else ""
        return " + ".join(names) + (", with corpus sentences" if w.examples else "") + contrast

    listed = ", ".join(
        f"{v} ({files(w)}{'; default' if v == DEFAULT_WRITER else ''})" for v, w in WRITERS.items()
    )
    where = "corpusbench/families/ltswap/prompts/"
    return f"Writer prompt, one of: {listed}; templates in {where} (docs/ltswap.md)."


def parse_caps(text: str) -> int | dict[str, int]:
    """``--max-per-bin``: "3" or "wordswap=3,inflswap=4,agrswap=1"."""
    try:
        if "=" not in text:
            return int(text)
        return {
            k.strip(): int(v) for k, v in (part.split("=", 1) for part in text.split(",") if part.strip())
        }
    except ValueError:
        raise ConfigError(
            f"--max-per-bin {text!r}: expected a number or subtask=number pairs (wordswap=3,inflswap=4)"
        ) from None


def parse_per_cell(text: str | None) -> int | None:
    """``--per-cell N``: a whole number of at least 1 (None: not given)."""
    if text is None:
        return None
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1 or str(n) != text.strip():
        raise ConfigError(f"--per-cell {text!r}: expected a whole number of at least 1 (e.g. --per-cell 10)")
    return n


def _csv(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


@dataclass(frozen=True, slots=True, kw_only=True)
class LtswapFamilyParams:
    """The LT-Swap family's parameters: the options of ``ltswap build`` (in this order) and the release
    spec's ``params`` are generated from these fields."""

    max_per_bin: int | Mapping[str, int] | None = param(
        200,
        help="Words per (bin, tag); inflection pairs per (bin, POS); agreement noun pairs per bin. "
        "One number, or per subtask: wordswap=3,inflswap=4,agrswap=1.",
        cli_type=str,
        cli_default="200",
        from_cli=parse_caps,
    )
    per_cell: int | None = param(
        None,
        help="Kept quadruplets wanted per (subtask, bin) cell (AgreementSwap: also SHORT/LONG): draws more "
        "in rounds for the cells still short; --max-per-bin is then the draw ceiling per group.",
        cli_type=str | None,
        from_cli=parse_per_cell,
    )
    agreement_cells: str = param(
        "length",
        help="--per-cell's AgreementSwap cells: length (bin x SHORT/LONG) or bin (one per bin, all rules).",
    )
    plan: bool = param(
        False,
        help="Estimate the run (requests, generated tokens, wall time, cells) from a pilot of a few dozen "
        "writer and judge calls on this corpus's words (cached: the run reuses them); ranges, no run.",
        spec=False,
    )
    seed: int = param(0, help="Seed of every sampling step.", doc_default="the spec's `seed`")
    lang: str = param(
        "en",
        help="Corpus language: en (all subtasks), fr or de (WordSwap).",
        doc_default="the corpus's `language`, else the spec's first",
    )
    subtasks: tuple[str, ...] = param(
        SUBTASKS,
        help="Comma-separated: wordswap,inflswap,agrswap.",
        cli_type=str | None,
        cli_default=None,
        from_cli=_csv,
    )
    rules: tuple[str, ...] = param(
        AGREEMENT_RULES,
        help="AgreementSwap rules: SVSHORT,SVLONG,ANAPHORSHORT,ANAPHORLONG,DET.",
        cli_type=str | None,
        cli_default=None,
        from_cli=_csv,
    )
    pairs_per_word: int = param(1, help="WordSwap quadruplets per word at most.")
    agreement_samples: int = param(2, help="Samples per (noun pair, rule).")
    agreement_temperature: float = param(
        0.5, help="Sampling temperature of the AgreementSwap sentences (no option yet).", cli=False
    )
    max_tokens: int = param(96, help="Generation budget per sentence.")
    writer_prompt: str = param(DEFAULT_WRITER, help=_writer_help())
    force_form: tuple[str, ...] = param(
        (),
        help="Guided decoding for these subtasks (comma-separated; English; vLLM servers, another backend is "
        "an error): wordswap/inflswap put each form in a frame per tag, agrswap opens both agreement "
        "sentences with their noun. Measured: helps inflswap and agrswap, not wordswap.",
        cli_type=str,
        cli_default="",
    )
    frames: str = param(
        "varied",
        help="Where --force-form puts a form: varied (a seeded opening per form that only its tag fits; "
        "InflectionSwap nouns after a number-marking determiner and a free adjective), subject (varied, but "
        "an InflectionSwap noun opens the clause as its subject, an agreeing auxiliary right after it) or "
        "fixed (the earlier short frame per tag).",
    )
    rewrites: int = param(
        0,
        help="InflectionSwap: write a form's sentence again (sampled, a new seed) up to N times when it "
        "failed the checks and its partner's passed; the first that passes completes the pair.",
    )
    min_words: int = param(
        0,
        help="Guided InflectionSwap sentences (--force-form inflswap) hold at least N words: the writer may "
        "not stop earlier, and a sentence that was that long anyway is unchanged. 0: no minimum.",
    )
    check_pos: bool = param(
        True,
        help="Tag generated sentences and drop targets used as another part of speech.",
        option="--pos-check/--no-pos-check",
    )
    confirm_inflections: bool = param(
        True,
        help="Ask the LLM whether each inflection pair is one lemma before generating (paper: yes).",
        option="--confirm-inflections/--no-confirm-inflections",
    )
    nonce: str = param(
        "blick",
        help="Nonce word of WordSwap's pairwise game (`ltswap judge --nonce`; the build's judge uses it).",
        cli=False,
    )
    llm_filter: bool = param(
        True,
        help="Judge each quadruplet with 4 LLM prompts (paper: yes); off keeps all checked drafts unjudged.",
        option="--llm-filter/--no-llm-filter",
    )
    filter_rule: str = param(
        "pointwise",
        help="strict (paper: all 4 answers right), debiased or pointwise (default).",
        cli_type=str | None,
        cli_default=None,
    )
    filter_threshold: float | None = param(
        None,
        help="Margin threshold (default: 0.1 for pointwise, 0 for debiased and strict).",
        option="--threshold",
        doc_default="the rule's default",
    )
    wordswap_threshold: float | None = param(
        None,
        help="WordSwap's own margin threshold (default: --threshold). On the labelled kept items, WordSwap "
        "pairs are valid 57% at 0.1, 78% at 0.5, but 0.5 keeps 4 of 25 judged drafts (docs/ltswap.md).",
        doc_default="`filter_threshold`",
    )
    wordswap_rule: str | None = param(
        None,
        help="WordSwap's own filter rule (default: --filter-rule). lm: the judge model's log P(good) - "
        "log P(swapped) per pair, no prompt; its cells are judged best-first by it (docs/ltswap.md).",
        cli_type=str | None,
        doc_default="`filter_rule`",
    )
    fluent_first: tuple[str, ...] = param(
        (),
        help="Judge these subtasks' drafts most fluent first within a cell (comma-separated): by the smaller "
        "per-word log-prob of their two good sentences under the judge model, so a cell with more drafts "
        "than it needs keeps its most natural ones (a backend that scores sentences). Measured: AUC 0.71 "
        "for InflectionSwap validity on 456 labelled pairs; on the demo, whose cells have few drafts to "
        "spare, no measurable gain (docs/ltswap.md).",
        cli_type=str,
        cli_default="",
    )
    drop_labelled: tuple[str, ...] = param(
        (),
        help="Label files or folders (JSON lines as in benchmarks/data/ltswap_validity, comma-separated; a "
        "spec's paths are relative to it): a draft with a minimal pair any labeller marked marginal or "
        "invalid is dropped before the judge and its cell draws a replacement (funnel reason "
        "labelled_not_valid; the card names the files and counts no label it used).",
        cli_type=str,
        cli_default="",
        from_cli=lambda v: tuple(x for x in v.split(",") if x),
    )
    labelled_first: tuple[str, ...] = param(
        (),
        help="With --drop-labelled: these subtasks (comma-separated) draw the words of quadruplets labellers "
        "approved (both pairs valid, none marked otherwise) first, pair them as labelled and judge the "
        "drafts whose two pairs were approved before any other in their cell; the judge still decides, "
        "and the card counts the kept items labellers had approved.",
        cli_type=str,
        cli_default="",
    )
    batch_size: int = param(8, help="transformers backend: prompts per batch.")
    # the release's own keys; those with an ``option`` are the command's own run arguments (--stats) and
    # shared --llm-* options (corpusbench.llm.options), not generated from these fields
    base_url: str | None = param(
        None,
        help="vllm-server/openai: a running server.",
        cli=False,
        option="--llm-base-url",
        doc_default="a server started for the build",
    )
    llm_timeout: float = param(
        DEFAULT_TIMEOUT, help="Seconds per call to the LLM server.", cli=False, option="--llm-timeout"
    )
    llm_retries: int = param(
        DEFAULT_RETRIES, help="Retries of a failed LLM call.", cli=False, option="--llm-retries"
    )
    llm_concurrency: int = param(
        DEFAULT_CONCURRENCY,
        help="Requests in flight to the LLM server.",
        cli=False,
        option="--llm-concurrency",
    )
    max_llm_failures: int | float | str = param(
        0,
        help='Failed calls the run may absorb: a count, a share (0.02) or "2%".',
        cli=False,
        option="--max-llm-failures",
    )
    stats: str | None = param(
        None,
        help="A stats folder of the corpus.",
        cli=False,
        option="--stats",
        doc_default="the corpus's `stats`, else computed",
    )
    config_prefix: str = param("ltswap-", help="Prefix of the release config names.", cli=False)
    prefix_variants: bool = param(
        True, help="Also write the `-prefix` configs (a corpus sentence before each sentence).", cli=False
    )
    reuse_run: str | None = param(
        None,
        help="A finished `corpusbench ltswap build` folder (its `--out`) used instead of a new run when its "
        "parameters, corpus fingerprint and model are this build's and none of its LLM calls failed (the "
        "default release reuses the demo's run this way).",
        cli=False,
    )


#: The fields that are the run's input (pipeline.LtswapParams, the manifest's ``parameters``).
RUN_FIELDS = (
    "lang", "seed", "max_per_bin", "subtasks", "rules", "pairs_per_word", "agreement_samples",
    "agreement_temperature", "max_tokens", "writer_prompt", "check_pos", "confirm_inflections", "nonce",
    "llm_filter", "filter_rule", "filter_threshold", "wordswap_threshold", "wordswap_rule", "per_cell",
    "agreement_cells", "force_form", "frames", "rewrites", "fluent_first", "labelled_first", "min_words",
)  # fmt: skip


def run_params(p: Any) -> Any:
    """The run's :class:`~corpusbench.families.ltswap.pipeline.LtswapParams` of ``p`` (the declaration or
    the spec's view); its checks raise ``ParamError`` named by the field."""
    from corpusbench.families.ltswap.pipeline import LtswapParams

    return LtswapParams(**{k: getattr(p, k) for k in RUN_FIELDS})


def labelled_filter(p: Any, resolve: Any = Path) -> Any:
    """The run's human filter (``validity.LabelFilter``) from ``drop_labelled``, each path through
    ``resolve``; None when no file is named."""
    from corpusbench.families.ltswap.validity import label_filter

    paths = list(p.drop_labelled)
    if not paths:
        if p.labelled_first:
            raise ParamError("labelled_first", ": needs label files (drop_labelled, --drop-labelled)")
        return None
    try:
        return label_filter(resolve(x) for x in paths)
    except InputError as e:
        raise ParamError("drop_labelled", f": {e}") from None


def llm_options(p: Any) -> Any:
    """The run's ``session.LLMOptions``: the spec's ``llm_timeout``, ``llm_retries``, ``llm_concurrency``,
    ``max_llm_failures``."""
    from corpusbench.families.ltswap.session import LLMOptions
    from corpusbench.llm.records import FailureBudget

    budget = FailureBudget.parse(p.max_llm_failures, "max_llm_failures")
    try:
        return LLMOptions(
            timeout=p.llm_timeout, retries=p.llm_retries, concurrency=p.llm_concurrency, max_failures=budget
        )
    except ParamError as e:  # timeout/retries: named by their spec keys (parse_params adds where)
        raise ParamError(f"llm_{e.param}", e.problem) from None


def check(spec: Any) -> None:
    """A spec's params, checked when the spec loads: the LLM settings, then the run's parameters."""
    llm_options(spec)
    run_params(spec)


#: What a release spec's ltswap ``params`` may say (the fields above but ``plan``), generated.
LtswapSpec = spec_view(LtswapFamilyParams, "LtswapSpec", check=check)
