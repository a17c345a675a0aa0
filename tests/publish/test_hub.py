"""push + tag + load round trips through the real huggingface_hub / datasets / lm-eval clients over HTTP,
against the local Hub stand-in (tests/hubserver). Clients run in subprocesses with HF_ENDPOINT set."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest
import yaml
from conftest import TOKEN, run_cli, write_spec

from corpusbench.publish.build import build_release
from corpusbench.publish.hub import release_files
from corpusbench.publish.spec import ReleaseSpec

pytestmark = pytest.mark.slow

CLIENT_SCRIPT = textwrap.dedent("""
    import json, sys
    import datasets
    from huggingface_hub import snapshot_download
    from lm_eval.tasks import TaskManager
    from corpusbench.publish.tables import content_fingerprint
    repo, tag, configs = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    out = {"fingerprints": {}, "lm_eval_docs": {}}
    for name in configs:
        ds = datasets.load_dataset(repo, name, revision=tag, split="test")
        out["fingerprints"][name] = content_fingerprint(ds.data.table)
    local = snapshot_download(repo, repo_type="dataset", revision=tag, allow_patterns=["lm_eval/*"],
                              local_dir=sys.argv[5])  # as the card says: hf download ... --local-dir tasks
    loaded = TaskManager(include_path=local + "/lm_eval", include_defaults=False).load([sys.argv[4]])
    for task_name, task in loaded["tasks"].items():
        out["lm_eval_docs"][task_name] = len(list(task.test_docs()))
    print("RESULT " + json.dumps(out))
