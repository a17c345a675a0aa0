"""``corpusbench eval run --dataset <CAC folder>``: score a model at every CAC site, then the CAC metrics.

The folder is one written by ``corpusbench cac build`` (``manifest.json`` with ``"kind": "cac"``,
``sites.parquet``, ``utterances.parquet``, ``human_stats.parquet``). Each child/caretaker site is
rebuilt with its discourse context (:func:`corpusbench.families.cac.io.site_prompt`), the model
takes the speaker's place (:func:`corpusbench.families.cac.lm.choose_determiners`), and the per-site
choice distributions go to :func:`corpusbench.families.cac.model.model_stats` / ``model_tests``
(expected overlap and bias vs Yang's prediction, expected TPR, tests vs the adult baseline and
vs the humans). Outputs, written atomically like the minimal-pair path: ``results.json``,
``scores.parquet`` (one row per site), ``model_stats.csv``, ``overlap.png``, ``tpr.png``,
``summary.md``, ``timing.json``.

A release config of task ``cac`` (the ``cac`` release adapter: one row per site, context stored once
per session, see :mod:`corpusbench.families.cac.table`) goes through
:func:`score_cac_release_config`, which shares :func:`score_cac` with the folder path: the same sites
give the same prompts and the same numbers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from corpusbench.errors import ConfigError, InputError
from corpusbench.eval.records import DeterminerChoice, DeterminerSite
from corpusbench.eval.results import fmt
from corpusbench.family import ScoreRun, TaskScores
from corpusbench.io import atomic_path, read_json
from corpusbench.provenance import code_version

if TYPE_CHECKING:
    from corpusbench.eval.release import ConfigEntry, Release
    from corpusbench.eval.results import EvalReport
    from corpusbench.eval.spec import EvalSpec, ProgressFactory
    from corpusbench.eval.timing import StageClock
    from corpusbench.families.cac.records import Alternation, GroupStats, Site

ROLES = ("child", "caretaker")


def is_cac_folder(path: str | Path) -> bool:
    """A local folder written by ``corpusbench cac build``."""
    m = Path(path) / "manifest.json"
    if not m.is_file():
        return False
    try:
        return read_json(m).get("kind") == "cac"
    except (OSError, ValueError):
        return False


def alternation_of(manifest: dict[str, Any]) -> Alternation:
    from corpusbench.families.cac.records import Alternation

    a = manifest.get("parameters", {}).get("alternation", {})
    return Alternation.parse(
        a.get("alternatives", "the,a|an"),
        finder=a.get("finder", "noun_chunk"),
        max_gap=a.get("max_gap", 1),
        singular_head=a.get("singular_head", True),
    )


def label_probs(logprobs: dict[str, float], alternation: Alternation) -> dict[str, float]:
    """Forms merged per label (logaddexp), then a softmax over the labels; uniform if all are -inf."""
    by_label: dict[str, list[float]] = {lab: [] for lab in alternation.labels}
    for form, lp in logprobs.items():
        lab = alternation.label_of(form)
        if lab is not None and lp != -math.inf:
            by_label[lab].append(lp)
    merged = {
        k: (max(v) + math.log(sum(math.exp(x - max(v)) for x in v)) if v else -math.inf)
        for k, v in by_label.items()
    }
    top = max(merged.values())
    if top == -math.inf:
        return {k: 1.0 / len(merged) for k in merged}
    z = sum(math.exp(v - top) for v in merged.values())
    return {k: math.exp(v - top) / z for k, v in merged.items()}


def select_sites(
    sites: Sequence[Site], limit: int | None, mode: str = "stratified", seed: int = 0
) -> list[Site]:
    """Child/caretaker sites in transcript order. With ``limit``, at most ``limit`` of each dyad × role:
    a seeded sample spread over the session (``mode="stratified"``) or the first ones (``"first"``)."""
    import random

    if mode not in ("stratified", "first"):
        raise ConfigError(f"--limit-mode must be stratified or first, got {mode!r}")
    ordered = sorted((s for s in sites if s.role in ROLES), key=lambda s: (s.file, s.position, s.token))
    if limit is None:
        return ordered
    groups: dict[tuple[str, str], list[Site]] = {}
    for s in ordered:
        groups.setdefault((s.dyad, s.role), []).append(s)
    keep: set[str] = set()
    for key, members in sorted(groups.items()):
        if mode == "first" or len(members) <= limit:
            keep.update(s.id for s in members[:limit])
        else:
            rng = random.Random(f"{seed}:{key[0]}:{key[1]}")
            keep.update(s.id for s in rng.sample(members, limit))
    return [s for s in ordered if s.id in keep]


QUICK_CONTEXT_TOKENS = 1024  # CAC window of a --limit run (measured: docs/evaluation.md)
QUICK_CONTEXT_STEP = 500  # ... and its step: contexts hold 513-1013 tokens, the KV cache carries over
WINDOW_FLOOR = 64  # a smaller window leaves no room for the target utterance


@dataclass(frozen=True, slots=True)
class ContextWindow:
    """How CAC contexts are cut: to ``tokens`` (the model's window at most), ``step`` tokens deeper when
    a cut is needed (0: exactly to the window, the reference), and why."""

    tokens: int
    step: int
    reason: str


WHOLE_WINDOW_STEP = 4  # a full causal run re-cuts a dialogue that outgrows the window 1/4 window deeper


def whole_window_step(tokens: int) -> int:
    """The default step of a causal run over the model's whole window: a quarter of the usable window,
    so every context keeps >= 3/4 of it and a dialogue is run in overlapping windows, one pass each."""
    from corpusbench.families.cac.lm import WINDOW_MARGIN

    return max(0, (tokens - WINDOW_MARGIN - 1) // WHOLE_WINDOW_STEP)


def context_window(spec: EvalSpec, model_window: int, causal: bool = True) -> ContextWindow:
    """``--context-tokens`` (0 = the model's whole window, the paper's setting), else the quick-run cap
    with ``--limit``, else the model's window; ``--context-step`` or, for the quick cap, its step; for
    the whole window of a causal model, :func:`whole_window_step` (masked and seq2seq: exact cuts)."""
    from corpusbench.eval.spec import family_options
    from corpusbench.families.cac.params import CacRunOptions

    options = family_options(spec, CacRunOptions)
    want, step = options.context_tokens, options.context_step
    if not causal:
        step = 0
    if want is not None and want < 0:
        raise ConfigError(f"--context-tokens must be 0 (the model's window) or positive, got {want}")
    quick_step = False
    if want is None and spec.limit is not None:
        want = QUICK_CONTEXT_TOKENS
        quick_step = step is None and causal
        step = QUICK_CONTEXT_STEP if quick_step else step
        why = "quick run (--limit); --context-tokens 0 gives the paper's whole window"
    elif want:
        why = "--context-tokens"
    else:
        if step is None:
            step = whole_window_step(model_window)
            how = f"overlapping windows: cut {step} tokens deeper when full; --context-step 0 cuts exactly"
        else:
            how = f"cut {step} tokens deeper when full (--context-step)" if step else "each site cut exactly"
        return ContextWindow(model_window, step, f"the model's whole window ({how})")
    if want <= WINDOW_FLOOR:
        raise ConfigError(f"--context-tokens {want}: too small for the target utterance (> {WINDOW_FLOOR})")
    tokens = min(want, model_window)
    if quick_step and tokens < want:  # the model's window is below the cap: the largest step it allows
        from corpusbench.families.cac.lm import WINDOW_MARGIN

        step = min(step, (tokens - WINDOW_MARGIN - 1) // 2 - 1)
    return ContextWindow(tokens, step or 0, why)


def determiner_sites(
    sites: Sequence[Site],
    sessions: dict[str, list[Any]],
    alternation: Alternation,
    max_utterances: int | None,
) -> list[DeterminerSite]:
    """The scorer's view of each site of a CAC folder (``sessions``: each file's utterances)."""
    from corpusbench.families.cac.table import session_lines

    return determiner_sites_from_lines(sites, session_lines(sessions), alternation, max_utterances)


def determiner_sites_from_lines(
    sites: Sequence[Site],
    lines: dict[str, list[str]],
    alternation: Alternation,
    max_utterances: int | None,
) -> list[DeterminerSite]:
    """The scorer's view of each site: context + target up to the slot, rest of the line, all forms
    (capitalised when the human's form was). ``lines``: each session's context lines."""
    from corpusbench.families.cac.table import site_left_right

    forms = tuple(f for _, fs in alternation.choices for f in fs)
    out = []
    for s in sites:
        left, right = site_left_right(s, lines[s.file], max_utterances)
        cands = tuple(f.capitalize() for f in forms) if s.form[:1].isupper() else forms
        out.append(DeterminerSite(id=s.id, left=left, right=right, candidates=cands))
    return out


def _site_frame(sites: Sequence[Site], dets: Sequence[DeterminerChoice], choices: Sequence[Any]):
    import pandas as pd

    rows = []
    for s, d, c in zip(sites, dets, choices, strict=True):
        row = {
            "site_id": s.id,
            "file": s.file,
            "dyad": s.dyad,
            "role": s.role,
            "speaker": s.speaker,
            "key": s.key,
            "human_choice": s.choice,
            "human_form": s.form,
            "tpr_case": s.tpr_case,
            "prev_choice": s.prev_choice,
            "antecedent_in_context": c.antecedent_in_context,
            "n_context_tokens": d.n_context_tokens,
            "context_lines": d.context_lines,
            "truncated": d.truncated,
        }
        row.update({f"logprob_{f.lower()}": v for f, v in d.logprobs.items()})
        row.update({f"p_{k}": v for k, v in c.probs})
        rows.append(row)
    return pd.DataFrame(rows)


def unit_from_sites(sites: Sequence[Site]) -> dict[str, Any]:
    """The unit of analysis of a CAC build that did not record one: counted from the sites."""
    dyads = {s.dyad for s in sites if s.role in ROLES}
    sessions = {s.file for s in sites if s.role in ROLES}
    return {
        "mode": None,
        "unit": "not recorded",
        "n_dyads": len(dyads),
        "n_sessions": len(sessions),
        "description": f"not recorded by the CAC build: {len(dyads)} dyad(s) over {len(sessions)} session(s)",
    }


def _stats_dict(stats: Sequence[GroupStats], verdicts: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    roles: dict[str, Any] = {}
    for role in ROLES:
        rows = [s for s in stats if s.role == role]
        if not rows:
            continue
        v = verdicts[role]
        roles[role] = {
            "accuracy": float(np.nanmean([s.accuracy for s in rows])),
            "n_sites": sum(s.n_tokens for s in rows),
            "n_dyads": len(rows),
            "mean_bias": v.mean_bias,
            "mean_overlap": float(np.nanmean([s.overlap for s in rows])),
            "mean_predicted_overlap": float(np.nanmean([s.predicted_overlap for s in rows])),
            "mean_tpr": float(np.nanmean([s.tpr for s in rows])) if any(s.n_tpr for s in rows) else None,
            "degenerate": v.degenerate,
            "dxn_pass": v.dxn_pass,
            "tpr_pass": v.tpr_pass,
            "tests": [t.as_row() for t in v.tests],
            "dyads": [s.as_row() for s in rows],
        }
    return roles


def _f3(x: Any) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def summary_markdown(results: dict[str, Any]) -> str:
    from corpusbench.eval.timing import timing_line

    prov = results["provenance"]
    f = _f3
    lines = [
        f"# CAC evaluation of `{prov['model']['model_id']}` on `{prov['dataset']['dataset']}`",
        "",
        f"- **score {f(results['score'])}**: MLE agreement with the children (mean over child dyads, "
        f"Table D1); caretakers {f(results['accuracy_caretaker'])}, all sites pooled "
        f"{f(results['accuracy_pooled'])}",
        f"- unit of analysis: {results['dyad_unit']['description']}",
        f"- sites scored: {results['n_sites']} ({results['n_truncated']} with the context cut to the "
        f"window of {results['window']} tokens, step {results.get('context_step', 0)}: "
        f"{results.get('window_reason', '')})",
        f"- alternation: {results['alternation']}; scorer `{prov['scorer']['scorer']}`",
        *([f"- time: {timing_line(results['timing'])}"] if "timing" in results else []),
        "",
        "| role | dyads | sites | agreement | bias | overlap | Yang predicted | TPR | D×N pass | TPR pass |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for role, m in results["configs"].items():
        flag = " (degenerate)" if m["degenerate"] else ""
        lines.append(
            f"| {role} | {m['n_dyads']} | {m['n_sites']} | {f(m['accuracy'])} | {f(m['mean_bias'])} | "
            f"{f(m['mean_overlap'])} | {f(m['mean_predicted_overlap'])} | {f(m['mean_tpr'])} | "
            f"{m['dxn_pass']}{flag} | {m['tpr_pass']} |"
        )
    lines += ["", "Tests (pass = p > alpha):", ""]
    for role, m in results["configs"].items():
        for t in m["tests"]:
            lines.append(
                f"- {role} `{t['name']}`: n={t['n']}, p={f(t['p_value'])}, pass={t['passed']} {t['note']}"
            )
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class CacScored:
    """One model scored on a set of CAC sites: results dict, per-site frame, model statistics."""

    results: dict[str, Any]
    frame: Any  # pandas DataFrame, one row per site
    stats: list[GroupStats]
    human: list[GroupStats]
    baseline: float
    model_name: str
    scoring_seconds: float


NO_CAC_SCORER = "CAC needs a causal, masked or seq2seq HF model (n-gram baselines score sentence pairs only)"


def scores_cac(scorer: Any) -> bool:
    """Whether ``scorer`` can take the speaker's place at a CAC site (HF causal, masked or seq2seq)."""
    from corpusbench.eval.causal import CausalScorer
    from corpusbench.eval.masked import MaskedPllScorer
    from corpusbench.eval.seq2seq import Seq2SeqScorer

    return isinstance(scorer, CausalScorer | MaskedPllScorer | Seq2SeqScorer)


def refuses(scorer: Any) -> str | None:
    """The ``refuses`` hook: why ``scorer`` cannot score CAC configs (an n-gram baseline), else None."""
    return None if scores_cac(scorer) else NO_CAC_SCORER


def score_cac(
    spec: EvalSpec,
    all_sites: Sequence[Site],
    lines: dict[str, list[str]],
    alternation: Alternation,
    human: Sequence[GroupStats],
    parameters: dict[str, Any],
    dataset: dict[str, Any],
    *,
    progress: ProgressFactory | None = None,
    scorer: Any = None,
    model_provenance: dict[str, Any] | None = None,
    dyad_unit: dict[str, Any] | None = None,
    clock: StageClock | None = None,
) -> CacScored:
    """Score ``spec.model`` at every child/caretaker site and compute the model-side CAC metrics.

    Shared by the CAC-folder path (:func:`run_cac_eval`) and the release path
    (:func:`score_cac_release_config`); ``lines`` are each session's context lines, ``human`` the
    human statistics the model is tested against, ``dataset`` the provenance of the data,
    ``dyad_unit`` the unit of analysis the CAC build recorded (else described from the sites);
    ``clock`` gets the seconds of loading the model, scoring and the metrics.
    """
    from corpusbench.eval.scorers import open_scorer
    from corpusbench.eval.spec import family_options, spec_dict
    from corpusbench.families.cac.lm import choose_determiners
    from corpusbench.families.cac.model import model_stats, model_tests
    from corpusbench.families.cac.params import CacRunOptions
    from corpusbench.families.cac.records import ADULT_TPR_BASELINE, SiteChoice

    sites = select_sites(all_sites, spec.limit, spec.limit_mode, spec.seed)
    if not sites:
        raise InputError(f"{spec.dataset}: no child or caretaker sites to score")
    utterances = family_options(spec, CacRunOptions).context_utterances
    dsites = determiner_sites_from_lines(sites, lines, alternation, utterances)
    from corpusbench.eval.timing import StageClock

    clock = clock or StageClock()
    if scorer is None:
        with clock.stage("load"):
            scorer, model_provenance = open_scorer(spec)
    model_prov = dict(model_provenance or {})
    if not scores_cac(scorer):
        raise ConfigError(f"{spec.model}: {NO_CAC_SCORER}")
    from corpusbench.eval.causal import CausalScorer

    # masked / seq2seq cut each context exactly (no cache to carry)
    cut = context_window(spec, int(model_prov.get("max_positions") or 512), isinstance(scorer, CausalScorer))
    t1 = time.perf_counter()
    advance = progress("scoring CAC sites", len(dsites)) if progress else None
    with clock.stage("score"):
        dets = choose_determiners(scorer, dsites, window=cut.tokens, progress=advance, context_step=cut.step)
    t_score = time.perf_counter() - t1
    t_metrics = time.perf_counter()
    choices = [
        SiteChoice.from_probs(
            s.id,
            label_probs(d.logprobs, alternation),
            antecedent_in_context=None if s.prev_distance is None else d.in_window(s.prev_distance),
        )
        for s, d in zip(sites, dets, strict=True)
    ]
    baseline = parameters.get("baseline", ADULT_TPR_BASELINE)
    alpha = parameters.get("alpha", 0.05)
    name = model_prov.get("model_id", spec.model)
    stats = model_stats(sites, choices, source=name, alternation=alternation)
    roles = [r for r in ROLES if any(s.role == r for s in stats)]
    verdicts = {r: model_tests(stats, human, role=r, baseline=baseline, alpha=alpha) for r in roles}
    per_role = _stats_dict(stats, verdicts)
    unit = dyad_unit or unit_from_sites(all_sites)
    n = len(sites)
    pooled = sum(c.argmax(alternation.labels) == s.choice for s, c in zip(sites, choices, strict=True)) / n
    score = per_role.get("child", {}).get("accuracy", math.nan)  # Table D1: agreement with the children
    results = {
        "kind": "cac",
        "score": score,
        "accuracy": score,
        "accuracy_caretaker": per_role.get("caretaker", {}).get("accuracy", math.nan),
        "accuracy_pooled": pooled,
        "accuracy_macro_configs": float(sum(m["accuracy"] for m in per_role.values()) / len(per_role)),
        "dyad_unit": unit,
        "n_sites": n,
        "n_truncated": sum(d.truncated for d in dets),
        "window": cut.tokens,
        "window_reason": cut.reason,
        "context_step": cut.step,
        "alternation": alternation.describe(),
        "degenerate": any(m["degenerate"] for m in per_role.values()),
        "configs": per_role,
        "provenance": {
            "model": model_prov,
            "dataset": dataset,
            "scorer": scorer.conventions(),
            "spec": spec_dict(spec),
            "code": code_version(),
        },
    }
    frame = _site_frame(sites, dets, choices)
    clock.add("metrics", time.perf_counter() - t_metrics)
    clock.merge(getattr(scorer, "clock", None))  # its tokenize seconds and tokens
    return CacScored(
        results=results,
        frame=frame,
        stats=stats,
        human=list(human),
        baseline=baseline,
        model_name=name,
        scoring_seconds=t_score,
    )


DYAD_FIGURE = "cac_dyads.png"


def write_dyad_figure(scored: CacScored, path: Path) -> None:
    """The paper figure of one scored model: model vs human overlap, bias and TPR per dyad."""
    from corpusbench.families.cac.plots import plot_dyads

    res = scored.results
    plot_dyads(
        scored.human,
        scored.stats,
        path,
        tests={role: m["tests"] for role, m in res["configs"].items()},
        baseline=scored.baseline,
        title=f"CAC per dyad: {scored.model_name} vs humans (score {_f3(res['score'])})",
        footnote=f"unit of analysis: {res['dyad_unit']['description']}; {res['n_sites']} sites scored",
    )


def _extras(scored: CacScored) -> Callable[[Path], None]:
    def extras(folder: Path) -> None:
        import pandas as pd

        from corpusbench.families.cac.plots import plot_overlap, plot_tpr

        name = scored.model_name
        with atomic_path(folder / "model_stats.csv") as p:
            pd.DataFrame([s.as_row() for s in scored.stats]).to_csv(p, index=False, float_format="%.6f")
        both = [*scored.human, *scored.stats]
        plot_overlap(both, folder / "overlap.png", title=f"CAC D×N overlap: humans and {name}")
        plot_tpr(both, folder / "tpr.png", baseline=scored.baseline, title=f"CAC TPR: humans and {name}")
        write_dyad_figure(scored, folder / DYAD_FIGURE)

    return extras


def folder_eval(
    spec: EvalSpec, progress: ProgressFactory | None = None, clock: StageClock | None = None
) -> EvalReport | None:
    """The ``folder`` hook: ``eval run`` on a ``cac build`` folder (None: ``spec.dataset`` is not one)."""
    return run_cac_eval(spec, progress, clock) if is_cac_folder(spec.dataset) else None


def run_cac_eval(
    spec: EvalSpec, progress: ProgressFactory | None = None, clock: StageClock | None = None
) -> EvalReport:
    """Score ``spec.model`` on the CAC folder ``spec.dataset`` and write ``spec.out`` atomically."""
    from corpusbench.eval.results import write_eval_folder
    from corpusbench.eval.timing import StageClock
    from corpusbench.families.cac.io import load_sites, read_stats
    from corpusbench.families.cac.table import session_lines

    clock = clock or StageClock()
    t0 = time.perf_counter() - sum(clock.seconds.values())
    folder = Path(spec.dataset)
    manifest = read_json(folder / "manifest.json")
    all_sites, sessions = load_sites(folder)
    scored = score_cac(
        spec,
        all_sites,
        session_lines(sessions),
        alternation_of(manifest),
        read_stats(folder / "human_stats.parquet"),
        manifest.get("parameters", {}),
        {
            "dataset": str(folder),
            "kind": "cac",
            "dataset_fingerprint": manifest.get("fingerprint"),
            "corpus_fingerprint": manifest.get("corpus_fingerprint"),
        },
        progress=progress,
        dyad_unit=manifest.get("dyad_unit"),
        clock=clock,
    )
    n = scored.results["n_sites"]
    return write_eval_folder(
        spec,
        scored.results,
        scored.frame,
        started=t0,
        scoring_seconds=scored.scoring_seconds,
        unit="sites",
        n_units=n,
        n_items=n,
        extras=_extras(scored),
        summary=summary_markdown,
        clock=clock,
    )


def release_config_table(release: Any, config: str) -> Any:
    """The rows of one config of a release (:class:`corpusbench.eval.release.Release`): read from the
    local build folder, or fetched from the Hub (``release.source`` at ``release.revision``)."""
    import pandas as pd

    if release.root is not None:
        files = release.data_files(config)
    else:
        from huggingface_hub import snapshot_download

        local = snapshot_download(
            release.source,
            repo_type="dataset",
            revision=release.revision,
            allow_patterns=[f"data/{config}/*.parquet"],
        )
        files = sorted(Path(local, "data", config).glob("*.parquet"))
        if not files:
            raise InputError(f"{release.source}@{release.revision}: no parquet files under data/{config}/")
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def score_cac_release_config(
    spec: EvalSpec,
    table: Any,
    config_entry: Any,
    *,
    progress: ProgressFactory | None = None,
    scorer: Any = None,
    model_provenance: dict[str, Any] | None = None,
    clock: StageClock | None = None,
) -> tuple[dict[str, Any], CacScored]:
    """Score one release config of task ``cac`` (``table``: its rows; ``config_entry``: its manifest
    entry, a mapping or an object with ``name``/``parameters``). Returns a JSON-able dict: ``score``
    (MLE agreement with the children, mean over child dyads, as Table D1; the caretakers' and the
    pooled agreement beside it), the unit of analysis (``dyad_unit``), the model-side metrics per role
    (expected overlap and bias vs Yang, expected TPR, D×N and TPR tests, the degenerate-model flag
    beside the D×N test), the human statistics
    recomputed from the rows, and ``sites`` (per-site label probabilities). The alternation comes
    from the entry's parameters, else from the table's ``alternation`` column; the test settings
    (baseline, alpha, Zipf exponent) from the parameters, else the paper's defaults. Pass an open
    ``scorer`` (with its ``model_provenance``) to reuse a loaded model.
    """
    from corpusbench.families.cac.stats import human_stats
    from corpusbench.families.cac.table import ALTERNATION_COLUMN, table_sites

    def get(key: str) -> Any:
        if isinstance(config_entry, dict):
            return config_entry.get(key)
        return getattr(config_entry, key, None)

    params = dict(get("parameters") or {})
    cac_params = dict(params.get("cac_parameters") or {})
    if "alternation" not in cac_params and ALTERNATION_COLUMN in getattr(table, "columns", ()):
        spec_str = str(table[ALTERNATION_COLUMN].iloc[0]) if len(table) else "the,a|an"
        cac_params["alternation"] = {"alternatives": spec_str}
    alternation = alternation_of({"parameters": cac_params})
    all_sites, lines = table_sites(table)
    human = human_stats(all_sites, alternation, cac_params.get("zipf_exponent", 1.0))
    scored = score_cac(
        spec,
        all_sites,
        lines,
        alternation,
        human,
        cac_params,
        {
            "dataset": str(spec.dataset),
            "kind": "cac-release",
            "config": get("name"),
            "content_fingerprint": get("content_fingerprint"),
        },
        progress=progress,
        scorer=scorer,
        model_provenance=model_provenance,
        dyad_unit=params.get("dyad_unit"),
        clock=clock,
    )
    frame = scored.frame
    prob_cols = [c for c in frame.columns if c.startswith("p_")]
    results = {
        **scored.results,
        "model_stats": [s.as_row() for s in scored.stats],
        "human_stats": [s.as_row() for s in human],
        "sites": [
            {"site_id": r["site_id"], **{c[2:]: float(r[c]) for c in prob_cols}}
            for r in frame[["site_id", *prob_cols]].to_dict("records")
        ],
    }
    return results, scored


def run_cac_configs(
    spec: EvalSpec,
    release: Release,
    entries: Sequence[ConfigEntry],
    scorer: Any,
    model_provenance: dict[str, Any],
    progress: ProgressFactory | None,
    figures: dict[str, Any],
    clock: StageClock | None = None,
) -> dict[str, dict[str, Any]]:
    """A release's CAC configs through :func:`score_cac_release_config`, with the open scorer; each
    config's scored model goes into ``figures`` (its per-dyad figure is drawn with the results)."""
    manifest = release.root / "provenance.json" if release.root is not None else None
    full = {c["name"]: c for c in read_json(manifest)["configs"]} if manifest and manifest.is_file() else {}
    out = {}
    for e in entries:
        table = release_config_table(release, e.name)  # build folder, or the Hub at its revision
        res, scored = score_cac_release_config(
            spec,
            table,
            full.get(e.name, {"name": e.name}),
            progress=progress,
            scorer=scorer,
            model_provenance=model_provenance,
            clock=clock,
        )
        out[e.name] = {k: v for k, v in res.items() if k != "sites"}  # per-site probabilities: too big here
        figures[e.name] = scored
    return out


def _role_means(rows: Sequence[dict[str, Any]], key: str) -> dict[str, float]:
    by_role: dict[str, list[float]] = {}
    for r in rows:
        v = r.get(key)
        if r.get("role") is not None and isinstance(v, int | float) and v == v:
            by_role.setdefault(str(r["role"]), []).append(float(v))
    return {k: float(np.mean(v)) for k, v in by_role.items()}


def cac_benchmark(per_config: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """``score`` = mean of the CAC configs' MLE agreement with the children (the caretakers' and the pooled
    agreement beside it); ``summary``: model vs human overlap and TPR per
    role (means over configs) for the comparison table; each config's full result under ``configs``."""
    if not per_config:
        return None
    scores = [r["score"] for r in per_config.values() if r.get("score") is not None]
    flat: dict[str, list[float]] = {}
    for r in per_config.values():
        for role, m in (r.get("configs") or {}).items():
            for key, name in (("mean_overlap", "overlap"), ("mean_tpr", "TPR"), ("mean_bias", "bias")):
                if isinstance(m.get(key), int | float):
                    flat.setdefault(f"{role} {name}", []).append(float(m[key]))
        for key, name in (("overlap", "overlap"), ("tpr", "TPR")):
            for role, v in _role_means(r.get("human_stats") or [], key).items():
                flat.setdefault(f"{role} human {name}", []).append(v)

    def mean_of(key: str) -> float | None:
        got = [r[key] for r in per_config.values() if isinstance(r.get(key), int | float)]
        return float(np.mean(got)) if got else None

    return {
        "score": float(np.mean(scores)) if scores else None,  # agreement with the children (Table D1)
        "accuracy_caretaker": mean_of("accuracy_caretaker"),
        "accuracy_pooled": mean_of("accuracy_pooled"),
        "summary": {k: float(np.mean(v)) for k, v in sorted(flat.items())},
        "configs": per_config,
    }


def cac_markdown(cac: dict[str, Any]) -> list[str]:
    """CAC's lines of summary.md: the agreement with the children and the model-vs-human summary."""
    summ = cac.get("summary") or {}
    return [
        f"- **CAC score {fmt(cac.get('score'))}** (agreement with the children)",
        *[f"  - {k}: {v:.3f}" for k, v in summ.items()],
    ]


def cac_rows(cac: dict[str, Any]) -> dict[str, float | None]:
    """The ``rows`` hook: each CAC config's score, a row of ``eval run``'s table."""
    return {cfg: res.get("score") for cfg, res in cac.get("configs", {}).items()}


def score_release(entries: Sequence[ConfigEntry], run: ScoreRun) -> TaskScores:
    """The ``score`` hook: a release's CAC configs scored with the run's scorer, their ``benchmarks.cac``
    block and the paper's figure per config (model vs humans per dyad)."""
    scored: dict[str, Any] = {}
    per_config = run_cac_configs(
        run.spec, run.release, entries, run.scorer, run.model_provenance, run.progress, scored, run.clock
    )

    def figures(folder: Path) -> None:
        for name, one in scored.items():
            stem = Path(DYAD_FIGURE)
            figure = stem.name if len(scored) == 1 else f"{stem.stem}_{name}{stem.suffix}"
            write_dyad_figure(one, folder / figure)

    return TaskScores(block=cac_benchmark(per_config), figures=figures)
