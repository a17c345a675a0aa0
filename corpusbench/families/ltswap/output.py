"""Writing a run: one parquet per subtask, candidates, funnel, rejects, the judge's rejected drafts and
the manifest (provenance)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from corpusbench.corpus.store import CorpusStats
from corpusbench.families.ltswap import prompting
from corpusbench.families.ltswap.candidates import CandidateReport
from corpusbench.families.ltswap.funnel import Funnel
from corpusbench.families.ltswap.records import Candidate, Quadruplet
from corpusbench.io import atomic_path, write_json, write_jsonl
from corpusbench.provenance import code_version

COLUMNS = [f.name for f in Quadruplet.__dataclass_fields__.values()]


def manifest(
    *,
    stats: CorpusStats,
    llm: Any,
    params: dict[str, Any],
    nonce: str,
    judge: dict[str, Any] | None,
    lexicon: dict[str, str],
    cand_report: CandidateReport,
    funnel: Funnel,
    quads: dict[str, list[Quadruplet]],
    seconds: float,
) -> dict[str, Any]:
    """Provenance of a run: corpus fingerprint, code version, model, prompt hashes, parameters, funnel."""
    report = getattr(llm, "report", None)
    return {
        "kind": "corpusbench.ltswap",
        "format_version": 1,
        "corpus": {
            "fingerprint": stats.fingerprint,
            "stats": str(stats.path),
            "language": stats.language,
            "tokens": stats.n_tokens,
            "tagger": stats.manifest.get("tagger"),
        },
        "parameters": params,
        "nonce": nonce,
        "judge": judge,
        "lexicon": lexicon,
        "llm": llm.describe(),
        "llm_report": report.as_dict() if report is not None else None,
        "prompts": prompting.prompt_hashes(),
        "code": code_version(),
        "counts": {s: len(q) for s, q in quads.items()},
        "candidates": cand_report.as_dict(),
        "funnel": funnel.rows(),
        "drop_reasons": funnel.reasons(),
        **({"rewrites": funnel.rewrite_rows()} if funnel.rewrites else {}),
        "sentences": funnel.sentence_rows(),
        "seconds": round(seconds, 1),
    }


def write_run(
    out: Path,
    quads: dict[str, list[Quadruplet]],
    cands: list[Candidate],
    funnel: Funnel,
    rejects: list[dict[str, Any]],
    meta: dict[str, Any],
    rejected: list[dict[str, Any]] | None = None,
) -> None:
    """Each file atomically. The old manifest goes first and the new one comes last, so a manifest
    always describes complete files of one run. ``rejected``: the drafts the judge judged and dropped
    (``rejected_drafts.jsonl``; written empty without, so no earlier run's file is left)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").unlink(missing_ok=True)
    for sub, qs in quads.items():
        df = pd.DataFrame([q.as_dict() for q in qs], columns=COLUMNS)
        with atomic_path(out / f"{sub}.parquet") as tmp:
            df.to_parquet(tmp, index=False)
    rows = [
        {
            "form": c.form,
            "tag": c.tag,
            "pos": c.pos,
            "lemma": c.lemma,
            "freq": c.freq,
            "bin": c.bin,
            "cluster_freq": c.cluster_freq,
            "n_contexts": len(c.contexts),
            "inflections": " ".join(f"{i.tag}:{i.form}:{i.freq}" for i in c.inflections),
        }
        for c in cands
    ]
    with atomic_path(out / "candidates.parquet") as tmp:
        pd.DataFrame(
            rows,
            columns=[
                "form",
                "tag",
                "pos",
                "lemma",
                "freq",
                "bin",
                "cluster_freq",
                "n_contexts",
                "inflections",
            ],
        ).to_parquet(tmp, index=False)
    rewrites = {"rewrites": funnel.rewrite_rows()} if funnel.rewrites else {}
    write_json(out / "funnel.json", {"stages": funnel.rows(), "drop_reasons": funnel.reasons(), **rewrites})
    write_jsonl(out / "rejects.jsonl", rejects)
    write_jsonl(out / "rejected_drafts.jsonl", rejected or [])
    write_json(out / "manifest.json", meta)
