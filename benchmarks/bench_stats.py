"""``corpusbench stats`` versus LT-Swap's reference counting step, and every tagger old vs new, in one run.

    python -m benchmarks.bench_stats [--words 1000000] [--scale 1,10,100] [--sections reference,taggers,scale]

Builds a deterministic ~``--words`` corpus from the embedded default (KJV and Shakespeare lines
interleaved, cut into ``--files`` files), then times each configuration in a fresh subprocess
(wall time of the work; peak RSS of the process tree, children included, sampled with psutil):

- ``reference``: the reference method (per-file pool, split on '.', ``word_tokenize`` + ``pos_tag``)
  at 1 and 2 workers, the same method with corpusbench's tokenizer and tagger (its output must be
  identical: that checks our components), ``compute_stats`` with the NLTK tagger at 1 and 2 workers.
  Agreement: per-form token counts of the two real outputs, and per-line tags and (form, collapsed
  POS) counts where the two tokenisations agree.
- ``taggers``: spaCy (English, ``--spacy-words``) and HanTa (the German Bible, ``--hanta-words``),
  or those named by ``--taggers``, each as plain library calls (``fast=False``: what ``stats`` did
  before) and with corpusbench's exact fast path at 1 and 2 workers; the counts must be
  byte-identical.
- ``scale``: the NLTK path on the corpus repeated ``--scale`` times, at 1 and 2 workers
  (``--scale-workers``): time, words/s and peak RSS at each size.
- ``spacy-tagging`` (not run by default): spaCy tagging alone, plain vs fast path alternated in one
  process on ``--spacy-tagging-words`` words: CPU seconds without start-up.

The load average is recorded next to every run (the machines are shared). Writes
``benchmarks/results/bench_stats.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.measure import RESULTS, ROOT, run_child, save_result

os.environ.setdefault("NLTK_DATA", str(ROOT / "nltk_data"))


# ---------------------------------------------------------------- corpus
def build_corpus(src: Path, dst: Path, words: int, n_files: int) -> int:
    """Interleave KJV and Shakespeare lines up to ``words`` words, cut into ``n_files`` files."""
    if (dst / ".done").exists():
        return int((dst / ".done").read_text())
    streams = []
    for sub in ("kjv", "shakespeare"):
        lines = [ln for p in sorted((src / sub).glob("*.txt")) for ln in p.read_text("utf-8").splitlines()]
        streams.append([ln for ln in lines if ln.strip()])
    picked: list[str] = []
    total = 0
    for i in range(max(map(len, streams))):
        for s in streams:
            if i < len(s) and total < words:
                picked.append(s[i])
                total += len(s[i].split())
    shutil.rmtree(dst, ignore_errors=True)
    dst.mkdir(parents=True)
    per_file = total / n_files
    acc, k, buf = 0, 0, []
    for ln in picked:
        buf.append(ln)
        acc += len(ln.split())
        if acc >= per_file * (k + 1) and k < n_files - 1:
            (dst / f"part-{k:02d}.txt").write_text("\n".join(buf) + "\n", "utf-8")
            k, buf = k + 1, []
    (dst / f"part-{k:02d}.txt").write_text("\n".join(buf) + "\n", "utf-8")
    (dst / ".done").write_text(str(total))
    return total


def repeat_corpus(src: Path, dst: Path, times: int) -> Path:
    if (dst / ".done").exists():
        return dst
    shutil.rmtree(dst, ignore_errors=True)
    for r in range(times):
        (dst / f"copy-{r:02d}").mkdir(parents=True)
        for p in sorted(src.glob("*.txt")):
            shutil.copyfile(p, dst / f"copy-{r:02d}" / p.name)
    (dst / ".done").write_text(str(times))
    return dst


# ---------------------------------------------------------------- child runs
def build_lines(src: Path, dst: Path, words: int) -> int:
    """The first ``words`` words of the non-blank lines of ``src``'s .txt files (sorted), in one file."""
    if (dst / ".done").exists():
        return int((dst / ".done").read_text())
    picked, total = [], 0
    for p in sorted(src.rglob("*.txt")):
        for ln in p.read_text("utf-8").splitlines():
            if ln.strip() and total < words:
                picked.append(ln)
                total += len(ln.split())
    shutil.rmtree(dst, ignore_errors=True)
    dst.mkdir(parents=True)
    (dst / "part-00.txt").write_text("\n".join(picked) + "\n", "utf-8")
    (dst / ".done").write_text(str(total))
    return total


