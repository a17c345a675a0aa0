"""A SIGKILLed parent leaves nothing of the vLLM server it started (``VLLMServer``, as ``ltswap build``
uses it): no process of the server's tree and no /dev/shm/psm_* segment. One server start."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from orphans import ROOT, kill_and_check, leaked_segments, mapped_segments, psm_segments, tree_of, wait_until

pytestmark = pytest.mark.slow

PARENT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from corpusbench.llm.server import ServerSpec, VLLMServer, free_port
    spec = ServerSpec(model=sys.argv[1], port=free_port(), python=sys.argv[2])
    with VLLMServer(spec, sys.argv[3]):
        Path(sys.argv[4]).touch()
        time.sleep(900)
    """
)


def test_sigkilled_parent_leaves_no_server_process_or_shm(model_dir, vllm_py, tmp_path) -> None:
    ready, log = tmp_path / "ready", tmp_path / "server.log"
    before = psm_segments()
    cmd = [sys.executable, "-c", PARENT, str(model_dir), str(vllm_py), str(log), str(ready)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(ready.exists, 600, "a healthy server", proc)
        tree = tree_of(proc, 2, 60, "the server's processes")  # API server, engine core (+ guard)
        mapped = mapped_segments(tree)
        kill_and_check(proc, signal.SIGKILL, tree)
    finally:
        proc.kill()
    assert not mapped & psm_segments(), "the server's shared memory was left behind"
    assert not leaked_segments(before), "new /dev/shm/psm_* segments that no process maps"
