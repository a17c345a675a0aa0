"""LT-Swap writer prompts on the same words: time, tokens and how many sentences pass the checks.

``python -m benchmarks.bench_writer_prompts [--stats out/demo/stats] [--model DIR] [--words 90]
[--variants v2,v3]``

The words are a seeded sample of ``--words`` of those an LT-Swap run draws from the embedded corpus
with WordSwap 3 words per (bin, tag) and InflectionSwap 5 pairs per (bin, POS) (both forms; the
demo's caps when this was first measured). One vLLM CPU server (the LT-Swap
default settings: every core bound, 32-token KV blocks, prefix caching on) answers every variant in
turn, each fresh (no LLM cache); the variants' prompts share no prefix beyond the chat template's
first tokens, so none warms another's cache. Per variant: wall seconds, prompt and generated tokens,
the server's prefix-cache hit rate (its /metrics counters), and the funnel of the sentences (generated
→ parsed → checked, with the POS check) with the drop reasons. Writes
``benchmarks/results/bench_writer_prompts.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.measure import RESULTS, ROOT, save_result

OUT = RESULTS / "bench_writer_prompts.json"
DEFAULT_MODEL = ROOT / "models" / "qwen2.5-coder-1.5b-instruct"
DEFAULT_STATS = ROOT / "out" / "demo" / "stats"
DEMO_CAPS = {"wordswap": 3, "inflswap": 5}


def demo_words(stats_dir: Path, n: int, seed: int) -> tuple[list[tuple[str, str]], dict, Any]:
    """``n`` (form, tag) keys from the demo's draw, their POS, and the stats."""
    from corpusbench.corpus.store import CorpusStats
    from corpusbench.families.ltswap.candidates import build_candidates
    from corpusbench.families.ltswap.lexicon import EnglishLexicon
    from corpusbench.families.ltswap.pipeline import LtswapParams, sample_items, word_slots

    if not (stats_dir / "manifest.json").exists():  # `make demo` makes it; else count the embedded corpus
        from corpusbench.corpus.readers import CorpusSpec
        from corpusbench.corpus.stats import StatsParams, compute_stats

        print(f"computing the stats of the embedded corpus → {stats_dir}", flush=True)
        compute_stats(CorpusSpec(path=str(ROOT / "data" / "default")), stats_dir, StatsParams(workers=2))
    stats = CorpusStats.load(stats_dir)
    cands, _ = build_candidates(stats, EnglishLexicon())
    words, infl, _ = sample_items(
        LtswapParams(max_per_bin=DEMO_CAPS, subtasks=("wordswap", "inflswap"), seed=seed), cands
    )
    pos_of = word_slots(words, infl)
    keys = sorted(pos_of)
    random.Random(f"{seed}:bench-writer").shuffle(keys)
    return sorted(keys[:n]), pos_of, stats


def prefix_counters(base_url: str) -> tuple[float, float]:
    """(prefix-cache queries, hits) in tokens from the server's Prometheus metrics; (0, 0) if absent."""
    try:
        text = urllib.request.urlopen(base_url.removesuffix("/v1") + "/metrics", timeout=10).read().decode()
    except OSError:
        return 0.0, 0.0

    def total(name: str) -> float:
        return sum(float(m) for m in re.findall(rf"^vllm:{name}_total(?:{{[^}}]*}})? (\S+)$", text, re.M))

    return total("prefix_cache_queries"), total("prefix_cache_hits")


def run_variant(variant: str, keys, pos_of, stats, backend, max_tokens: int) -> dict[str, Any]:
    from corpusbench.families.ltswap.generation import (
        PosChecker,
        apply_pos_check,
        word_outcome,
        word_request,
    )
    from corpusbench.llm.cache import CachedLLM

    reqs = [word_request(f, t, max_tokens, "en", variant) for f, t in keys]
    llm = CachedLLM(backend, None)
    q0, h0 = prefix_counters(backend.base_url)
    t0 = time.perf_counter()
    res = llm.generate(reqs)
    wall = time.perf_counter() - t0
    q1, h1 = prefix_counters(backend.base_url)
    raw = dict(zip(keys, res, strict=True))
    outcomes = apply_pos_check(
        {k: word_outcome(raw[k], k[0], stats.vocabulary, "en") for k in keys}, pos_of, PosChecker("en")
    )
    stages = Counter(o.stage for o in outcomes.values())
    reasons = Counter(o.reason for o in outcomes.values() if o.stage != "checked")
    lengths = [len(o.parsed.text.split()) for o in outcomes.values() if o.parsed is not None]
    queried = q1 - q0
    return {
        "variant": variant,
        "wall_s": round(wall, 1),
        "sentences_per_s": round(len(reqs) / wall, 3),
        "prompt_tokens": llm.report.tokens_in,
        "generated_tokens": llm.report.tokens_out,
        "prefix_cache_hit_rate": round((h1 - h0) / queried, 3) if queried else None,
        "new_prompt_tokens": round(queried - (h1 - h0)) if queried else None,
        "words": len(keys),
        "checked": stages["checked"],
        "checked_rate": round(stages["checked"] / len(keys), 3),
        "stages": dict(stages),
        "drops": dict(reasons.most_common()),
        "mean_words_checked": round(sum(lengths) / len(lengths), 1) if lengths else None,
        "examples": {f"{k[0]}/{k[1]}": raw[k].text for k in keys[:6]},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stats", type=Path, default=DEFAULT_STATS)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--words", type=int, default=90)
    ap.add_argument("--variants", default="v2,v3")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args(argv)
    from benchmarks.bench_llm_backends import open_backend
    from corpusbench.llm.hardware import default_dtype

    keys, pos_of, stats = demo_words(args.stats, args.words, args.seed)
    log_dir = RESULTS / "bench_writer_prompts-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    backend, stop = open_backend("vllm-server", args.model, args.concurrency, 8, log_dir)
    startup = time.perf_counter() - t0
    try:
        runs = [
            run_variant(v.strip(), keys, pos_of, stats, backend, args.max_tokens)
            for v in args.variants.split(",")
            if v.strip()
        ]
    finally:
        backend.close()
        stop()
    base = runs[0]
    for r in runs:
        r["speed_vs_first"] = round(base["wall_s"] / r["wall_s"], 2)
        r["checked_per_s"] = round(r["checked"] / r["wall_s"], 3)
    result = {
        "what": "LT-Swap writer prompts on the same words (one vLLM server, each variant fresh)",
        "model": args.model,
        "dtype": default_dtype(),
        "server_startup_s": round(startup, 1),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load": os.getloadavg()},
        "runs": runs,
    }
    save_result(OUT, result)
    table = Table(title=f"{len(keys)} words, {Path(args.model).name}, {result['dtype']}")
    cols = (
        "variant",
        "wall s",
        "× first",
        "prompt tok",
        "new prompt tok",
        "prefix hit",
        "gen tok",
        "checked",
        "checked/s",
        "top drops",
    )
    for c in cols:
        table.add_column(c, justify="left" if c in ("variant", "top drops") else "right")
    for r in runs:
        drops = ", ".join(f"{k} {v}" for k, v in list(r["drops"].items())[:3])
        table.add_row(
            r["variant"],
            str(r["wall_s"]),
            str(r["speed_vs_first"]),
            str(r["prompt_tokens"]),
            str(r["new_prompt_tokens"]),
            str(r["prefix_cache_hit_rate"]),
            str(r["generated_tokens"]),
            f"{r['checked']} ({r['checked_rate']:.0%})",
            str(r["checked_per_s"]),
            drops,
        )
    Console(width=200).print(table)
    return result


if __name__ == "__main__":
    main()
