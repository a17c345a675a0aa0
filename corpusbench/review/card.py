"""The dataset card's "Human validation" section, and its summary in ``provenance.json``.

``attach(folder, manifest)`` is called by ``publish.render.write_release_files``: with labels under
``folder/review`` (or, for a build being written in a temporary sibling, under the previous build of
the same version, whose ``review/`` it copies over), it puts a summary under
``manifest["human_validation"]``; without, it keeps a summary already there. ``section(manifest)``
renders it, or says plainly that no human check was made.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from corpusbench.errors import CorpusbenchError
from corpusbench.review.items import judged_families, title
from corpusbench.review.labels import carry_over, label_files

KEY = "human_validation"


def attach(folder: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with the summary of the labels found for this release (see the module doc)."""
    from corpusbench.review.imported import imported_sets
    from corpusbench.review.items import release_items
    from corpusbench.review.report import build_report

    folder = Path(folder)
    carry_over(folder, manifest)
    imported = imported_sets(folder)
    if not label_files(folder):
        return {**manifest, KEY: _unmatched_only(imported)} if imported else manifest
    items = release_items(folder, manifest)
    try:
        rep = build_report(folder, {i.fingerprint for i in items})
    except CorpusbenchError:
        return manifest
    name = f"{manifest['release']['name']}@{manifest['release']['version']}"
    if rep["source"] != name:
        return manifest
    configs: dict[str, list[str]] = {}
    for it in items:
        if it.config not in configs.setdefault(it.subtask, []):
            configs[it.subtask].append(it.config)
    return {**manifest, KEY: summary(rep, imported, configs)}


