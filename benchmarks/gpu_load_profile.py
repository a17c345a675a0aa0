"""Where a GPU eval's start-up time goes (issue 39, never CI): importing torch and transformers, CUDA's
first kernel, ``from_pretrained`` straight onto the GPU (``device_map``) against CPU-then-``.to``, the
tokenizer, the first forward, and hashing the model folder; each printed in seconds.

    python -m benchmarks.gpu_load_profile [--tokenizer DIR] [--work /tmp/pm]   # on a GPU machine

Builds the random-weight 135M model of ``benchmarks/gpu_eval.py`` from the config and tokenizer in
``--tokenizer`` (``models/smollm2-135m-instruct`` after ``make setup``) under ``--work``, and writes
``WORK/prep_anim.jsonl`` there for a following ``corpusbench eval run --model WORK/random-135M``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.bench_eval_lmeval import ROOT, fitclams_pairs


def _say(what: str, start: float) -> None:
    print(f"{what}: {time.perf_counter() - start:.2f} s", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", type=Path, default=ROOT / "models" / "smollm2-135m-instruct")
    ap.add_argument("--fitclams", type=Path, default=ROOT / "out" / "demo" / "fitclams")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pm"))
    args = ap.parse_args(argv)
    begin = t = time.perf_counter()
    import torch

    _say("import torch", t)
    t = time.perf_counter()
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    _say("cuda init + first kernel", t)
    t = time.perf_counter()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    _say("import transformers", t)
    from benchmarks.gpu_eval import build
    from corpusbench.eval.models import local_fingerprint

    t = time.perf_counter()
    folder, _ = build("135M", args.tokenizer, args.work, "bfloat16", "cuda")
    _say("build 135M", t)
    rows = fitclams_pairs(args.fitclams, "prep_anim")
    (args.work / "prep_anim.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for rep in range(2):
        for mode in ("device_map", "cpu_then_to"):
            t = time.perf_counter()
            extra = {"device_map": "cuda"} if mode == "device_map" else {}
            model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.bfloat16, **extra)
            if mode != "device_map":
                model.to("cuda")
            torch.cuda.synchronize()
            _say(f"[{rep}] from_pretrained {mode}", t)
            t = time.perf_counter()
            AutoTokenizer.from_pretrained(folder)
            _say(f"[{rep}] tokenizer", t)
            t = time.perf_counter()
            with torch.inference_mode():
                model(torch.ones(8, 16, dtype=torch.long, device="cuda"))
                torch.cuda.synchronize()
            _say(f"[{rep}] first forward", t)
            del model
            torch.cuda.empty_cache()
    t = time.perf_counter()
    local_fingerprint(Path(folder))
    _say("sha256 of the 135M folder", t)
    _say("total", begin)


if __name__ == "__main__":
    main()
