"""Model-folder fingerprint at ``eval run``: every file hashed (baseline) vs large files' digests remembered
by stat (``provenance.file_sha256_cached``, the default).

``python -m benchmarks.bench_model_hash [--model DIR] [--repeats 3]`` fingerprints a local model folder
(default: the biggest of ``models/``) with an empty digest cache (a first ``eval run``: every file read and
hashed, as before the cache), then with the cache filled (every later ``eval run`` of the same files), in
one process, and checks both give the same fingerprint. The OS page cache holds the files in both, so the
baseline is hashing time, not disk time. Writes ``benchmarks/results/bench_model_hash.json``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.measure import RESULTS, ROOT, save_result
from corpusbench.eval.models import local_fingerprint


def _biggest_model() -> Path:
    folders = [p for p in (ROOT / "models").iterdir() if (p / "config.json").is_file()]
    if not folders:
        raise SystemExit("no model folder under models/: run `make model`")
    return max(folders, key=lambda p: sum(f.stat().st_size for f in p.iterdir() if f.is_file()))


def _time(folder: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    fp = local_fingerprint(folder)
    return time.perf_counter() - t0, fp


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    folder = args.model or _biggest_model()
    size = sum(f.stat().st_size for f in folder.iterdir() if f.is_file())
    cold, warm, prints = [], [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            os.environ["CORPUSBENCH_HASH_CACHE"] = str(Path(tmp) / f"empty-{i}")
            s, fp = _time(folder)  # empty cache: every file hashed (the baseline)
            cold.append(s)
            prints.add(fp)
            s, fp = _time(folder)  # same cache, now filled
            warm.append(s)
            prints.add(fp)
    os.environ.pop("CORPUSBENCH_HASH_CACHE", None)
    if len(prints) != 1:
        raise SystemExit(f"fingerprints differ between cold and cached runs: {sorted(prints)}")
    c, w = statistics.median(cold), statistics.median(warm)
    print(
        f"{folder.name} ({size / 2**30:.2f} GiB): fingerprint every file {c:.2f} s, cached {w * 1000:.1f} ms "
        f"({c / w:,.0f}x; median of {args.repeats})"
    )
    save_result(
        RESULTS / "bench_model_hash.json",
        {
            "model_folder": folder.name,
            "bytes": size,
            "baseline_hash_every_file_s": cold,
            "cached_s": warm,
            "ratio_median": c / w,
            "fingerprint": prints.pop(),
        },
    )


if __name__ == "__main__":
    main()
