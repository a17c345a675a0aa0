"""``corpusbench audit RELEASE``: how far shallow baselines get on a built release.

Word and tag n-gram models are trained on the release's own corpus (or reused from the models folder
when order and corpus fingerprint match), every minimal-pair config is scored with them exactly as the
eval runner scores a model (critical-region spans where the data has them), plus the word-or-tag oracle
(a pair counts when either model gets it right, Table 1 of Vázquez Martínez et al. 2023) and the linear
rules of ``heuristics``. Results per config, group and bin go to ``RELEASE/audit.json`` and into the
release card; configs a baseline solves above the threshold are flagged.

Ties, one convention per baseline kind (:data:`TIE_CONVENTIONS`): a *model* (the n-grams, and so their
oracle) scores a tie 0, exactly as ``corpusbench eval run --model ngram:DIR`` scores it, so the audit and an
eval of the same model agree; a *rule* that fires on both or on neither sentence abstains and scores 0.5,
the expected score of a guess, as the rule baselines of Vázquez Martínez et al. (2023) do ("shorter" on
pairs of equal length is at chance, not at 0). Every accuracy comes with its tie share (``ties``) and
both readings (``accuracy_strict``, ``accuracy_ties_half``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench import heuristics
from corpusbench.baselines.scoring import NgramScorer
from corpusbench.baselines.train import TrainParams, model_manifest, train_ngrams
from corpusbench.corpus.readers import CorpusSpec
from corpusbench.errors import ConfigError, InputError
from corpusbench.eval.benchmarks import TIE_RULE
from corpusbench.eval.data import table_pairs
from corpusbench.eval.runner import score_pairs
from corpusbench.io import atomic_write, read_json, write_json
from corpusbench.provenance import code_version
from corpusbench.publish import tables
from corpusbench.publish.build import load_manifest
from corpusbench.publish.render import render_card

log = logging.getLogger(__name__)
PAIR_TASKS = ("minimal_pairs", "prefix_pairs")
NGRAM = ("ngram-word", "ngram-tag", "oracle")
TIE_CONVENTIONS = {
    "model": "a tie scores 0 (not a win), as `corpusbench eval` scores every model (" + TIE_RULE + ")",
    "rule": "a tie scores 0.5: the rule fires on both or on neither sentence and abstains (a guess)",
}


def tie_convention(baseline: str) -> str:
    """``model`` for the n-gram models and their oracle, ``rule`` for the one-line rules."""
    return "model" if baseline in NGRAM else "rule"


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditParams:
    order: int = 5
    threshold: float = 0.9
    retrain: bool = False
    scoring: str = "auto"  # as the eval runner: auto = critical-region spans where the data has them; full


def _corpus_path(value: str, release: Path, spec: Path | None) -> Path:
    """A spec-relative corpus path: against --spec's folder, else the default build layout, else the cwd."""
    p = Path(value).expanduser()
    if p.is_absolute():
        return p
    parents = release.resolve().parents
    bases = [spec.parent] if spec else [*([parents[2]] if len(parents) > 2 else []), Path.cwd()]
    for base in bases:
        if (base / p).exists():
            return base / p
    raise InputError(f"{release}: corpus {value!r} not found relative to {bases[0]}; pass --spec SPEC.yaml")


def _models_for(
    key: str,
    corpus: dict[str, Any],
    release: Path,
    spec: Path | None,
    models: Path,
    params: AuditParams,
    say: Callable[[str], None],
) -> dict[str, Path]:
    """Word and tag model folders for one corpus of the release: reused when they match, else trained."""
    fp = corpus.get("fingerprint", {})
    want = (fp.get("stats_corpus_fingerprint") or {}).get("sha256")  # the stats' stream fingerprint
    folder = models / f"{key}-{str(fp.get('sha256', 'unknown'))[:12]}-o{params.order}"  # the corpus files
    outs = {"word": folder / "word", "tag": folder / "tag"}
    if not params.retrain and all((p / "manifest.json").is_file() for p in outs.values()):
        ms = [model_manifest(p) for p in outs.values()]
        if all(
            m["order"] == params.order and (want is None or m["corpus"]["fingerprint"]["sha256"] == want)
            for m in ms
        ):
            say(f"reusing n-gram baselines in {folder}")
            return outs
    path = _corpus_path(corpus["path"], release, spec)
    stats = _corpus_path(corpus["stats"], release, spec) if corpus.get("stats") else None
    say(f"training {params.order}-gram word and tag baselines on {path}")
    report = train_ngrams(
        CorpusSpec(path=str(path), reader=corpus.get("reader", "auto")),
        outs,
        TrainParams(order=params.order, lang=corpus.get("language") or "en"),
        stats=stats,
    )
    if want and not stats:
        got = model_manifest(outs["word"])["corpus"]["fingerprint"]["sha256"]
        if got != want:
            raise InputError(f"{path}: corpus changed since the release was built (fingerprint mismatch)")
    say(f"trained on {report.tokens} tokens in {report.seconds_tagging + report.seconds_counting:.0f}s")
    return outs