def _child(kind: str, workers: int, corpus: str, out: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    if kind in ("reference", "reference-fast"):
        from benchmarks.reference_counting import count_corpus

        tokens = count_corpus(corpus, out, workers, impl="fast" if kind == "reference-fast" else "nltk")
    else:
        from corpusbench.corpus.readers import CorpusSpec
        from corpusbench.corpus.stats import StatsParams, compute_stats

        tagger, _, plain = kind.partition("-")
        params = StatsParams(
            tagger=tagger,
            lang="de" if tagger == "hanta" else "en",
            workers=workers,
            fast=plain != "plain",
            shard_bytes=SHARD_BYTES.get(tagger, 1_000_000),
        )
        report = compute_stats(CorpusSpec(path=corpus), out, params)
        tokens = report.tokens
    return {"seconds": time.perf_counter() - t0, "tokens": tokens, "load_avg": os.getloadavg()[0]}


SHARD_BYTES = {"spacy": 100_000, "hanta": 100_000}  # small test corpora: enough shards for 2 workers


def run_measured(kind: str, workers: int, corpus: Path, out: Path) -> dict[str, Any]:
    """Run one configuration in a subprocess: wall time of the work (from the child), peak RSS of the
    process tree (sampled here every 50 ms) and CPU seconds of the tree (start-up included)."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.bench_stats",
        "--child",
        kind,
        "--workers",
        str(workers),
        "--corpus",
        str(corpus),
        "--child-out",
        str(out),
    ]
    return run_child(cmd, ROOT, f"benchmark run {kind} x{workers}")


# ---------------------------------------------------------------- agreement
def form_count_agreement(ref_out: Path, ours_out: Path) -> dict[str, float]:
    """Per-form token counts: reference vocabulary vs ``counts.parquet`` summed over tags."""
    import pandas as pd

    from benchmarks.reference_counting import load_counts

    _, ref = load_counts(ref_out)
    ours = pd.read_parquet(ours_out / "counts.parquet").groupby("form")["count"].sum().to_dict()
    forms = [f for f in ref.keys() | ours.keys() if "." not in f]  # the reference drops every '.'
    same = [f for f in forms if ref.get(f, 0) == ours.get(f, 0)]
    mass = sum(ref.get(f, 0) for f in forms)
    diff = sum(abs(ref.get(f, 0) - ours.get(f, 0)) for f in forms)
    return {
        "forms": len(forms),
        "forms_same_count_pct": 100 * len(same) / len(forms),
        "abs_count_difference_pct_of_tokens": 100 * diff / mass,
    }


def line_agreement(corpus: Path) -> dict[str, float]:
    """Per line: tokens equal up to '.'-tokens? Then same tags, same (form, collapsed POS) counts?"""
    from benchmarks.reference_counting import format_pos
    from corpusbench.corpus.fasttag import FastPerceptronTagger
    from corpusbench.corpus.tokenize import split_sentences, tokenize

    tagger = FastPerceptronTagger()
    lines = [ln for p in sorted(corpus.glob("*.txt")) for ln in p.read_text("utf-8").splitlines()]
    ref_sents, ours_sents, ref_span, ours_span = [], [], [], []
    for ln in lines:
        a = len(ref_sents)
        for piece in ln.replace("\t", " ").split("."):
            ref_sents.append([t for s in split_sentences(piece, "en") for t in tokenize(s, "en")])
        ref_span.append((a, len(ref_sents)))
        a = len(ours_sents)
        ours_sents += [tokenize(s, "en") for s in split_sentences(ln, "en")]
        ours_span.append((a, len(ours_sents)))
    ref_tags, ours_tags = tagger.tag_sents(ref_sents), tagger.tag_sents(ours_sents)
    n_lines = same_lines = tok_total = tok_same_tag = 0
    ref_c: Counter[tuple[str, str]] = Counter()
    ours_c: Counter[tuple[str, str]] = Counter()
    for (ra, rb), (oa, ob) in zip(ref_span, ours_span, strict=True):
        n_lines += 1
        r = [
            (w, t)
            for s, ts in zip(ref_sents[ra:rb], ref_tags[ra:rb], strict=True)
            for w, t in zip(s, ts, strict=True)
        ]
        o = [
            (w, t)
            for s, ts in zip(ours_sents[oa:ob], ours_tags[oa:ob], strict=True)
            for w, t in zip(s, ts, strict=True)
            if w.strip(".")
        ]
        if [w for w, _ in r] != [w for w, _ in o]:
            continue
        same_lines += 1
        tok_total += len(r)
        tok_same_tag += sum(x[1] == y[1] for x, y in zip(r, o, strict=True))
        ref_c.update((w.lower(), format_pos(t, w.lower())) for w, t in r)
        ours_c.update((w.lower(), format_pos(t, w.lower())) for w, t in o)
    keys = ref_c.keys() | ours_c.keys()
    return {
        "lines": n_lines,
        "lines_same_tokens_pct": 100 * same_lines / n_lines,
        "tokens_in_those_lines": tok_total,
        "same_ptb_tag_pct": 100 * tok_same_tag / max(tok_total, 1),
        "form_pos_keys_same_count_pct": 100 * sum(ref_c[k] == ours_c[k] for k in keys) / max(len(keys), 1),
        "form_pos_count_overlap_pct": 100 * sum(min(ref_c[k], ours_c[k]) for k in keys) / max(tok_total, 1),
    }


def same_reference_output(a: Path, b: Path) -> bool:
    from benchmarks.reference_counting import load_counts

    return load_counts(a) == load_counts(b)


# ---------------------------------------------------------------- report
def print_table(res: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 130))
    t = Table(title=f"corpus statistics: {res['corpus_words']:,} words, {res['files']} files")
    for col in (
        "run",
        "workers",
        "wall s",
        "words/s",
        "x reference",
        "x best ref",
        "CPU s",
        "x ref CPU",
        "peak RSS / PSS MiB",
        "load",
    ):
        t.add_column(col, justify="left" if col == "run" else "right")
    for r in res["runs"]:
        ratio = f"{r['x_reference']:.1f}" if r.get("x_reference") else "-"
        best = f"{r['x_reference_best']:.1f}" if r.get("x_reference_best") else "-"
        cpu_ratio = f"{r['x_reference_cpu']:.1f}" if r.get("x_reference_cpu") else "-"
        t.add_row(
            r["run"],
            str(r["workers"]),
            f"{r['seconds']:.1f}",
            f"{r['words_per_s']:,.0f}",
            ratio,
            best,
            f"{r['cpu_s']:.1f}",
            cpu_ratio,
            f"{r['peak_rss_mib']:.0f} / {r.get('peak_pss_mib', 0):.0f}",
            f"{r.get('load_avg', 0):.1f}",
        )
    if res["runs"]:
        console.print(t)
    if res.get("taggers"):
        g = Table(title="taggers: plain library path vs corpusbench's exact fast path")
        for col in (
            "run",
            "words",
            "workers",
            "wall s",
            "words/s",
            "x plain",
            "identical",
            "CPU s",
            "peak RSS / PSS MiB",
            "load",
        ):
            g.add_column(col, justify="left" if col == "run" else "right")
        for r in res["taggers"]:
            g.add_row(
                r["run"],
                f"{r['words']:,}",
                str(r["workers"]),
                f"{r['seconds']:.1f}",
                f"{r['words_per_s']:,.0f}",
                f"{r['x_plain']:.1f}",
                str(r["identical_to_plain"]),
                f"{r['cpu_s']:.1f}",
                f"{r['peak_rss_mib']:.0f} / {r.get('peak_pss_mib', 0):.0f}",
                f"{r.get('load_avg', 0):.1f}",
            )
        console.print(g)
    if res.get("scaling"):
        s = Table(title="scaling: corpusbench stats --tagger nltk")
        for col in (
            "words",
            "workers",
            "wall s",
            "words/s",
            "s per 1M words",
            "CPU s",
            "peak RSS / PSS MiB",
            "load",
        ):
            s.add_column(col, justify="right")
        for r in res["scaling"]:
            s.add_row(
                f"{r['words']:,}",
                str(r["workers"]),
                f"{r['seconds']:.1f}",
                f"{r['words_per_s']:,.0f}",
                f"{1e6 * r['seconds'] / r['words']:.2f}",
                f"{r['cpu_s']:.1f}",
                f"{r['peak_rss_mib']:.0f} / {r.get('peak_pss_mib', 0):.0f}",
                f"{r.get('load_avg', 0):.1f}",
            )
        console.print(s)
    for key in (
        "pyspellchecker",
        "load_avg_at_start",
        "load_avg_at_end",
        "reference_fast_identical",
        "nltk_workers_identical",
        "form_count_agreement",
        "line_agreement",
        "benchmark_seconds",
    ):
        if key in res:
            console.print(f"{key}: {res[key]}")


def _digest(out: Path) -> str:
    import hashlib

    return hashlib.sha256(
        b"".join((out / f).read_bytes() for f in ("counts.parquet", "contexts.parquet"))
    ).hexdigest()


def tagger_runs(args: argparse.Namespace, work: Path) -> list[dict[str, Any]]:
    """spaCy and HanTa: the plain library path (what ``stats`` did before) vs the fast path (1, 2 workers)."""
    runs = []
    corpora = {
        "spacy": (
            work / f"en-{args.spacy_words}",
            lambda d: build_lines(ROOT / "data" / "default", d, args.spacy_words),
        ),
        "hanta": (
            work / f"de-{args.hanta_words}",
            lambda d: build_lines(ROOT / "data" / "de", d, args.hanta_words),
        ),
    }
    for tagger, (corpus, build) in corpora.items():
        if tagger not in args.taggers.split(","):
            continue
        words = build(corpus)
        base = None
        digests = {}
        for kind, w in ((f"{tagger}-plain", 1), (tagger, 1), (tagger, 2)):
            print(f"running {kind} x{w} on {words:,} words ...", flush=True)
            out = work / f"out-{kind}-{w}"
            r = run_measured(kind, w, corpus, out)
            r.update(
                run=f"stats --tagger {tagger}" + (" (plain library)" if kind.endswith("plain") else ""),
                kind=kind,
                workers=w,
                words=words,
                words_per_s=words / r["seconds"],
            )
            base = base or r["words_per_s"]
            r["x_plain"] = r["words_per_s"] / base
            digests[(kind, w)] = _digest(out)
            runs.append(r)
        for r in runs[-3:]:
            r["identical_to_plain"] = digests[(r["kind"], r["workers"])] == digests[(f"{tagger}-plain", 1)]
    return runs


def spacy_tagging(corpus: Path, words: int, rounds: int = 3) -> dict[str, Any]:
    """spaCy tagging alone, in this process: the plain pipeline and the fast path (its caches
    emptied before each pass) alternated ``rounds`` times on the first ``words`` words of the
    corpus; best CPU seconds of each, and whether the outputs are identical."""
    from corpusbench.corpus.taggers import SpacyTagger

    lines: list[str] = []
    n = 0
    for path in sorted(corpus.glob("*.txt")):
        for ln in path.read_text("utf-8").splitlines():
            if ln.strip() and n < words:
                lines.append(ln)
                n += len(ln.split())
    fast, plain = SpacyTagger("en", fast=True), SpacyTagger("en", fast=False)
    cpu: dict[str, list[float]] = {"plain": [], "fast": []}
    outs: dict[str, Any] = {}
    for _ in range(rounds):
        for name, tg in (("plain", plain), ("fast", fast)):
            if name == "fast":
                tg._cache.clear()
                if tg._tokens is not None:
                    tg._tokens.cache.clear()
            t0 = time.process_time()
            out = [d for i in range(0, len(lines), 400) for d in tg.tag_texts(lines[i : i + 400])]
            cpu[name].append(time.process_time() - t0)
            outs.setdefault(name, out)
    best = {k: min(v) for k, v in cpu.items()}
    return {
        "words": n,
        "documents": len(lines),
        "cpu_s": cpu,
        "words_per_cpu_s": {k: n / v for k, v in best.items()},
        "x_plain_cpu": best["plain"] / best["fast"],
        "identical": outs["plain"] == outs["fast"],
        "load_avg": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--sections", default="reference,taggers,scale")
    ap.add_argument("--scale", default="1,10,100", help="corpus repetitions for the scaling runs ('' = none)")
    ap.add_argument("--scale-workers", default="1,2")
    ap.add_argument("--reference-workers", default="1,2", help="worker counts of the reference method")
    ap.add_argument("--taggers", default="spacy,hanta", help="taggers section: which taggers")
    ap.add_argument("--spacy-words", type=int, default=100_000)
    ap.add_argument("--hanta-words", type=int, default=100_000)
    ap.add_argument("--spacy-tagging-words", type=int, default=125_000, help="spacy-tagging section")
    ap.add_argument("--no-spacy", action="store_true", help="reference section: skip spaCy")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.workers, args.corpus, args.child_out)))
        return
    sections = set(args.sections.split(","))
    work = args.out / "work"
    corpus = work / f"corpus-{args.words}"
    n_words = build_corpus(ROOT / "data" / "default", corpus, args.words, args.files)
    from benchmarks.reference_counting import spellchecker_available

    res: dict[str, Any] = {
        "corpus_words": n_words,
        "files": args.files,
        "cpu_count": os.cpu_count(),
        "load_avg_at_start": os.getloadavg(),
        "pyspellchecker": spellchecker_available(),
        "runs": [],
    }
    t_start = time.perf_counter()
    if "taggers" in sections:
        res["taggers"] = tagger_runs(args, work)
        save_result(args.out / "bench_stats.json", res)
    if "spacy-tagging" in sections:
        print(f"spaCy tagging alone, plain vs fast, {args.spacy_tagging_words:,} words ...", flush=True)
        res["spacy_tagging"] = r = spacy_tagging(corpus, args.spacy_tagging_words)
        print(json.dumps(r, indent=1), flush=True)
        save_result(args.out / "bench_stats.json", res)
    if "reference" in sections:
        ref_workers = [int(x) for x in args.reference_workers.split(",")]
        plan = [("reference", "reference (word_tokenize+pos_tag)", w) for w in ref_workers]
        plan += [("reference-fast", "reference method, corpusbench tokenizer+tagger", ref_workers[0])]
        plan += [("nltk", "corpusbench stats --tagger nltk", w) for w in (1, 2)]
        ref_speed: dict[int, float] = {}
        ref_cpu: dict[int, float] = {}
        for kind, label, w in plan:
            print(f"running {label} x{w} ...", flush=True)
            r = run_measured(kind, w, corpus, work / f"out-{kind}-{w}")
            r.update(run=label, kind=kind, workers=w, words_per_s=n_words / r["seconds"])
            if kind == "reference":
                ref_speed[w] = r["words_per_s"]
                ref_cpu[w] = r["cpu_s"]
            if ref_speed:
                best = max(ref_speed.values())
                r["x_reference"] = r["words_per_s"] / ref_speed.get(w, best)
                r["x_reference_best"] = r["words_per_s"] / best
                r["x_reference_cpu"] = ref_cpu.get(w, min(ref_cpu.values())) / r["cpu_s"]
            res["runs"].append(r)
            save_result(args.out / "bench_stats.json", res)  # partial results survive an interrupted run
        w0 = ref_workers[0]
        res["reference_fast_identical"] = same_reference_output(
            work / f"out-reference-{w0}", work / f"out-reference-fast-{w0}"
        )
        res["nltk_workers_identical"] = _digest(work / "out-nltk-1") == _digest(work / "out-nltk-2")
        res["form_count_agreement"] = form_count_agreement(work / f"out-reference-{w0}", work / "out-nltk-1")
        res["line_agreement"] = line_agreement(corpus)
    res["scaling"] = []
    if "scale" in sections:
        for k in [int(x) for x in args.scale.split(",") if x.strip()]:
            rep = corpus if k == 1 else repeat_corpus(corpus, work / f"corpus-{args.words}-x{k}", k)
            for w in [int(x) for x in args.scale_workers.split(",")]:
                print(f"scaling x{k}, {w} workers ...", flush=True)
                r = run_measured("nltk", w, rep, work / "out-scale")
                r.update(words=n_words * k, workers=w, words_per_s=n_words * k / r["seconds"])
                res["scaling"].append(r)
                save_result(args.out / "bench_stats.json", res)
    res["load_avg_at_end"] = os.getloadavg()
    res["benchmark_seconds"] = time.perf_counter() - t_start
    save_result(args.out / "bench_stats.json", res)
    print_table(res)


if __name__ == "__main__":
    main()
