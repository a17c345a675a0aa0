"""``review report``: what the labels say. Valid share per subtask and per cell (Wilson 95% intervals),
the judge's agreement with people (precision, recall, Cohen's κ) per subtask, and κ between reviewers.

An item's verdict over its reviewers: *valid* only when every reviewer said valid, *invalid* when one
said invalid (or picked the benchmark's bad sentence as the correct one), else *marginal*; skips are
left out. For the judge, "kept" is its yes and a human *valid* the truth: precision = valid among kept,
recall = kept among valid. The sample holds far more rejected drafts per draft than the run had, so
recall is also given weighted to the run's counts of kept pairs and rejected drafts (``sample.json``).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError
from corpusbench.intervals import error_bars, wilson
from corpusbench.io import read_json
from corpusbench.provenance import file_sha256, fingerprint
from corpusbench.review.items import JUDGE_KEPT, JUDGE_REJECTED, title, titles
from corpusbench.review.labels import Label, current, label_files, read_labels, review_dir

VERDICTS = ("valid", "marginal", "invalid")
SAMPLE_FILE = "sample.json"


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's κ of two raters over the same items; NaN when chance agreement is 1 or no items."""
    n = len(a)
    if n == 0 or n != len(b):
        return float("nan")
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return float("nan") if pe == 1 else (po - pe) / (1 - pe)


def order_key(group: str) -> tuple[int, str, float]:
    """Subtasks in the order of the families' titles (``ReviewKind.titles``), then by name; within one,
    bins by their lower edge."""
    sub, _, rest = group.partition(" ")
    known = list(titles())
    rank = known.index(sub) if sub in known else len(known)
    num = re.search(r"\d+", rest)
    return rank, sub, float(num.group()) if num else -1.0


def _verdict(vs: Sequence[str]) -> str | None:
    """One item's verdict from its labels (skips left out): invalid if any, valid if all, else marginal."""
    if not vs:
        return None
    if "invalid" in vs:
        return "invalid"
    return "valid" if all(v == "valid" for v in vs) else "marginal"


def _share(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "share": k / n if n else float("nan"), "low": lo, "high": hi}


def build_report(folder: Path, current_items: set[str] | None = None) -> dict[str, Any]:
    """Every labels file under ``folder/review``; no labels is an ``InputError``. With
    ``current_items`` (the folder's pair fingerprints), labels of benchmark items no longer there are
    left out and counted as ``stale``."""
    files = label_files(folder)
    by_reviewer: dict[str, dict[str, Label]] = {}
    sources = set()
    for f in files:
        rows = read_labels(f)
        sources |= {r.get("source") for r in rows}
        labs = current(rows)
        if labs:
            by_reviewer[f.stem.removeprefix("labels-")] = labs
    if not by_reviewer:
        raise InputError(f"{folder}: no labels yet (run `corpusbench review {folder}` first)")
    if len(sources) > 1:
        raise InputError(
            f"{review_dir(folder)}: labels of several sources ({', '.join(sorted(map(str, sources)))})"
        )
    per_item: dict[str, list[Label]] = defaultdict(list)
    for labs in by_reviewer.values():
        for fp, lab in labs.items():
            per_item[fp].append(lab)
    items = []
    stale = 0
    for fp, labs in per_item.items():
        verdicts = [lab.verdict for lab in labs if lab.verdict != "skip"]
        v = _verdict(verdicts)
        row = labs[0].row
        if current_items is not None and row.get("judge") != JUDGE_REJECTED and fp not in current_items:
            stale += 1
            continue
        if v is not None:
            items.append(
                {
                    "fingerprint": fp,
                    "verdict": v,
                    "subtask": row.get("subtask", "?"),
                    "bin": row.get("bin", ""),
                    "judge": row.get("judge", "none"),
                    "verdicts": verdicts,
                }
            )
    sample = (
        read_json(review_dir(folder) / SAMPLE_FILE) if (review_dir(folder) / SAMPLE_FILE).is_file() else {}
    )
    pops = sample.get("populations", {})
    times = sorted(lab.time for labs in by_reviewer.values() for lab in labs.values() if lab.time)
    return {
        "source": next(iter(sources)),
        "reviewers": {r: len(labs) for r, labs in sorted(by_reviewer.items())},
        "first": times[0] if times else "",
        "last": times[-1] if times else "",
        "labels_fingerprint": fingerprint({f.name: file_sha256(f) for f in files}),
        "items": len(items),
        "stale": stale,
        "subtasks": _validity(items, lambda it: it["subtask"]),
        "cells": _validity(items, lambda it: f"{it['subtask']} {it['bin']}"),
        "judge": _judge(items, pops),
        "reviewer_kappa": _reviewer_kappa(by_reviewer),
        "agreement": _agreement(items),
    }