def _acc(x: np.ndarray) -> float | None:
    return float(x.mean()) if len(x) else None


def _readings(raw: dict[str, np.ndarray], mask: np.ndarray | None = None) -> dict[str, Any]:
    """Per baseline: accuracy under its kind's tie convention, tie share, strict and tie-as-half accuracy,
    from per-pair scores 1 / 0 / 0.5 (0.5 = a tie)."""
    sub = {b: (v if mask is None else v[mask]) for b, v in raw.items()}
    strict = {b: np.where(v == 0.5, 0.0, v) for b, v in sub.items()}
    return {
        "accuracy": {b: _acc(strict[b] if tie_convention(b) == "model" else v) for b, v in sub.items()},
        "ties": {b: _acc((v == 0.5).astype(float)) for b, v in sub.items()},
        "accuracy_strict": {b: _acc(v) for b, v in strict.items()},
        "accuracy_ties_half": {b: _acc(v) for b, v in sub.items()},
    }


def _breakdown(raw: dict[str, np.ndarray], keys: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    arr = np.array([str(k) for k in keys], dtype=object)
    for k in sorted({str(k) for k in keys if k is not None}, key=lambda s: (len(s), s)):
        m = arr == k
        out[k] = {"n": int(m.sum()), **_readings(raw, m)}
    return out


def audit_config(
    cfg: dict[str, Any],
    df: Any,
    scorers: dict[str, NgramScorer],
    counts: dict[str, int],
    scoring: str = "auto",
) -> dict[str, Any]:
    """Per-pair scores of every baseline on one config -> accuracies (each kind's tie convention), tie
    shares, strict and tie-as-half accuracies overall, per group and per bin."""
    roles = cfg["roles"]
    group_col = roles.get("group")
    pairs = (
        table_pairs(df, cfg["name"], cfg["name"], None, cfg["roles"])
        if cfg.get("roles")
        else table_pairs(df, cfg["name"], cfg["name"], group_col if group_col in df.columns else None)
    )
    raw: dict[str, np.ndarray] = {}  # per pair: 1 right, 0 wrong, 0.5 tie
    for kind, scorer in scorers.items():
        delta = np.array([s.delta for s in score_pairs(scorer, pairs, scoring=scoring)])
        raw[f"ngram-{kind}"] = np.where(delta > 0, 1.0, np.where(delta < 0, 0.0, 0.5))
    word, tag = raw["ngram-word"], raw["ngram-tag"]
    # the oracle counts a pair when either model is right; it ties only when both models tie
    raw["oracle"] = np.where((word == 1) | (tag == 1), 1.0, np.where((word == 0.5) & (tag == 0.5), 0.5, 0.0))
    rules = {name: rule for name, (rule, _) in heuristics.RULES.items()}
    rules["frequency"] = heuristics.frequency_rule(counts)
    for name, rule in rules.items():
        raw[name] = np.array(
            [heuristics.pair_score(rule, p.good, p.bad, p.good_span, p.bad_span) for p in pairs]
        )
    out: dict[str, Any] = {"n": len(pairs), **_readings(raw)}
    groups = [p.group for p in pairs]
    if len({g for g in groups if g is not None}) > 1:
        out["groups"] = _breakdown(raw, groups)
    bin_col = roles.get("bin") or ("bin" if "bin" in df.columns else None)
    if bin_col and bin_col in df.columns:
        out["bin_column"] = bin_col
        out["bins"] = _breakdown(raw, [None if v is None or v != v else int(v) for v in df[bin_col]])
    return out


def run_audit(
    release: Path,
    params: AuditParams | None = None,
    *,
    spec: Path | None = None,
    models: Path | None = None,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Audit a built release in place: writes ``audit.json`` and re-renders ``README.md``."""
    params = params or AuditParams()
    if params.scoring not in ("auto", "full"):
        raise ConfigError(f"unknown scoring {params.scoring!r}: use auto or full")
    say = say or (lambda msg: log.info("%s", msg))
    release = Path(release)
    manifest = load_manifest(release)
    models = Path(models) if models else release.resolve().parent.parent / ".baselines"
    gen_corpus = {g["id"]: g.get("corpus") for g in manifest["generators"]}
    result_configs: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    provenance: dict[str, Any] = {}
    loaded: dict[str, tuple[dict[str, NgramScorer], dict[str, int]]] = {}
    for cfg in manifest["configs"]:
        name = cfg["name"]
        key = gen_corpus.get(cfg["generator"])
        if cfg["task"] not in PAIR_TASKS:
            skipped[name] = f"task {cfg['task']} is not minimal pairs"
            continue
        if not key or key not in manifest["corpora"]:
            skipped[name] = "no corpus recorded for its generator"
            continue
        if key not in loaded:
            outs = _models_for(key, manifest["corpora"][key], release, spec, models, params, say)
            scorers = {k: NgramScorer(p) for k, p in outs.items()}
            w = scorers["word"]
            counts = {t: int(c) for t, c in zip(w.ids, w.model.unigram_raw, strict=True) if c}
            loaded[key] = (scorers, counts)
            provenance[key] = {  # no machine paths in a published file: the model folder's name only
                k: {**s.provenance(), "model_id": f"{p.parent.name}/{p.name}"}
                for (k, s), p in zip(scorers.items(), outs.values(), strict=True)
            }
        scorers, counts = loaded[key]
        df = tables.read_parquet(release / cfg["files"][0]["path"]).to_pandas()
        say(f"auditing {name} ({len(df)} pairs)")
        result_configs[name] = audit_config(cfg, df, scorers, counts, params.scoring)
    baselines = [*NGRAM, *heuristics.RULES, "frequency"]
    for c in result_configs.values():  # the oracle is an upper bound, not a baseline: never flags
        c["solved_by"] = [
            b for b in baselines if b != "oracle" and (c["accuracy"][b] or 0) > params.threshold
        ]
    descriptions = {
        "ngram-word": f"{params.order}-gram interpolated Kneser-Ney model over the corpus's lowercased words",
        "ngram-tag": f"{params.order}-gram interpolated Kneser-Ney model over the corpus's POS tags",
        "oracle": "a pair counts when the word or the tag model gets it right (an upper bound, not a model)",
        **{k: d for k, (_, d) in heuristics.RULES.items()},
        "frequency": heuristics.FREQUENCY_DESCRIPTION,
    }
    result = {
        "kind": "corpusbench.audit",
        "format_version": 2,  # 2: per-kind tie conventions, ties beside every accuracy
        "release": {k: manifest["release"][k] for k in ("name", "tag", "repo_id")},
        "release_fingerprint": manifest["release_fingerprint"],
        "threshold": params.threshold,
        "order": params.order,
        "scoring": (
            "n-gram models: summed log-probability over the critical region where the data has spans "
            "(whole sentence with </s> otherwise)"
            if params.scoring == "auto"
            else "n-gram models: summed log-probability of whole sentences with </s>"
        )
        + "; rules look at the critical word (else the first changed word). Ties: n-gram models and the "
        + "oracle score a tie 0, as `corpusbench eval` does; a rule that cannot tell the sentences apart "
        + "scores 0.5 (it abstains); `ties` = share of tied pairs, beside `accuracy_strict` and "
        + "`accuracy_ties_half`.",
        "scoring_mode": params.scoring,
        "baselines": baselines,
        "tie_convention": {b: tie_convention(b) for b in baselines},
        "tie_conventions": TIE_CONVENTIONS,
        "unflagged": ["oracle"],
        "descriptions": descriptions,
        "configs": result_configs,
        "skipped": skipped,
        "models": provenance,
        "code": code_version(),
    }
    write_json(release / "audit.json", result)
    with atomic_write(release / "README.md") as fh:
        fh.write(render_card(manifest, result))
    return result


def read_audit(release: Path) -> dict[str, Any] | None:
    p = Path(release) / "audit.json"
    return read_json(p) if p.is_file() else None
