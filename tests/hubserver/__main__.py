"""Run a command against a fresh Hub stand-in: ``python -m tests.hubserver -- CMD ARGS...``.

The stand-in starts on a free port, CMD runs with HF_ENDPOINT/HF_TOKEN/HF_HUB_DISABLE_XET set (and the
offline switches removed), then the stand-in stops and the command's exit code is returned. Used by
``make demo`` to show a push without a real Hub. With no command, it serves until interrupted.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time

from . import HubServer


def main(argv: list[str]) -> int:
    cmd = argv[argv.index("--") + 1 :] if "--" in argv else []
    with HubServer() as hub, tempfile.TemporaryDirectory(prefix="hub-standin-") as cache:
        print(f"Hub stand-in (test double, in memory) at {hub.endpoint}", file=sys.stderr, flush=True)
        if not cmd:
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return 0
        return subprocess.run(cmd, env=hub.client_env(cache), check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
