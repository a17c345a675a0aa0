"""``corpusbench eval run`` vs lm-evaluation-harness (``hf`` model) on the same minimal pairs and model.

    python -m benchmarks.bench_eval_lmeval [--pairs FILE] [--model DIR] [--config prep_anim] [--repeats 1]

Both tools score whole sentences (``--scoring full``; lm-eval's BLiMP-style ``multiple_choice`` task with
an empty context and no target delimiter, so both score the sentence as written after the model's BOS;
lm-eval's default delimiter would score it after a space: 0.5719 vs 0.5575 on prep_anim) on the same pairs, as
separate processes one after the other (wall time includes imports and model loading, as a user waits),
with the same threads. The pairs default to the ``--config`` paradigm of the demo's FIT-CLAMS folder
(``out/demo/fitclams``, made by ``make demo``). Prints both times, the ratio and both accuracies (equal
within 1/n: the scorers agree to ~1e-4 in log-prob, a near-tie may flip) and writes
``benchmarks/results/eval_lmeval.json``. Timings on a shared machine are noisy: compare the ratio of
runs made back to back, and repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
TASK_YAML = """task: cb_pairs
dataset_path: json
dataset_kwargs:
  data_files:
    train: {path}
output_type: multiple_choice
test_split: train
doc_to_text: ""
target_delimiter: ""
doc_to_target: 0
doc_to_choice: "{{{{[sentence_good, sentence_bad]}}}}"
num_fewshot: 0
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def fitclams_pairs(folder: Path, config: str) -> list[dict[str, str]]:
    """The ``config`` pairs of a FIT-CLAMS output folder, as ``sentence_good``/``sentence_bad`` rows."""
    import pandas as pd

    files = sorted(p for p in folder.rglob("*.parquet") if config in p.as_posix())
    frames = [pd.read_parquet(f) for f in files]
    rows = [r for df in frames if {"sentence_good", "sentence_bad"} <= set(df.columns) for r in
            df[["sentence_good", "sentence_bad"]].to_dict("records")]  # fmt: skip
    if not rows:
        raise SystemExit(f"{folder}: no {config} pairs (build it with `make demo` or pass --pairs)")
    return rows


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd[:4])} … failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def run_corpusbench(
    dataset: Path, model: str, out: Path, env: dict[str, str], extra: tuple[str, ...] = ("--scoring", "full")
) -> tuple[float, float, dict]:
    """(wall s, accuracy, results.json timing) of ``corpusbench eval run`` on ``dataset``."""
    cmd = [PY, "-m", "corpusbench", "eval", "run", "--dataset", str(dataset), "--model", model]
    wall = timed([*cmd, "--out", str(out), *extra], env)
    res = json.loads((out / "results.json").read_text())
    return wall, res["accuracy"], res.get("timing", {})


def run_lmeval(
    pairs: Path,
    model: str,
    work: Path,
    batch: int,
    env: dict[str, str],
    device: str = "cpu",
    dtype: str = "float32",
) -> tuple[float, float]:
    """(wall s, accuracy) of lm-eval's ``hf`` model on ``pairs`` as a BLiMP-style task."""
    tasks = work / "tasks"
    tasks.mkdir(exist_ok=True)
    (tasks / "cb_pairs.yaml").write_text(TASK_YAML.format(path=pairs), encoding="utf-8")
    out = work / "lmeval"
    cmd = [PY, "-m", "lm_eval", "--model", "hf", "--model_args", f"pretrained={model},dtype={dtype}"]
    cmd += ["--tasks", "cb_pairs", "--include_path", str(tasks), "--batch_size", str(batch)]
    wall = timed([*cmd, "--device", device, "--output_path", str(out)], env)
    found = sorted(out.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    return wall, json.loads(found[-1].read_text())["results"]["cb_pairs"]["acc,none"]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=Path, help="JSONL with sentence_good/sentence_bad (default: the demo's)")
    ap.add_argument("--fitclams", type=Path, default=ROOT / "out" / "demo" / "fitclams")
    ap.add_argument("--config", default="prep_anim")
    ap.add_argument("--model", default=str(ROOT / "models" / "smollm2-135m-instruct"))
    ap.add_argument("--lmeval-batch", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args(argv)
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="true")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pairs = args.pairs
        if pairs is None:
            pairs = work / f"{args.config}.jsonl"
            rows = fitclams_pairs(args.fitclams, args.config)
            pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        n = sum(1 for _ in pairs.open(encoding="utf-8"))
        runs = []
        for k in range(args.repeats):  # back to back, corpusbench first
            cb, cb_acc, timing = run_corpusbench(pairs, args.model, work / f"cb{k}", env)
            lm, lm_acc = run_lmeval(pairs, args.model, work, args.lmeval_batch, env)
            runs.append({"corpusbench_s": cb, "lmeval_s": lm, "ratio": lm / cb, "timing": timing})
            print(f"[{k}] corpusbench {cb:.1f} s (acc {cb_acc:.4f}) · lm-eval {lm:.1f} s (acc {lm_acc:.4f})"
                  f" · {lm / cb:.2f}x", flush=True)  # fmt: skip
    result = {
        "pairs": n,
        "model": args.model,
        "threads": os.environ.get("OMP_NUM_THREADS", "default"),
        "accuracy": {"corpusbench": cb_acc, "lmeval": lm_acc},
        "equal_accuracy_within_1_over_n": abs(cb_acc - lm_acc) <= 1 / n + 1e-12,
        "runs": runs,
        "median_ratio": statistics.median(r["ratio"] for r in runs),
    }
    out = ROOT / "benchmarks" / "results" / "eval_lmeval.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}))
    return result


if __name__ == "__main__":
    main()
