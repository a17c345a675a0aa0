"""CAC context window for quick runs: choices and time at several token caps vs the model's whole window.

``python -m benchmarks.bench_cac_context --release R --model M [--runs 512/0,1024/512]`` scores every
child/caretaker site of the release's CAC config once per run (``CAP/STEP``: contexts cut to CAP tokens,
STEP tokens deeper when a cut is needed, so that the KV cache carries over), then with the model's
whole window (the paper's setting, cut ``--reference-step`` tokens deeper for KV reuse), in one process
with one model load, and compares each run's per-site choice with the whole-window run. Writes
``benchmarks/results/bench_cac_context.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from corpusbench.eval.release import find_release
from corpusbench.eval.runner import EvalSpec, open_scorer
from corpusbench.families.cac.lm import choose_determiners
from corpusbench.families.cac.score import (
    determiner_sites_from_lines,
    label_probs,
    release_config_table,
    select_sites,
)
from corpusbench.families.cac.table import table_sites


def _p_the(sites, dets, alternation) -> dict[str, float]:
    return {s.id: label_probs(d.logprobs, alternation)["the"] for s, d in zip(sites, dets, strict=True)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--config", default="cac-the-a")
    ap.add_argument("--runs", default="512/240,1024/500,2048/1000", help="CAP/STEP,...")
    ap.add_argument("--reference-step", type=int, default=1024, help="context step of the whole-window run")
    ap.add_argument("--out", default="benchmarks/results/bench_cac_context.json")
    args = ap.parse_args()

    from corpusbench.families.cac.score import alternation_of

    release = find_release(args.release)
    table = release_config_table(release, args.config)
    alternation = alternation_of(
        {"parameters": {"alternation": {"alternatives": str(table["alternation"].iloc[0])}}}
    )
    all_sites, lines = table_sites(table)
    sites = select_sites(all_sites, None)
    dsites = determiner_sites_from_lines(sites, lines, alternation, None)
    spec = EvalSpec(dataset=args.release, model=args.model, out=Path("unused"))
    scorer, prov = open_scorer(spec)
    model_window = int(prov.get("max_positions") or 512)
    human = {s.id: s.choice for s in sites}
    runs = {}
    for label, window, step in [
        *((f"cap {c} step {st}", int(c), int(st)) for c, st in (r.split("/") for r in args.runs.split(","))),
        (f"whole window ({model_window}), step {args.reference_step}", model_window, args.reference_step),
    ]:
        t0 = time.perf_counter()
        dets = choose_determiners(scorer, dsites, window=min(window, model_window), context_step=step)
        secs = time.perf_counter() - t0
        p = _p_the(sites, dets, alternation)
        acc = sum((p[i] > 0.5) == (human[i] == "the") for i in p) / len(p)
        runs[label] = {
            "seconds": secs,
            "p_the": p,
            "accuracy": acc,
            "tokens": sum(d.n_context_tokens for d in dets),
        }
        print(
            f"{label}: {secs:.1f} s, accuracy {acc:.4f}, context tokens {runs[label]['tokens']}", flush=True
        )
    ref_label = list(runs)[-1]
    ref = runs[ref_label]["p_the"]
    table_rows = []
    for label, r in runs.items():
        agree = sum((r["p_the"][i] > 0.5) == (ref[i] > 0.5) for i in ref) / len(ref)
        mad = sum(abs(r["p_the"][i] - ref[i]) for i in ref) / len(ref)
        row = {
            "run": label,
            "seconds": round(r["seconds"], 1),
            "speedup_vs_whole": round(runs[ref_label]["seconds"] / r["seconds"], 2),
            "accuracy": round(r["accuracy"], 4),
            "argmax_agreement_with_whole": round(agree, 4),
            "mean_abs_dp_the": round(mad, 4),
        }
        table_rows.append(row)
        print(json.dumps(row), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {"model": args.model, "release": args.release, "n_sites": len(sites), "rows": table_rows},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