def _validity(items: list[dict[str, Any]], key: Any) -> dict[str, dict[str, Any]]:
    """Valid share of the benchmark's own items (not the rejected drafts) per group."""
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    for it in items:
        if it["judge"] != JUDGE_REJECTED:
            groups[key(it)][it["verdict"]] += 1
    out = {}
    for g, c in sorted(groups.items(), key=lambda kv: order_key(kv[0])):
        n = sum(c.values())
        out[g] = {**_share(c["valid"], n), "marginal": c["marginal"], "invalid": c["invalid"]}
    return out


def _judge(items: list[dict[str, Any]], pops: dict[str, dict[str, int]]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for it in items:
        if it["judge"] in (JUDGE_KEPT, JUDGE_REJECTED):
            groups[it["subtask"]].append(it)
            groups["all"].append(it)
    out = {}
    for sub, its in groups.items():
        kept = [it for it in its if it["judge"] == JUDGE_KEPT]
        rej = [it for it in its if it["judge"] == JUDGE_REJECTED]
        tp = sum(it["verdict"] == "valid" for it in kept)
        fn = sum(it["verdict"] == "valid" for it in rej)
        res = {
            "kept": len(kept),
            "rejected": len(rej),
            "precision": _share(tp, len(kept)),
            # without a rejected draft in the sample, recall (and κ) would say nothing: left unmeasured
            "recall": _share(tp, tp + fn) if rej else _share(0, 0),
            "kappa": cohen_kappa(
                [it["judge"] == JUDGE_KEPT for it in its], [it["verdict"] == "valid" for it in its]
            )
            if rej
            else float("nan"),
        }
        subs = [sub] if sub != "all" else list(pops)
        n_kept = sum(pops.get(s, {}).get(JUDGE_KEPT, 0) for s in subs)
        n_rej = sum(pops.get(s, {}).get(JUDGE_REJECTED, 0) for s in subs)
        if kept and rej and n_kept and n_rej:
            est_tp, est_fn = tp / len(kept) * n_kept, fn / len(rej) * n_rej
            res["recall_weighted"] = est_tp / (est_tp + est_fn) if est_tp + est_fn else float("nan")
            res["population"] = {"kept": n_kept, "rejected": n_rej}
        out[sub] = res
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "all", order_key(kv[0]))))


def fleiss_kappa(ratings: Sequence[Sequence[str]]) -> float:
    """Fleiss' κ of items rated by two or more interchangeable raters (any number per item); NaN when
    chance agreement is 1 or no item has two ratings."""
    rated = [r for r in ratings if len(r) >= 2]
    if not rated:
        return float("nan")
    p_bar = sum(
        (sum(c * c for c in Counter(r).values()) - len(r)) / (len(r) * (len(r) - 1)) for r in rated
    ) / len(rated)
    totals = Counter(v for r in rated for v in r)
    n = sum(totals.values())
    p_e = sum((c / n) ** 2 for c in totals.values())
    return float("nan") if p_e == 1 else (p_bar - p_e) / (1 - p_e)


