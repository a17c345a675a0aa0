"""Run the local Hub stand-in (a test double, in memory).

- ``python -m tests.hubserver -- CMD ARGS...``: a fresh stand-in on a free port; CMD runs with
  HF_ENDPOINT/HF_TOKEN/HF_HUB_DISABLE_XET set (and the offline switches removed), then the stand-in
  stops and the command's exit code is returned. Used by ``make demo`` to show a push without a real Hub.
- ``python -m tests.hubserver --port 8765 --push BUILD_DIR --repo-id ORG/NAME [--config NAME]``
  (``make hub``): the stand-in on a fixed port, the release build folder on disk pushed into it (so it
  serves the demo's repo at its tag), a working ``load_dataset`` line printed, then it serves until
  interrupted (Ctrl-C).
- With no command and no ``--push``, it serves an empty hub until interrupted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import HubServer, load_line


def _serve_forever() -> int:
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0


def main(argv: list[str]) -> int:
    cmd = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(prog="python -m tests.hubserver")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--push", type=Path, help="a release build folder to push at start")
    parser.add_argument("--repo-id", help="repo id for --push (default: the build's repo_id)")
    parser.add_argument("--config", help="config named in the printed load_dataset line (default: first)")
    args = parser.parse_args(own)
    with HubServer(port=args.port) as hub, tempfile.TemporaryDirectory(prefix="hub-standin-") as cache:
        print(f"Hub stand-in (test double, in memory) at {hub.endpoint}", file=sys.stderr, flush=True)
        if cmd:
            return subprocess.run(cmd, env=hub.client_env(cache), check=False).returncode
        if args.push is not None:
            prov = json.loads((args.push / "provenance.json").read_text(encoding="utf-8"))
            repo = args.repo_id or prov["release"]["repo_id"]
            push = [sys.executable, "-m", "corpusbench", "release", "push", str(args.push), "--repo-id", repo]
            done = subprocess.run(
                push, env=hub.client_env(cache), check=False, capture_output=True, text=True
            )
            if done.returncode != 0:
                print(done.stdout + done.stderr, file=sys.stderr)
                return done.returncode
            config = args.config or prov["configs"][0]["name"]
            tag = prov["release"]["tag"]
            print(f"serving {repo} {tag} (from {args.push}) until Ctrl-C; in another shell:", flush=True)
            python = Path(sys.executable)
            if python.is_relative_to(Path.cwd()):
                python = python.relative_to(Path.cwd())
            print(load_line(hub.endpoint, repo, config, tag, str(python)), flush=True)
        return _serve_forever()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
