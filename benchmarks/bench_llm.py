"""LLM filter decisions: ``choose`` (log-prob read-out) vs free generation + bracket parsing.

``python -m benchmarks.bench_llm [--pairs 64] [--concurrency 16] [--ref-max-tokens 256] [--base-url URL]``

On one vLLM server (started here on a free loopback port with the default SmolLM2 model, unless
``--base-url`` is given) and the same rendered prompts (``generic/choose_ab.v1``: which of two
sentences is grammatical, each pair asked in both orders, as the LT-Swap filter does):

1. ``choose``: one forward step per decision, log-probs of "A"/"B" after the answer prefix "[";
2. reference: free generation (temperature 0, up to ``--ref-max-tokens``) + bracket parsing;
3. both again from the cache (no call reaches the server).

The log-prob path runs first, so the reference path profits from vLLM's prefix cache: the ratio
is conservative. Writes ``benchmarks/results/bench_llm.json``.
"""

from __future__ import annotations

import argparse
import platform
import random
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.measure import RESULTS, ROOT, save_result

CORPUS = ROOT / "data" / "default" / "kjv"
OUT = RESULTS / "bench_llm.json"
QUESTION = "Which of these two sentences is correct, natural English?"


def sentence_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` seeded (good, bad) pairs: a 6-16 word corpus sentence and a copy with two words swapped."""
    sents = []
    for path in sorted(CORPUS.glob("*.txt")):
        for s in re.split(r"(?<=[.;:?!])\s+", path.read_text(encoding="utf-8")):
            words = s.split()
            if 6 <= len(words) <= 16 and s[-1] in ".?!" and s[0].isupper():
                sents.append(" ".join(words))
    sents = sorted(set(sents))
    rng = random.Random(seed)
    out = []
    for good in rng.sample(sents, n):
        words = good.rstrip(".?!").split()
        i = rng.randrange(1, len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
        out.append((good, " ".join(words) + good[-1]))
    return out


def build_requests(pairs: list[tuple[str, str]], method: str, ref_max_tokens: int) -> tuple[list, list[str]]:
    from corpusbench import prompts
    from corpusbench.llm import ChoiceRequest

    reqs, gold = [], []
    for k, (good, bad) in enumerate(pairs):
        for order, (a, b, g) in enumerate(((good, bad, "A"), (bad, good, "B"))):
            text = prompts.render("generic/choose_ab.v1", question=QUESTION, option_a=a, option_b=b)
            extra = {"answer_prefix": "["} if method == "logprobs" else {"max_tokens": ref_max_tokens}
            reqs.append(
                ChoiceRequest(id=f"p{k}.{order}", prompt=text, options=("A", "B"), method=method, **extra)
            )
            gold.append(g)
    return reqs, gold


def run_path(url: str, reqs: list, gold: list[str], cache: Path, concurrency: int) -> dict[str, Any]:
    from corpusbench.llm import CachedLLM
    from corpusbench.llm.openai_backend import OpenAIBackend

    with CachedLLM(OpenAIBackend(url, concurrency=concurrency, timeout=600), cache) as llm:
        t0 = time.perf_counter()
        res = llm.choose(reqs)
        wall = time.perf_counter() - t0
        rep = llm.last.as_dict()
        t0 = time.perf_counter()
        again = llm.choose(reqs)
        rerun = time.perf_counter() - t0
        rerun_rep = llm.last.as_dict()
    assert [r.choice for r in again] == [r.choice for r in res]
    decided = [r for r in res if r.ok]
    return {
        "decisions": len(reqs),
        "wall_s": wall,
        "decisions_per_s": len(reqs) / wall,
        "decided_per_s": len(decided) / wall,
        "tokens_out": rep["tokens_out"],
        "tokens_out_per_decision": rep["tokens_out"] / len(reqs),
        "tokens_in": rep["tokens_in"],
        "ok": rep["ok"],
        "rejects": rep["rejects"],
        "failures": rep["failures"],
        "by_path": rep["by_path"],
        "accuracy": sum(r.choice == g for r, g in zip(res, gold, strict=True)) / len(reqs),
        "choices": [r.choice for r in res],
        "share_A": sum(r.choice == "A" for r in decided) / max(1, len(decided)),
        "decided": len(decided),
        "rerun_wall_s": rerun,
        "rerun_cache_hits": rerun_rep["cache_hits"],
        "rerun_calls": rerun_rep["calls"],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=64)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--ref-max-tokens", type=int, default=256)
    ap.add_argument("--base-url", default=None, help="use a running server instead of starting one")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)

    from corpusbench.llm.server import ServerSpec, VLLMServer, free_port

    pairs = sentence_pairs(args.pairs)
    fast_reqs, gold = build_requests(pairs, "logprobs", args.ref_max_tokens)
    ref_reqs, _ = build_requests(pairs, "generation", args.ref_max_tokens)
    console = Console(width=140)
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp:
        server = None
        url = args.base_url
        t_start = 0.0
        if url is None:
            spec = ServerSpec(port=free_port())
            server = VLLMServer(spec, Path(tmp) / "server.log")
            t0 = time.perf_counter()
            console.print(f"starting vLLM server for {spec.name} on {spec.base_url} ...")
            server.start()
            t_start = time.perf_counter() - t0
            url = spec.base_url
        try:
            run_path(url, fast_reqs[:4], gold[:4], Path(tmp) / "warm.sqlite", args.concurrency)  # warm-up
            fast = run_path(url, fast_reqs, gold, Path(tmp) / "fast.sqlite", args.concurrency)
            ref = run_path(url, ref_reqs, gold, Path(tmp) / "ref.sqlite", args.concurrency)
        finally:
            if server is not None:
                server.stop()
    agree = sum(a == b for a, b in zip(fast["choices"], ref["choices"], strict=True) if b is not None)
    result = {
        "benchmark": "bench_llm",
        "model": "smollm2-135m-instruct" if args.base_url is None else url,
        "decisions": len(fast_reqs),
        "pairs": args.pairs,
        "concurrency": args.concurrency,
        "ref_max_tokens": args.ref_max_tokens,
        "server_start_s": t_start,
        "logprobs": {k: v for k, v in fast.items() if k != "choices"},
        "reference": {k: v for k, v in ref.items() if k != "choices"},
        "throughput_ratio": fast["decisions_per_s"] / ref["decisions_per_s"],
        "decided_throughput_ratio": fast["decided_per_s"] / max(1e-9, ref["decided_per_s"]),
        "generated_tokens_ratio": ref["tokens_out"] / max(1, fast["tokens_out"]),
        "agreement_where_reference_decided": agree / max(1, ref["decided"]),
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
    }
    table = Table(
        "path",
        "decisions/s",
        "decided/s",
        "wall s",
        "tokens out",
        "tok/decision",
        "decided",
        "rejects",
        "accuracy",
        "picks A",
        "cache rerun s",
        title=f"filter decisions ({len(fast_reqs)}) on the vLLM CPU server",
    )
    for name, r in (("choose (log-probs)", fast), ("generate + brackets", ref)):
        table.add_row(
            name,
            f"{r['decisions_per_s']:.2f}",
            f"{r['decided_per_s']:.2f}",
            f"{r['wall_s']:.1f}",
            str(r["tokens_out"]),
            f"{r['tokens_out_per_decision']:.1f}",
            str(r["decided"]),
            str(r["rejects"]),
            f"{r['accuracy']:.2f}",
            f"{r['share_A']:.2f}",
            f"{r['rerun_wall_s']:.3f} ({r['rerun_cache_hits']} hits)",
        )
    console.print(table)
    console.print(
        f"throughput ×{result['throughput_ratio']:.1f} (decided ×{result['decided_throughput_ratio']:.1f}), "
        f"generated tokens ÷{result['generated_tokens_ratio']:.1f}, "
        f"agreement {result['agreement_where_reference_decided']:.2f} where the reference decided"
    )
    save_result(args.out, result)
    return result


if __name__ == "__main__":
    main()
