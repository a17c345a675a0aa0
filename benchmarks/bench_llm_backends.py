"""The LLM stage on one set of judge prompts: vLLM server vs in-process vLLM engine vs transformers.

``python -m benchmarks.bench_llm_backends [--model DIR] [--items 12] [--rule pointwise]
[--backends vllm-server,vllm-engine,transformers] [--concurrency 8] [--batch-size 8]``

The prompts are the LT-Swap judge's (``judging.FilterRule.requests``) for the first ``--items``
items of the shipped calibration set: 4 per quadruplet, sharing most of their text (prefix caching
is on in both vLLM paths). Each backend answers every prompt fresh (no cache); startup (server
health / engine load / model load) is timed apart from the decisions. dtype: the hardware default
(``corpusbench.llm.hardware``: fp32 on AVX2-only CPUs, bf16 on AMX/AVX512-BF16 CPUs and GPUs).
Reports prompt tokens/s, decisions/s and the agreement of each backend's choices with the first
backend's. Writes ``benchmarks/results/bench_llm_backends.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.measure import RESULTS, ROOT, save_result

OUT = RESULTS / "bench_llm_backends.json"
DEFAULT_MODEL = ROOT / "models" / "qwen2.5-coder-1.5b-instruct"


def judge_requests(n_items: int, rule: str) -> list:
    from corpusbench.families.ltswap.calibration import CALIBRATION_SET, balanced_subset, read_items
    from corpusbench.families.ltswap.judging import FilterRule

    items, labels = read_items(CALIBRATION_SET, labelled=True)
    items, _ = balanced_subset(items, labels, max(1, n_items // 6))
    fr = FilterRule(rule)
    return [r for it in items[:n_items] for r in fr.requests(it)]


def open_backend(name: str, model: str, concurrency: int, batch_size: int, log_dir: Path):  # type: ignore[no-untyped-def]
    """(backend, closer): a server is started and waited for here, so startup is not in the decisions."""
    from corpusbench.llm.api import LLMSpec
    from corpusbench.llm.api import open_backend as open_llm_backend

    if name == "vllm-server":
        from corpusbench.llm.server import ServerSpec, VLLMServer, free_port

        spec = ServerSpec(model=model, port=free_port())
        server = VLLMServer(spec, log_dir / "vllm-server.log")
        server.start(wait=False)
        server.wait_healthy(timeout=900)
        b = open_llm_backend(
            LLMSpec(
                backend="vllm-server",
                model=spec.name,
                base_url=spec.base_url,
                concurrency=concurrency,
                cache=None,
            )
        )
        return b, server.stop
    b = open_llm_backend(LLMSpec(backend=name, model=model, batch_size=batch_size, cache=None))
    return b, (lambda: None)


def run_backend(name: str, reqs: list, args: argparse.Namespace, log_dir: Path) -> dict[str, Any]:
    from corpusbench.llm.cache import CachedLLM

    t0 = time.perf_counter()
    backend, stop = open_backend(name, args.model, args.concurrency, args.batch_size, log_dir)
    startup = time.perf_counter() - t0
    try:
        llm = CachedLLM(backend, None)
        t1 = time.perf_counter()
        res = llm.choose(reqs)
        wall = time.perf_counter() - t1
        desc = llm.describe()
    finally:
        backend.close()
        stop()
    tokens = llm.report.tokens_in
    return {
        "backend": name,
        "settings": desc,
        "startup_s": round(startup, 1),
        "wall_s": round(wall, 2),
        "decisions": len(reqs),
        "decisions_per_s": round(len(reqs) / wall, 3),
        "prompt_tokens": tokens,
        "prompt_tokens_per_s": round(tokens / wall, 1),
        "ok": sum(r.ok for r in res),
        "choices": [r.choice for r in res],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--items", type=int, default=12, help="calibration items (4 prompts each)")
    ap.add_argument("--rule", default="pointwise")
    ap.add_argument("--backends", default="vllm-server,vllm-engine,transformers")
    ap.add_argument("--concurrency", type=int, default=8, help="vllm-server: requests in flight")
    ap.add_argument("--batch-size", type=int, default=8, help="transformers: prompts per batch")
    args = ap.parse_args(argv)
    from corpusbench.llm.hardware import default_dtype

    reqs = judge_requests(args.items, args.rule)
    log_dir = RESULTS / "bench_llm_backends-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    runs = [run_backend(b.strip(), reqs, args, log_dir) for b in args.backends.split(",") if b.strip()]
    first = runs[0]["choices"]
    for r in runs:
        r["agreement_with_first"] = round(
            sum(a == b for a, b in zip(r["choices"], first, strict=True)) / len(first), 3
        )
        r.pop("choices")
    base = next((r for r in runs if r["backend"] == "transformers"), runs[-1])
    for r in runs:
        r["speed_vs_transformers"] = round(r["decisions_per_s"] / base["decisions_per_s"], 2)
    result = {
        "what": "LT-Swap judge prompts on each LLM backend",
        "model": args.model,
        "rule": args.rule,
        "dtype": default_dtype(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load": os.getloadavg()},
        "runs": runs,
    }
    save_result(OUT, result)
    table = Table(
        title=f"{len(reqs)} judge decisions ({args.rule}), {Path(args.model).name}, {result['dtype']}"
    )
    for c in ("backend", "startup s", "wall s", "decisions/s", "prompt tok/s", "× transformers", "agree"):
        table.add_column(c, justify="left" if c == "backend" else "right")
    for r in runs:
        table.add_row(
            r["backend"],
            str(r["startup_s"]),
            str(r["wall_s"]),
            str(r["decisions_per_s"]),
            str(r["prompt_tokens_per_s"]),
            str(r["speed_vs_transformers"]),
            str(r["agreement_with_first"]),
        )
    Console(width=160).print(table)
    return result


if __name__ == "__main__":
    main()
