"""The work of ``benchmarks/gpu_eval.sh`` (issue 39, never CI): eval speed on one GPU, three model sizes.

    python -m benchmarks.gpu_eval OUT [--release DIR] [--pairs FILE] [--sizes 135M,1.7B,7.2B] [--device cuda]

Builds Llama models with *random* weights (the time does not depend on their values) from SmolLM2's
config and tokenizer in ``--tokenizer`` (``models/smollm2-135m-instruct`` after ``make setup``; only
its config and tokenizer files are read, nothing is downloaded) at each size, then times as separate
processes, one after the other: ``corpusbench eval run`` on prep_anim (``--batch-tokens auto``, and
2048), lm-eval's ``hf`` model on the same pairs (batch 64), and ``corpusbench eval run`` on the whole
release. Prints the table, the forward passes' share of the card's bf16 matrix-product throughput
(2 x non-embedding parameters x tokens through the model / forward seconds, over a measured 8192^3
bf16 matmul) and writes ``OUT/gpu_eval.json``. ``--device cpu --sizes tiny`` is a dry run of the
plumbing on a CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_eval_lmeval import ROOT, fitclams_pairs, run_corpusbench, run_lmeval

SIZES: dict[str, dict[str, int]] = {  # Llama shapes: SmolLM2-135M, SmolLM2-1.7B, a 7B Llama
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                 num_key_value_heads=1, head_dim=32),
    "135M": {},
    "1.7B": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=24, num_attention_heads=32,
                 num_key_value_heads=32, head_dim=64),
    "7.2B": dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                 num_key_value_heads=32, head_dim=128),
}  # fmt: skip
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "generation_config.json",
)


def build(size: str, src: Path, out: Path, dtype: str, device: str = "cpu") -> tuple[Path, int]:
    """A random-weight model of ``size`` with ``src``'s tokenizer; (folder, non-embedding parameters).
    Built on ``device`` (a GPU draws 7B random weights in seconds, a CPU in minutes)."""
    import torch
    import transformers as tf

    folder = out / f"random-{size}"
    cfg = tf.AutoConfig.from_pretrained(src)
    for k, v in SIZES[size].items():
        setattr(cfg, k, v)
    torch.manual_seed(0)
    with torch.device(device):
        model = tf.AutoModelForCausalLM.from_config(cfg, dtype=getattr(torch, dtype))
    n_embed = model.get_input_embeddings().weight.numel()
    params = sum(p.numel() for p in model.parameters()) - n_embed
    if not (folder / "config.json").is_file():
        model.save_pretrained(folder)
        for name in TOKENIZER_FILES:
            if (src / name).is_file():
                shutil.copy(src / name, folder / name)
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()  # the runs below are processes of their own
    return folder, params


def matmul_tflops(device: str, n: int = 8192, reps: int = 20) -> float | None:
    """Measured bf16 matrix-product throughput of the device (TFLOP/s); None on a CPU."""
    import torch

    if not device.startswith("cuda"):
        return None
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(reps):
        a @ b
    torch.cuda.synchronize()
    return 2 * n**3 * reps / (time.perf_counter() - start) / 1e12


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--release", type=Path, default=ROOT / "releases/build/corpusbench-default/0.1.0")
    ap.add_argument("--pairs", type=Path, help="prep_anim pairs JSONL (default: from --fitclams)")
    ap.add_argument("--fitclams", type=Path, default=ROOT / "out" / "demo" / "fitclams")
    ap.add_argument("--tokenizer", type=Path, default=ROOT / "models" / "smollm2-135m-instruct")
    ap.add_argument("--sizes", default="135M,1.7B,7.2B")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--works", default="auto,2048,lmeval,release", help="which runs, comma-separated")
    args = ap.parse_args(argv)
    gpu = args.device.startswith("cuda")
    works = set(args.works.split(","))
    dtype = "bfloat16" if gpu else "float32"
    args.out.mkdir(parents=True, exist_ok=True)
    pairs = args.pairs
    if pairs is None:
        pairs = args.out / "prep_anim.jsonl"
        pairs.write_text("".join(json.dumps(r) + "\n" for r in fitclams_pairs(args.fitclams, "prep_anim")))
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    dev = ("--device", args.device, "--scoring", "full")
    peak = matmul_tflops(args.device)
    rows: dict[str, dict[str, Any]] = {}
    result: dict[str, Any] = {"device": args.device, "bf16_matmul_tflops": peak, "sizes": rows}
    for size in args.sizes.split(","):
        model, params = build(size, args.tokenizer, args.out / "models", dtype, args.device)
        row: dict[str, Any] = {"non_embedding_params": params}
        for name, extra in (("prep_anim_auto", dev), ("prep_anim_2048", (*dev, "--batch-tokens", "2048"))):
            if name.rsplit("_", 1)[1] not in works:
                continue
            wall, acc, timing = run_corpusbench(pairs, str(model), args.out / f"{size}-{name}", env, extra)
            row[name] = {"wall_s": wall, "accuracy": acc, "timing": timing}
        if "lmeval" in works:
            wall, acc = run_lmeval(pairs, str(model), args.out, 64, env, args.device, dtype)
            row["prep_anim_lmeval"] = {"wall_s": wall, "accuracy": acc}
        if "release" in works and args.release.is_dir():
            extra = ("--device", args.device, "--no-verify")
            wall, _, timing = run_corpusbench(
                args.release, str(model), args.out / f"{size}-release", env, extra
            )
            row["release"] = {"wall_s": wall, "timing": timing}
        for key in ("prep_anim_auto", "release"):
            t = row.get(key, {}).get("timing") or {}
            fwd = (t.get("seconds") or {}).get("forward")
            if peak and fwd:
                row[key]["matmul_share"] = 2 * params * t["tokens_forward"] / fwd / (peak * 1e12)
        rows[size] = row
        print(f"{size}: " + json.dumps({k: v.get("wall_s") for k, v in row.items() if isinstance(v, dict)}))
        # written after each size, so a run cut at its time limit keeps the sizes it finished
        (args.out / "gpu_eval.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(table(result))
    return result


def table(result: dict[str, Any]) -> str:
    """The issue's table: wall seconds per work and size, the matmul share of the forward passes."""

    def cell(row: dict[str, Any], key: str) -> str:
        got = row.get(key)
        if not got:
            return "–"
        share = got.get("matmul_share")
        return f"{got['wall_s']:.1f} s" + (f" ({share:.1%} of bf16 matmul)" if share else "")

    sizes = result["sizes"]
    lines = ["| work | " + " | ".join(sizes) + " |", "|---|" + "---:|" * len(sizes)]
    for key, name in (
        ("prep_anim_auto", "prep_anim, `--batch-tokens auto` (default)"),
        ("prep_anim_2048", "prep_anim, `--batch-tokens 2048`"),
        ("prep_anim_lmeval", "prep_anim, lm-eval `hf`, batch 64"),
        ("release", "whole release"),
    ):
        lines.append(f"| {name} | " + " | ".join(cell(r, key) for r in sizes.values()) + " |")
    peak = result["bf16_matmul_tflops"]
    lines.append(f"\n{result['device']}: bf16 matmul {peak:.0f} TFLOP/s" if peak else f"\n{result['device']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
