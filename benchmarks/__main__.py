"""Run every ``benchmarks/bench_*.py`` module's ``main()`` in turn (``python -m benchmarks [NAME ...]``).

``NAME`` (e.g. ``stats`` for ``bench_stats``) limits the run to those modules. Each benchmark runs
with its defaults; run a module directly (``python -m benchmarks.bench_stats --words 200000``) to
pass options. Exits non-zero when any benchmark failed (the others still run).
"""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    wanted = set(sys.argv[1:] if argv is None else argv)
    failed = []
    for path in sorted(Path(__file__).parent.glob("bench_*.py")):
        if wanted and path.stem.removeprefix("bench_") not in wanted and path.stem not in wanted:
            continue
        name = f"benchmarks.{path.stem}"
        print(f"== {name}", flush=True)
        try:
            bench_main = importlib.import_module(name).main
            bench_main([]) if inspect.signature(bench_main).parameters else bench_main()
        except Exception:  # report it and go on with the other benchmarks
            traceback.print_exc()
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
