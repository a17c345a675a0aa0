"""`corpusbench stats ORG/NAME` streams a Hub dataset through `datasets.load_dataset(..., streaming=True)`.

The Hub cannot be reached from tests, so a local Hub-compatible stand-in (tests/hubserver) serves the
dataset over HTTP; the real `datasets`/`huggingface_hub` clients talk to it.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from hubserver import HubServer  # noqa: E402


def _run(args, env):
    return subprocess.run(
        [sys.executable, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TESTS.parent,
        check=False,
    )


@pytest.mark.slow
def test_stats_on_a_hub_dataset_matches_the_local_file(tmp_path, data_dir):
    verses = [v for v in (data_dir / "genesis_40.txt").read_text().splitlines() if v.strip()]
    with HubServer() as hub:
        env = hub.client_env(tmp_path / "hf-cache", token="hf_dummy")
        push = (
            "import datasets, sys, json; "
            "datasets.Dataset.from_dict({'text': json.loads(sys.argv[1])}).push_to_hub('tester/genesis')"
        )
        r = _run(["-c", push, json.dumps(verses)], env)
        assert r.returncode == 0, r.stderr[-2000:]
        r = _run(["-m", "corpusbench", "stats", "tester/genesis", "--out", str(tmp_path / "hub")], env)
        assert r.returncode == 0, r.stderr[-2000:]
        r = _run(["-m", "corpusbench", "stats", "tester/missing", "--out", str(tmp_path / "missing")], env)
        assert r.returncode == 2 and "tester/missing: cannot load Hub dataset" in r.stderr
        assert not (tmp_path / "missing").exists()
    local = _run(
        ["-m", "corpusbench", "stats", str(data_dir / "genesis_40.txt"), "--out", str(tmp_path / "local")],
        env,
    )
    assert local.returncode == 0
    for table in ("counts.parquet", "forms.parquet", "contexts.parquet"):
        assert (tmp_path / "hub" / table).read_bytes() == (tmp_path / "local" / table).read_bytes()
    manifest = json.loads((tmp_path / "hub" / "manifest.json").read_text())
    assert manifest["corpus"]["reader"] == "hub" and manifest["corpus"]["fingerprint"]["n_documents"] == 40