""")


def repo(hub, repo_id: str):
    return hub.state.repos.get(("dataset", repo_id))


def fingerprints(build: Path) -> dict[str, str]:
    return {
        c["name"]: c["content_fingerprint"]
        for c in json.loads((build / "provenance.json").read_text())["configs"]
    }


def assert_no_token(*texts: str) -> None:
    for text in texts:
        assert TOKEN not in text


@pytest.fixture(scope="module")
def published(hub, built: Path, tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """The fixture release pushed once to tester/test-pairs (its spec's repo id)."""
    pushed = run_cli(
        "release", "push", str(built), env=hub.client_env(tmp_path_factory.mktemp("hf"), token=TOKEN)
    )
    assert pushed.returncode == 0, pushed.stderr
    return pushed


def test_push_tag_and_round_trip(hub, hub_env, built: Path, published, tmp_path: Path) -> None:
    pushed = published
    assert 'load_dataset("tester/test-pairs", "agreement", revision="v0.1.0", split="test")' in " ".join(
        pushed.stdout.split()
    )
    r = repo(hub, "tester/test-pairs")
    assert len(r.commits) == 2  # the initial commit + exactly one release commit
    commit = r.commits[r.tags["v0.1.0"]]
    assert r.branches["main"] == commit.sha
    assert set(commit.files) == set(release_files(built)) | {".gitattributes"}
    for path, blob in commit.files.items():
        if path != ".gitattributes":
            assert blob.data == (built / path).read_bytes()
        assert blob.lfs == path.endswith(".parquet")
        assert TOKEN.encode() not in blob.data

    checked = run_cli("release", "check", "tester/test-pairs", "--revision", "v0.1.0", env=hub_env)
    assert checked.returncode == 0, checked.stderr
    against_build = run_cli(
        "release", "check", "tester/test-pairs", "-r", "v0.1.0", "--build", str(built), env=hub_env
    )
    assert against_build.returncode == 0, against_build.stderr
    assert_no_token(pushed.stdout, pushed.stderr, checked.stdout, checked.stderr)
    for path in built.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes()

    expected = fingerprints(built)
    client = subprocess.run(
        [
            sys.executable,
            "-c",
            CLIENT_SCRIPT,
            "tester/test-pairs",
            "v0.1.0",
            ",".join(expected),
            "test_pairs",
            str(tmp_path / "tasks"),
        ],
        env=hub_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert client.returncode == 0, client.stderr[-2000:]
    result = json.loads(client.stdout.split("RESULT ", 1)[1])
    assert result["fingerprints"] == expected
    rows = {c: n for c, n in (("agreement", 4), ("anaphora", 3), ("determiners", 3))}
    assert result["lm_eval_docs"] == {f"test_pairs_{c}": n for c, n in rows.items()}
    assert not [u for u in hub.state.unhandled if "agent-harnesses" not in u[1]]


def test_existing_tag_is_refused(hub, hub_env, built: Path, published) -> None:
    r = repo(hub, "tester/test-pairs")
    commits, main = len(r.commits), r.branches["main"]
    again = run_cli("release", "push", str(built), env=hub_env)
    assert again.returncode == 4
    assert "tag v0.1.0 already exists" in again.stderr and "bump `version`" in again.stderr
    assert len(r.commits) == commits and r.branches["main"] == main


def test_dry_run_contacts_no_server(hub, hub_env, built: Path) -> None:
    before = len(hub.state.requests)
    dry = run_cli("release", "push", str(built), "--repo-id", "tester/dry-run", "--dry-run", env=hub_env)
    assert dry.returncode == 0, dry.stderr
    assert "data/agreement/test-00000-of-00001.parquet" in dry.stdout and "tester/dry-run" in dry.stdout
    assert len(hub.state.requests) == before
    assert repo(hub, "tester/dry-run") is None


def test_retargeted_private_push_rewrites_repo_specific_files(hub, hub_env, built: Path) -> None:
    before = (built / "README.md").read_text()
    pushed = run_cli("release", "push", str(built), "--repo-id", "tester/renamed", "--private", env=hub_env)
    assert pushed.returncode == 0, pushed.stderr
    r = repo(hub, "tester/renamed")
    assert r.private
    files = r.commits[r.tags["v0.1.0"]].files
    assert 'load_dataset("tester/renamed"' in files["README.md"].data.decode()
    assert yaml.safe_load(files["lm_eval/test_pairs/_template_yaml"].data)["dataset_path"] == "tester/renamed"
    assert json.loads(files["provenance.json"].data)["release"]["repo_id"] == "tester/renamed"
    assert (
        files["data/agreement/test-00000-of-00001.parquet"].data
        == (built / "data/agreement/test-00000-of-00001.parquet").read_bytes()
    )
    assert (built / "README.md").read_text() == before  # the build folder itself is untouched
    anonymous = httpx.get(f"{hub.endpoint}/api/datasets/tester/renamed")
    assert anonymous.status_code == 404 and anonymous.headers["X-Error-Code"] == "RepoNotFound"
    checked = run_cli(
        "release", "check", "tester/renamed", "-r", "v0.1.0", "--build", str(built), env=hub_env
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_next_version_replaces_data_and_old_tag_still_loads(
    hub, hub_env, built: Path, tmp_path: Path
) -> None:
    first = run_cli("release", "push", str(built), "--repo-id", "tester/versions", env=hub_env)
    assert first.returncode == 0, first.stderr
    spec = ReleaseSpec.load(
        write_spec(tmp_path), overrides={"version": "0.2.0", "families.fixture.params.config_prefix": "v2-"}
    )
    v2 = build_release(spec, tmp_path / "build").path
    second = run_cli("release", "push", str(v2), "--repo-id", "tester/versions", env=hub_env)
    assert second.returncode == 0, second.stderr
    r = repo(hub, "tester/versions")
    main = r.commits[r.branches["main"]].files
    assert "data/v2-agreement/test-00000-of-00001.parquet" in main
    assert not any(p.startswith("data/agreement/") or p == "babylm/agreement.jsonl" for p in main)
    assert "data/agreement/test-00000-of-00001.parquet" in r.commits[r.tags["v0.1.0"]].files
    assert r.tags["v0.2.0"] == r.branches["main"] != r.tags["v0.1.0"]
    old = run_cli(
        "release", "check", "tester/versions", "-r", "v0.1.0", env=hub_env
    )  # v0.2.0 was checked by push
    assert old.returncode == 0, old.stdout + old.stderr


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("commit", "Hub request failed (HTTP 500)"),
        ("swap-lfs", "pushed data does not round-trip"),
    ],
)
def test_failed_push_leaves_no_tag(hub, hub_env, built: Path, fault: str, message: str) -> None:
    repo_id = f"tester/fault-{fault}"
    hub.state.faults.add(fault)
    try:
        failed = run_cli("release", "push", str(built), "--repo-id", repo_id, env=hub_env)
    finally:
        hub.state.faults.discard(fault)
    assert failed.returncode == 3, failed.stdout + failed.stderr
    assert message in " ".join(failed.stderr.split())
    assert repo(hub, repo_id).tags == {}
    assert_no_token(failed.stdout, failed.stderr)


def test_offline_or_unreachable_hub_is_one_clear_line(hub_env, built: Path) -> None:
    offline = run_cli("release", "push", str(built), env={**hub_env, "HF_HUB_OFFLINE": "1"})
    assert offline.returncode == 3 and "HF_HUB_OFFLINE is set" in offline.stderr
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens on this port now
    down = run_cli("release", "push", str(built), env={**hub_env, "HF_ENDPOINT": f"http://127.0.0.1:{port}"})
    assert down.returncode == 3, down.stderr
    assert f"cannot reach the Hub at http://127.0.0.1:{port}" in down.stderr
    assert "Traceback" not in down.stderr
    assert_no_token(offline.stderr, down.stderr)