def _agreement(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per subtask, over the benchmark's items labelled two or more times (by any label sets): how many,
    how many got the same label from all, and Fleiss' κ."""
    groups: dict[str, list[list[str]]] = defaultdict(list)
    for it in items:
        if it["judge"] != JUDGE_REJECTED and len(it["verdicts"]) >= 2:
            groups[it["subtask"]].append(it["verdicts"])
    return {
        s: {"n": len(rs), "same": sum(len(set(r)) == 1 for r in rs), "kappa": fleiss_kappa(rs)}
        for s, rs in sorted(groups.items(), key=lambda kv: order_key(kv[0]))
    }


def _reviewer_kappa(by_reviewer: dict[str, dict[str, Label]]) -> list[dict[str, Any]]:
    names = sorted(by_reviewer)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            common = [
                fp
                for fp in by_reviewer[a]
                if fp in by_reviewer[b]
                and "skip" not in (by_reviewer[a][fp].verdict, by_reviewer[b][fp].verdict)
            ]
            va = [by_reviewer[a][fp].verdict for fp in common]
            vb = [by_reviewer[b][fp].verdict for fp in common]
            out.append(
                {
                    "a": a,
                    "b": b,
                    "n": len(common),
                    "kappa": cohen_kappa(va, vb),
                    "agreement": sum(x == y for x, y in zip(va, vb, strict=True)) / len(common)
                    if common
                    else float("nan"),
                    # valid by a, by b, by both, on the pairs both labelled
                    "valid": [
                        va.count("valid"),
                        vb.count("valid"),
                        sum(x == y == "valid" for x, y in zip(va, vb, strict=True)),
                    ],
                }
            )
    return out


def _pct(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def _ci(s: dict[str, Any]) -> str:
    return "–" if not s["n"] else f"{s['share']:.2f} [{s['low']:.2f}, {s['high']:.2f}] ({s['k']}/{s['n']})"


def markdown(rep: dict[str, Any]) -> str:
    """The report as Markdown tables (what the CLI prints and ``report.md`` holds)."""
    who = ", ".join(f"{r} ({n})" for r, n in rep["reviewers"].items())
    when = f", {rep['first'][:10]} to {rep['last'][:10]}" if rep["first"] else ""  # imported labels: no time
    lines = [
        f"Human review of {rep['source']}: {rep['items']} items labelled by {who}{when}. Valid share with "
        "95% Wilson intervals; marginal counts as not valid.",
        "",
        "| subtask | valid share [95% CI] (valid/n) | marginal | invalid |",
        "|---|---|---:|---:|",
    ]
    lines += [
        f"| {title(s)} | {_ci(v)} | {v['marginal']} | {v['invalid']} |" for s, v in rep["subtasks"].items()
    ]
    lines += ["", "| cell | valid share [95% CI] (valid/n) | marginal | invalid |", "|---|---|---:|---:|"]
    lines += [f"| {c} | {_ci(v)} | {v['marginal']} | {v['invalid']} |" for c, v in rep["cells"].items()]
    if rep["judge"]:
        lines += [
            "",
            "Judge vs people (kept = the judge's yes, a human *valid* the truth; "
            "rejected drafts sampled from the run):",
            "",
            "| subtask | kept | rejected | precision [95% CI] | recall (sample) [95% CI] "
            "| recall (weighted to the run) | Cohen's κ |",
            "|---|---:|---:|---|---|---:|---:|",
        ]
        for s, j in rep["judge"].items():
            lines.append(
                f"| {title(s)} | {j['kept']} | {j['rejected']} | {_ci(j['precision'])} | "
                f"{_ci(j['recall'])} | {_pct(j.get('recall_weighted'))} | {_pct(j['kappa'])} |"
            )
    for s, a in rep.get("agreement", {}).items():
        lines += [
            "",
            f"{title(s)}: {a['n']} benchmark items labelled more than once, {a['same']} with one label from "
            f"all, Fleiss' κ {_pct(a['kappa'])}.",
        ]
    for k in rep["reviewer_kappa"]:
        lines += [
            "",
            f"Reviewers {k['a']} and {k['b']}: {k['n']} items both labelled, agreement "
            f"{_pct(k['agreement'])}, Cohen's κ {_pct(k['kappa'])} (valid / marginal / invalid).",
        ]
    if rep.get("stale"):
        lines += ["", f"Left out: {rep['stale']} labelled item(s) that this folder no longer has."]
    lines += ["", f"Labels fingerprint: `{rep['labels_fingerprint'][:16]}`."]
    return "\n".join(lines) + "\n"


def figure(rep: dict[str, Any], path: Path) -> Path:
    """Valid share per subtask with its interval, kept items against rejected drafts (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    subs = list(rep["subtasks"])
    fig, ax = plt.subplots(figsize=(4.6, 2.8), dpi=200)
    ax.set_xlim(-0.5, len(subs) - 0.5)
    xs = range(len(subs))
    shares = [rep["subtasks"][s]["share"] for s in subs]
    err = error_bars(
        shares, [rep["subtasks"][s]["low"] for s in subs], [rep["subtasks"][s]["high"] for s in subs]
    )
    ax.errorbar(
        [x - 0.1 for x in xs], shares, yerr=err, fmt="o", color="#2f5fb3", capsize=3, label="kept items"
    )
    rej = [(i, rep["judge"].get(s)) for i, s in enumerate(subs)]
    pts = [(i, j) for i, j in rej if j and j["rejected"]]
    if pts:
        vals = []
        for i, j in pts:
            fn = j["recall"]["n"] - j["recall"]["k"]
            lo, hi = wilson(fn, j["rejected"])
            vals.append((i + 0.1, fn / j["rejected"], lo, hi))
        ax.errorbar(
            [v[0] for v in vals],
            [v[1] for v in vals],
            yerr=error_bars([v[1] for v in vals], [v[2] for v in vals], [v[3] for v in vals]),
            fmt="s",
            color="#b3261e",
            capsize=3,
            label="rejected drafts",
        )
    ticks = []
    for s in subs:
        j = rep["judge"].get(s)
        ticks.append(
            f"{title(s)}\nn = {rep['subtasks'][s]['n']}"
            + (f" + {j['rejected']}" if j and j["rejected"] else "")
        )
    ax.set_xticks(list(xs), ticks, fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("valid share (95% CI)", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=7, frameon=False, loc="lower right", bbox_to_anchor=(1, 1), ncol=2)
    ax.set_title("Human validation", fontsize=9, loc="left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    from corpusbench.io import atomic_path

    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)
    return path
