"""Scale-out on Ray: ``corpusbench stats`` throughput per executor, and LLM prompts/s per replica.

    python -m benchmarks.bench_ray [--words 400000] [--repeats 2] [--no-llm] [--prompts 64]

1. Stats, one corpus (built from the embedded default like ``bench_stats``), one process, one run:
   the local executor in-process (1 worker) and with 2 spawned workers, then Ray tasks with 1 and 2
   workers on a local Ray (``num_cpus=2``, workers at normal priority; start-up timed apart). Each
   configuration runs ``--repeats`` times, the best wall time counts (tagger loading is included in
   every run of the local executor, only in the first run of each Ray worker process, as on a real
   job). All outputs must be byte-identical. Then words/s per core (one Ray worker) and the cores
   needed for 10^9 and 10^11 words.
2. LLM: one vLLM CPU server (one replica, started here unless ``--base-url``); the LT-Swap filter
   prompts (``choose``, log-prob read-out) and short generations (``--gen-tokens``), each sent straight
   to the server (``openai`` backend) and through the ``ray`` backend, disjoint prompt sets of equal
   size (no prefix-cache advantage), no result cache.

Writes ``benchmarks/results/bench_ray.json``. The machine is shared: compare rows of one run only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.bench_stats import build_corpus
from benchmarks.measure import RESULTS, ROOT, save_result

FILES = ("counts.parquet", "forms.parquet", "contexts.parquet", "manifest.json")
os.environ.setdefault("NLTK_DATA", str(ROOT / "nltk_data"))


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for f in FILES:
        h.update((folder / f).read_bytes())
    return h.hexdigest()


def bench_stats(corpus: Path, work: Path, repeats: int, shard_bytes: int) -> dict[str, Any]:
    import ray

    from corpusbench.corpus.executors import LocalExecutor, RayExecutor
    from corpusbench.corpus.readers import CorpusSpec
    from corpusbench.corpus.stats import StatsParams, compute_stats

    t0 = time.perf_counter()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=256 * 1024**2,
        _system_config={"worker_niceness": 0},  # what RayExecutor does for a Ray it starts
    )
    ray_start = time.perf_counter() - t0
    runs = []
    try:
        for name, make in (
            ("local x1", lambda: LocalExecutor(1)),
            ("local x2", lambda: LocalExecutor(2)),
            ("ray x1", lambda: RayExecutor(workers=1)),
            ("ray x2", lambda: RayExecutor(workers=2)),
        ):
            times = []
            for r in range(repeats):
                out = work / f"{name.replace(' ', '-')}-{r}"
                shutil.rmtree(out, ignore_errors=True)
                with make() as ex:
                    rep = compute_stats(
                        CorpusSpec(path=str(corpus)), out, StatsParams(shard_bytes=shard_bytes), executor=ex
                    )
                times.append(rep.seconds)
            runs.append(
                {
                    "run": name,
                    "executor": ex.name,
                    "workers": ex.workers,
                    "seconds": min(times),
                    "all_seconds": times,
                    "tokens": rep.tokens,
                    "words_per_s": rep.tokens / min(times),
                    "digest": _digest(out),
                }
            )
    finally:
        ray.shutdown()
    base = runs[0]["words_per_s"]
    for r in runs:
        r["x_local1"] = r["words_per_s"] / base
    return {"ray_start_s": ray_start, "shard_bytes": shard_bytes, "runs": runs}


def sizing(words_per_s_per_core: float) -> list[dict[str, float]]:
    rows = []
    for words in (1e9, 1e11):
        cpu_h = words / words_per_s_per_core / 3600
        rows.append(
            {
                "words": words,
                "cpu_hours": cpu_h,
                "cores_for_1h": cpu_h,
                "cores_for_24h": cpu_h / 24,
            }
        )
    return rows


def bench_llm(url: str, n: int, gen_tokens: int, concurrency: int) -> dict[str, Any]:
    from benchmarks.bench_llm import build_requests, sentence_pairs
    from corpusbench.llm import CachedLLM
    from corpusbench.llm.openai_backend import OpenAIBackend
    from corpusbench.llm.ray_backend import RayBackend
    from corpusbench.llm.records import GenRequest, SamplingParams

    pairs = sentence_pairs(n * 2, seed=1)  # 4n choose prompts (both orders): halves for each path
    choose, _ = build_requests(pairs, "logprobs", 0)
    params = SamplingParams(max_tokens=gen_tokens, temperature=0.0)
    gen = [
        GenRequest(id=f"g{i}", prompt=f"Write one new sentence that uses the words of: {good}", params=params)
        for i, (good, _) in enumerate(pairs)
    ]
    halves = {"choose": (choose[: 2 * n], choose[2 * n :]), "generate": (gen[:n], gen[n:])}
    res: dict[str, Any] = {}
    opts = {"concurrency": concurrency, "timeout": 600}
    with CachedLLM(OpenAIBackend(url, **opts), None) as llm:
        llm.choose(choose[:4])  # warm-up
        for op, (first, _) in halves.items():
            t0 = time.perf_counter()
            getattr(llm, op)(first)
            res[f"direct {op}"] = len(first) / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    with CachedLLM(RayBackend([url], **opts), None) as llm:
        res["ray_backend_start_s"] = time.perf_counter() - t0
        for op, (_, second) in halves.items():
            t0 = time.perf_counter()
            getattr(llm, op)(second)
            res[f"ray {op}"] = len(second) / (time.perf_counter() - t0)
    res["prompts"] = {op: len(h[0]) for op, h in halves.items()}
    res["gen_tokens"] = gen_tokens
    res["concurrency"] = concurrency
    return res


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--words", type=int, default=400_000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--shard-bytes", type=int, default=250_000)
    ap.add_argument("--no-llm", action="store_true")
    ap.add_argument("--prompts", type=int, default=32, help="choose: 2x this per path; generate: this")
    ap.add_argument("--gen-tokens", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--base-url", default=None, help="use a running server instead of starting one")
    ap.add_argument("--out", type=Path, default=RESULTS / "bench_ray.json")
    args = ap.parse_args(argv)

    console = Console(width=120)
    load = os.getloadavg()
    work = RESULTS / "work"
    corpus = work / f"ray-corpus-{args.words}"
    words = build_corpus(ROOT / "data" / "default", corpus, args.words, args.files)
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
        stats = bench_stats(corpus, Path(tmp), args.repeats, args.shard_bytes)
    identical = len({r["digest"] for r in stats["runs"]}) == 1
    by_run = {r["run"]: r for r in stats["runs"]}
    per_core = by_run["ray x1"]["words_per_s"]  # one Ray worker = one core
    per_core_2 = by_run["ray x2"]["words_per_s"] / 2  # both cores of this (shared) machine
    result: dict[str, Any] = {
        "benchmark": "bench_ray",
        "corpus_words": words,
        "cpu_count": os.cpu_count(),
        "load_avg_at_start": load,
        "stats": stats,
        "identical_outputs": identical,
        "words_per_s_per_core": per_core,
        "words_per_s_per_core_at_2": per_core_2,
        "sizing": sizing(per_core),
    }
    table = Table("run", "workers", "best s", "words/s", "x local 1", title=f"stats on {words:,} words")
    for r in stats["runs"]:
        cells = (f"{r['seconds']:.1f}", f"{r['words_per_s']:,.0f}", f"{r['x_local1']:.2f}")
        table.add_row(r["run"], str(r["workers"]), *cells)
    console.print(table)
    console.print(f"Ray start-up {stats['ray_start_s']:.1f}s; outputs identical: {identical}")
    for row in result["sizing"]:
        console.print(
            f"{row['words']:.0e} words: {row['cpu_hours']:,.0f} CPU-hours -> "
            f"{row['cores_for_24h']:,.1f} cores for 24 h, {row['cores_for_1h']:,.0f} for 1 h"
        )
    if not args.no_llm:
        from corpusbench.llm.server import ServerSpec, VLLMServer, free_port

        with tempfile.TemporaryDirectory(prefix="bench-ray-llm-") as tmp:
            server = None
            url = args.base_url
            if url is None:
                spec = ServerSpec(port=free_port())
                console.print(f"starting vLLM server on {spec.base_url} ...")
                server = VLLMServer(spec, Path(tmp) / "server.log").start()
                url = spec.base_url
            try:
                result["llm"] = bench_llm(url, args.prompts, args.gen_tokens, args.concurrency)
            finally:
                if server is not None:
                    server.stop()
        llm = result["llm"]
        console.print(
            f"LLM, one vLLM CPU replica: choose {llm['direct choose']:.2f} prompts/s direct, "
            f"{llm['ray choose']:.2f} via ray; generate ({args.gen_tokens} tokens) "
            f"{llm['direct generate']:.2f} direct, {llm['ray generate']:.2f} via ray"
        )
    save_result(args.out, result)
    return result


if __name__ == "__main__":
    main()
