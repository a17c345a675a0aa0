"""Your own release, loaded as the docs say (#32 item 5): the build folder with ``load_dataset(FOLDER,
CONFIG)``, and any build folder served by the local Hub stand-in with ``make hub RELEASE=...``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, spec_dict

from corpusbench.llm.api import DEFAULT_BACKEND
from corpusbench.publish import tables
from corpusbench.publish.spec import ReleaseSpec


def _configs(built: Path) -> list[dict]:
    return json.loads((built / "provenance.json").read_text(encoding="utf-8"))["configs"]


def test_card_and_docs_show_the_local_folder_form(built: Path) -> None:
    first = _configs(built)[0]["name"]
    card = (built / "README.md").read_text(encoding="utf-8")
    assert f'load_dataset("PATH/TO/THIS/FOLDER", "{first}", split="test")' in card
    for page in ("docs/release-spec.md", "docs/python-api.md"):
        assert 'load_dataset("releases/build/' in (ROOT / page).read_text(encoding="utf-8"), page


def test_load_dataset_on_the_build_folder(built: Path) -> None:
    import datasets

    first = _configs(built)[0]
    ds = datasets.load_dataset(str(built), first["name"], split="test")
    assert ds.num_rows == first["rows"] > 0
    assert tables.content_fingerprint(ds.data.table) == first["content_fingerprint"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_make_hub_serves_any_release(built: Path, tmp_path: Path) -> None:
    """`make hub RELEASE=FOLDER` pushes that folder (not the demo's) and its printed line loads it."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env["HF_HOME"] = str(tmp_path / "hf-home")
    args = [f"RELEASE={built}", f"HUB_PORT={_free_port()}", "REPO_ID=me/mine", f"PY={sys.executable}"]
    # -o: never (re)run setup for the stamp; the test runs inside the set-up venv
    cmd = ["make", "--no-print-directory", "-o", ".venv/.stamp", "hub", *args]
    serve = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        assert serve.stdout is not None
        lines: list[str] = []
        while not (lines and lines[-1].startswith("serving")):
            line = serve.stdout.readline()
            assert line, f"make hub ended early: {lines}"
            lines.append(line)
        assert lines[-1].startswith(f"serving me/mine v0.1.0 (from {built})"), lines
        load = serve.stdout.readline().strip()
        assert f'"{_configs(built)[0]["name"]}"' in load
        done = subprocess.run(
            load, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"num_rows: {_configs(built)[0]['rows']}" in done.stdout
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)


def test_make_hub_names_a_folder_that_is_no_release(tmp_path: Path) -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.stamp", "hub", f"RELEASE={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert f"RELEASE={tmp_path}: no provenance.json there" in done.stdout


def test_spec_llm_backend_defaults_to_the_cli_default(tmp_path: Path) -> None:
    """docs/release-spec.md and every command agree: an `llm` block without `backend` is vllm-server."""
    data = spec_dict(llm={"model": "some/model"})
    spec = ReleaseSpec.from_dict(data, source=tmp_path / "spec.yaml")
    assert spec.llm is not None and spec.llm.backend == DEFAULT_BACKEND == "vllm-server"
    doc = (ROOT / "docs" / "release-spec.md").read_text(encoding="utf-8")
    assert f"| `llm.backend` | no | `{DEFAULT_BACKEND}` |" in doc
