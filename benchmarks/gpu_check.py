"""The report of ``benchmarks/gpu_check.sh``: the GPU judge's decisions against the CPU reference
(``benchmarks/data/judge_decisions_cpu.json``) and the GPU's requests/s for the judge and the writer.

    python -m benchmarks.gpu_check OUT_DIR JUDGE_WALL_S
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.measure import ROOT

CPU_REFERENCE = ROOT / "benchmarks" / "data" / "judge_decisions_cpu.json"


def compare(gpu: dict[str, Any], cpu: dict[str, Any]) -> dict[str, Any]:
    """Items whose keep/drop decision differs, and the largest margin difference (log-prob units)."""
    ref = {it["id"]: it for it in cpu["items"]}
    rows = gpu["rules"]["pointwise"]["items"]
    missing = [r["id"] for r in rows if r["id"] not in ref]
    if missing or len(rows) != len(ref):
        raise SystemExit(f"gpu_check: the GPU run judged other items than the CPU reference ({missing[:3]})")
    differ = [r["id"] for r in rows if r["keep"] != ref[r["id"]]["keep"]]
    diffs = [
        abs(a - b)
        for r in rows
        if r["margins"] and ref[r["id"]]["margins"]
        for a, b in zip(r["margins"], ref[r["id"]]["margins"], strict=True)
    ]
    return {
        "items": len(rows),
        "same_decisions": len(rows) - len(differ),
        "differing": differ,
        "max_margin_diff": round(max(diffs), 4) if diffs else None,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    out, judge_wall = Path((argv or sys.argv[1:])[0]), float((argv or sys.argv[1:])[1])
    gpu = json.loads((out / "judge-gpu.json").read_text())
    writer = json.loads((out / "writer-gpu.json").read_text())["runs"][0]
    requests = 4 * gpu["n"]
    report = {
        "gpu": (out / "gpu.txt").read_text().strip() if (out / "gpu.txt").exists() else None,
        "judge": {
            "requests": requests,
            "wall_s_with_server_start": round(judge_wall, 1),
            "requests_per_s_with_start": round(requests / judge_wall, 2),
            **compare(gpu, json.loads(CPU_REFERENCE.read_text())),
        },
        "writer": {k: writer.get(k) for k in ("words", "wall_s", "sentences_per_s", "checked_rate")},
    }
    (out / "gpu_check.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