def _unmatched_only(imported: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary when label files were named but none of their pairs is an item of this release."""
    return {
        "labelled": 0,
        "stale": 0,
        "valid": {"k": 0, "n": 0, "low": 0.0, "high": 1.0},
        "subtasks": {},
        "judge": {},
        "reviewers": {},
        "reviewer_kappa": [],
        "agreement": {},
        "from": "",
        "to": "",
        "labels_fingerprint": "",
        "imported": imported,
    }


def summary(
    rep: dict[str, Any],
    imported: list[dict[str, Any]] | None = None,
    configs: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """What the card and provenance keep of a report (with the label files ``release build`` brought
    in, and the release config(s) of each subtask)."""
    subs = rep["subtasks"]
    k, n = sum(v["k"] for v in subs.values()), sum(v["n"] for v in subs.values())
    from corpusbench.intervals import wilson

    lo, hi = wilson(k, n)
    return {
        "labelled": rep["items"],
        "stale": rep["stale"],
        "valid": {"k": k, "n": n, "low": lo, "high": hi},
        "subtasks": {
            s: {
                **{x: v[x] for x in ("k", "n", "low", "high", "marginal", "invalid")},
                "configs": (configs or {}).get(s, []),
            }
            for s, v in subs.items()
        },
        "judge": {
            s: {
                "kept": j["kept"],
                "rejected": j["rejected"],
                "precision": [j["precision"]["k"], j["precision"]["n"]],
                "recall": [j["recall"]["k"], j["recall"]["n"]],
                "kappa": None if math.isnan(j["kappa"]) else round(j["kappa"], 3),
            }
            for s, j in rep["judge"].items()
        },
        "reviewers": rep["reviewers"],
        "agreement": {
            s: {**a, "kappa": None if math.isnan(a["kappa"]) else round(a["kappa"], 3)}
            for s, a in rep.get("agreement", {}).items()
        },
        "reviewer_kappa": [  # only label sets that share items: the others say nothing about agreement
            {
                **r,
                "kappa": None if math.isnan(r["kappa"]) else round(r["kappa"], 3),
                "agreement": round(r["agreement"], 3),
            }
            for r in rep["reviewer_kappa"]
            if r["n"]
        ],
        "from": rep["first"],
        "to": rep["last"],
        "labels_fingerprint": rep["labels_fingerprint"],
        "imported": imported or [],
        "configs": list(dict.fromkeys(c for s in subs for c in (configs or {}).get(s, []))),
    }


def _agreement_lines(subtasks: dict[str, dict[str, Any]], pairs: list[dict[str, Any]]) -> list[str]:
    """How often labellers agree: per subtask over the pairs labelled twice or more (Fleiss' κ), then per
    two label sets that share pairs (Cohen's κ); or one line saying it is not measured."""
    if not pairs:
        none = "No item carries labels from two label sets: agreement between labellers is not measured."
        return [none, ""]
    lines = []
    if subtasks:
        lines += [
            "Agreement of the labellers (valid / marginal / invalid) on the pairs labelled more than once:",
            "",
            "| subtask | pairs labelled twice or more | same label from all | Fleiss' κ |",
            "|---|---:|---:|---:|",
        ]
        for s, a in subtasks.items():
            kap = "– (every label the same)" if a["kappa"] is None else f"{a['kappa']:.2f}"
            lines.append(
                f"| {title(s)} | {a['n']} | {a['same'] / a['n']:.2f} ({a['same']}/{a['n']}) | {kap} |"
            )
        lines += ["", "By the two label sets that share pairs:", ""]
    lines += [
        "| label sets (a / b) | pairs both labelled | valid by a / by b / by both | same label | Cohen's κ |",
        "|---|---:|---|---:|---:|",
    ]
    for r in pairs:
        agree, n = r.get("agreement"), r["n"]
        same = "–" if agree is None else f"{agree:.2f} ({round(agree * n)}/{n})"
        kap = "– (every label the same)" if r["kappa"] is None else f"{r['kappa']:.2f}"
        valid = " / ".join(map(str, r["valid"])) if "valid" in r else "–"
        lines.append(f"| {r['a']} / {r['b']} | {n} | {valid} | {same} | {kap} |")
    return [*lines, ""]


def _frac(kn: list[int]) -> str:
    k, n = kn
    return f"{k / n:.2f} ({k}/{n})" if n else "–"


def _imported_line(x: dict[str, Any]) -> str:
    line = (
        f"- **{x['reviewer']}**: {x['matched']} labelled minimal pair(s) from `{x['file']}` (sha256 "
        f"`{x['sha256'][:12]}`), matched to this release's items by their two sentences"
    )
    if x["unmatched"]:
        first = ", ".join(x["unmatched_first"][:3])
        line += (
            f"; {x['unmatched']} of the file's {x['pairs']} labelled pairs are not items of this release and "
            f"are left out (unmatched: {first}{', ...' if x['unmatched'] > 3 else ''})"
        )
    else:
        line += f" (all {x['pairs']} of the file's pairs)"
    line += "."
    if x.get("by"):
        line += f" Labelled by {x['by'].rstrip('.')}."
    if x.get("criteria"):
        line += f" Criteria: {x['criteria'].rstrip('.')}."
    return line


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
    imported = h.get("imported", [])
    if not h["labelled"] and imported:
        lines = [
            "No labelled item of this release: the label files the release spec names hold no pair of it "
            "(matched by the pairs' two sentences).",
            "",
            *map(_imported_line, imported),
        ]
        return head + "\n".join(lines) + "\n"
    v = h["valid"]
    names = {x["reviewer"]: x["file"].rsplit("/", 1)[-1] for x in imported}
    who = ", ".join(
        f"{r} ({n} labels" + (f", from `{names[r]}`)" if r in names else ")")
        for r, n in h["reviewers"].items()
    )
    when = f", {h['from'][:10]} to {h['to'][:10]}" if h.get("from") else ""
    twice = (
        " A pair labelled more than once is valid only when every label says so."
        if h.get("agreement")
        else ""
    )
    lines = [
        f"{h['labelled']} items labelled by {who}{when}. Each minimal pair is labelled valid (one sentence "
        "right and the other wrong because of the swap), marginal or invalid; marginal counts as not valid."
        + twice,
        "",
    ]
    page = [r for r in h["reviewers"] if r not in names]
    if page:
        lines += [
            f"Labels of {', '.join(page)}: made on the `corpusbench review` page, blind to the judge and to "
            "which sentence is the intended one.",
            "",
        ]
    if imported:
        lines += ["Labels brought in by the release spec (`review.labels`):", ""]
        lines += [*map(_imported_line, imported), ""]
    lines += [
        f"Valid share of the labelled benchmark items: **{v['k'] / v['n']:.2f}** "
        f"[{v['low']:.2f}, {v['high']:.2f}] ({v['k']} of {v['n']}; 95% Wilson interval)."
        if v["n"]
        else "No benchmark item was labelled (only rejected drafts).",
        "",
    ]
    judge = h["judge"]
    with_judge = any(j.get("rejected", 1) for j in judge.values())
    cols = "| subtask (config) | labelled | valid share [95% CI] (valid/n) | marginal | invalid |"
    rule = "|---|---:|---|---:|---:|"
    if with_judge:
        cols += " judge precision | judge recall | judge–human κ |"
        rule += "---|---|---:|"
    lines += [cols, rule]
    rows = dict(h["subtasks"])
    if len(rows) > 1:
        rows["all"] = {
            **{x: v[x] for x in ("k", "n", "low", "high")},
            **{x: sum(r.get(x, 0) for r in h["subtasks"].values()) for x in ("marginal", "invalid")},
        }
    for s, x in rows.items():
        share = "–"
        if x["n"]:
            share = f"{x['k'] / x['n']:.2f} [{x['low']:.2f}, {x['high']:.2f}] ({x['k']}/{x['n']})"
        name = title(s)
        if x.get("configs") and x["configs"] != [s]:
            name += " (" + ", ".join(f"`{c}`" for c in x["configs"]) + ")"
        row = f"| {name} | {x['n']} | {share} | {x.get('marginal', '–')} | {x.get('invalid', '–')} |"
        if with_judge:
            j = judge.get(s, {})
            kappa = "–" if j.get("kappa") is None else f"{j['kappa']:.2f}"
            row += f" {_frac(j['precision']) if j else '–'} | {_frac(j['recall']) if j else '–'} | {kappa} |"
        lines.append(row)
    lines.append("")
    if with_judge:
        lines += [
            "Judge precision: valid among the judge's kept items; recall: kept among the items people found "
            "valid, with a sample of the judge's rejected drafts mixed in (on the sample, not weighted to "
            "the run).",
            "",
        ]
    elif judge:
        judged = " or ".join(f.title for f in judged_families()) or "judged"
        lines += [
            f"Every labelled {judged} item is one the LLM judge kept, so the judge's precision is the valid "
            "share above; its recall is not measured (no rejected draft was labelled).",
            "",
        ]
    lines += _agreement_lines(h.get("agreement", {}), [r for r in h["reviewer_kappa"] if r["n"]])
    if h.get("stale"):
        lines += [f"Left out: {h['stale']} labelled item(s) this build no longer has.", ""]
    fp = h["labels_fingerprint"][:16]
    lines.append(f"Labels fingerprint (provenance `{KEY}.labels_fingerprint`): `{fp}`.")
    return head + "\n".join(lines) + "\n"
