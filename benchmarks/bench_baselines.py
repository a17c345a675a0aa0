"""``corpusbench baseline train`` at 1x and Nx the embedded corpus, and n-gram scoring throughput.

    python -m benchmarks.bench_baselines [--copies 1,6] [--order 5] [--score 2000]

The corpus is ``data/default`` repeated ``N`` times (copies in ``benchmarks/results/work``; 6 copies are
~11.7M tokens, ~10M words). Each size trains word and tag models in one fresh subprocess (tagging and
counting times from the child, peak RSS sampled here with psutil). Note: repeating a corpus repeats its
n-grams, so the model (types) does not grow with N; the counting arrays (tokens) do. Scoring: sentences
per second of the word scorer on corpus lines. Writes ``benchmarks/results/bench_baselines.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.measure import RESULTS, ROOT, run_child, save_result

os.environ.setdefault("NLTK_DATA", str(ROOT / "nltk_data"))


def corpus_copies(n: int) -> Path:
    src = ROOT / "data" / "default"
    if n == 1:
        return src
    dst = RESULTS / "work" / f"baselines_corpus_x{n}"
    if not (dst / ".done").exists():
        shutil.rmtree(dst, ignore_errors=True)
        for i in range(n):
            shutil.copytree(src, dst / f"copy{i}", ignore=shutil.ignore_patterns(".*"))
        (dst / ".done").write_text("ok")
    return dst


def child(corpus: str, out: str, order: int) -> None:
    from corpusbench.baselines.train import TrainParams, train_ngrams
    from corpusbench.corpus.readers import CorpusSpec

    outs = {"word": Path(out) / "word", "tag": Path(out) / "tag"}
    r = train_ngrams(CorpusSpec(path=corpus), outs, TrainParams(order=order))
    sizes = {k: (p / "model.npz").stat().st_size / 2**20 for k, p in outs.items()}
    types = {k: json.loads((p / "manifest.json").read_text())["ngram_types"] for k, p in outs.items()}
    print(
        json.dumps(
            {
                "tokens": r.tokens,
                "sentences": r.sentences,
                "seconds_tagging": r.seconds_tagging,
                "seconds_counting": r.seconds_counting,
                "model_mib": sizes,
                "ngram_types": types,
            }
        )
    )


def run_measured(corpus: Path, out: Path, order: int) -> dict[str, Any]:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "benchmarks.bench_baselines", "--child", str(corpus), str(out), str(order)]
    return run_child(cmd, ROOT, f"training on {corpus}")


def scoring_rate(model: Path, n: int) -> dict[str, Any]:
    from corpusbench.baselines.scoring import NgramScorer

    lines = []
    for p in sorted((ROOT / "data" / "default" / "kjv").glob("*.txt")):
        lines += [ln.strip() for ln in p.read_text("utf-8").splitlines() if len(ln.split()) > 4]
        if len(lines) >= n:
            break
    lines = lines[:n]
    scorer = NgramScorer(model)
    t0 = time.perf_counter()
    scorer.score(lines, [None] * len(lines))
    dt = time.perf_counter() - t0
    return {"sentences": len(lines), "seconds": dt, "sentences_per_s": len(lines) / dt}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", default="1,6")
    ap.add_argument("--order", type=int, default=5)
    ap.add_argument("--score", type=int, default=2000)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return
    results: dict[str, Any] = {"order": args.order, "train": {}}
    for n in (int(x) for x in args.copies.split(",")):
        out = RESULTS / "work" / f"baselines_models_x{n}"
        res = run_measured(corpus_copies(n), out, args.order)
        results["train"][f"x{n}"] = res
        print(
            f"x{n}: {res['tokens']} tokens, wall {res['wall_s']:.0f}s, peak RSS {res['peak_rss_mib']:.0f} MiB"
        )
    first = RESULTS / "work" / f"baselines_models_x{args.copies.split(',')[0]}" / "word"
    results["scoring"] = scoring_rate(first, args.score)
    print(f"scoring: {results['scoring']['sentences_per_s']:.0f} sentences/s")
    save_result(RESULTS / "bench_baselines.json", results)


if __name__ == "__main__":
    main()
