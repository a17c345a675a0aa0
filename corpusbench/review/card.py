"""The dataset card's "Human validation" section, and its summary in ``provenance.json``.

``attach(folder, manifest)`` is called by ``publish.render.write_release_files``: with labels under
``folder/review`` (or, for a build being written in a temporary sibling, under the previous build of
the same version, whose ``review/`` it copies over), it puts a summary under
``manifest["human_validation"]``; without, it keeps a summary already there. ``section(manifest)``
renders it, or says plainly that no human check was made.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

from corpusbench.errors import CorpusbenchError
from corpusbench.review.items import TITLES
from corpusbench.review.labels import label_files, review_dir

KEY = "human_validation"


def _previous_build(folder: Path, manifest: dict[str, Any]) -> Path | None:
    """The finished build this temporary one replaces (``io.atomic_dir``: ``.<version>.*.tmp``)."""
    version = str(manifest.get("release", {}).get("version", ""))
    if version and folder.name.startswith(f".{version}.") and folder.name.endswith(".tmp"):
        old = folder.parent / version
        return old if old.is_dir() else None
    return None


def attach(folder: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with the summary of the labels found for this release (see the module doc)."""
    from corpusbench.review.items import release_fingerprints
    from corpusbench.review.report import build_report

    folder = Path(folder)
    old = _previous_build(folder, manifest)
    if not label_files(folder) and old is not None and label_files(old):
        shutil.copytree(review_dir(old), review_dir(folder), dirs_exist_ok=True)
    if not label_files(folder):
        return manifest
    try:
        rep = build_report(folder, release_fingerprints(folder, manifest))
    except CorpusbenchError:
        return manifest
    name = f"{manifest['release']['name']}@{manifest['release']['version']}"
    if rep["source"] != name:
        return manifest
    return {**manifest, KEY: summary(rep)}


def summary(rep: dict[str, Any]) -> dict[str, Any]:
    """What the card and provenance keep of a report."""
    subs = rep["subtasks"]
    k, n = sum(v["k"] for v in subs.values()), sum(v["n"] for v in subs.values())
    from corpusbench.intervals import wilson

    lo, hi = wilson(k, n)
    return {
        "labelled": rep["items"],
        "stale": rep["stale"],
        "valid": {"k": k, "n": n, "low": lo, "high": hi},
        "subtasks": {s: {x: v[x] for x in ("k", "n", "low", "high")} for s, v in subs.items()},
        "judge": {
            s: {
                "precision": [j["precision"]["k"], j["precision"]["n"]],
                "recall": [j["recall"]["k"], j["recall"]["n"]],
                "kappa": None if math.isnan(j["kappa"]) else round(j["kappa"], 3),
            }
            for s, j in rep["judge"].items()
        },
        "reviewers": rep["reviewers"],
        "reviewer_kappa": [
            {**r, "kappa": None if math.isnan(r["kappa"]) else round(r["kappa"], 3)}
            for r in rep["reviewer_kappa"]
        ],
        "from": rep["first"],
        "to": rep["last"],
        "labels_fingerprint": rep["labels_fingerprint"],
    }


def _frac(kn: list[int]) -> str:
    k, n = kn
    return f"{k / n:.2f} ({k}/{n})" if n else "–"


def section(manifest: dict[str, Any]) -> str:
    """The card's section (Markdown, with its heading)."""
    h = manifest.get(KEY)
    head = "## Human validation\n\n"
    if not h:
        return head + (
            "No human check was made: nobody has labelled a sample of these items. "
            "`corpusbench review RELEASE_FOLDER --reviewer NAME` serves a page to label one, and a rebuilt "
            "release reports it here.\n"
        )
    v = h["valid"]
    who = ", ".join(f"{r} ({n} labels)" for r, n in h["reviewers"].items())
    lines = [
        f"{h['labelled']} items labelled by {who}, {h['from'][:10]} to {h['to'][:10]}, blind to the judge "
        "and to which sentence is the intended one (`corpusbench review`). Valid: one sentence right and the "
        "other wrong because of the swap; marginal counts as not valid.",
        "",
        f"Valid share of the benchmark's items: **{v['k'] / v['n']:.2f}** [{v['low']:.2f}, {v['high']:.2f}] "
        f"({v['k']} of {v['n']}; 95% Wilson interval)."
        if v["n"]
        else "No benchmark item was labelled (only rejected drafts).",
        "",
        "| subtask | valid share [95% CI] | judge precision | judge recall | judge–human κ |",
        "|---|---|---|---|---:|",
    ]
    rows = dict(h["subtasks"])
    if len(rows) > 1:
        rows["all"] = {"k": v["k"], "n": v["n"], "low": v["low"], "high": v["high"]}
    for s, x in rows.items():
        j = h["judge"].get(s, {})
        share = "–"
        if x["n"]:
            share = f"{x['k'] / x['n']:.2f} [{x['low']:.2f}, {x['high']:.2f}] ({x['k']}/{x['n']})"
        kappa = "–" if j.get("kappa") is None else f"{j['kappa']:.2f}"
        lines.append(
            f"| {TITLES.get(s, s)} | {share} | {_frac(j['precision']) if j else '–'} | "
            f"{_frac(j['recall']) if j else '–'} | {kappa} |"
        )
    lines += [
        "",
        "Judge precision: valid among the judge's kept items; recall: kept among the items people found "
        "valid, with a sample of the judge's rejected drafts mixed in (on the sample, not weighted to "
        "the run).",
        "",
    ]
    for r in h["reviewer_kappa"]:
        kap = "–" if r["kappa"] is None else f"{r['kappa']:.2f}"
        lines += [f"Reviewers {r['a']} and {r['b']}: {r['n']} items both labelled, Cohen's κ {kap}.", ""]
    if h.get("stale"):
        lines += [f"Left out: {h['stale']} labelled item(s) this build no longer has.", ""]
    fp = h["labels_fingerprint"][:16]
    lines.append(f"Labels fingerprint (provenance `{KEY}.labels_fingerprint`): `{fp}`.")
    return head + "\n".join(lines) + "\n"
