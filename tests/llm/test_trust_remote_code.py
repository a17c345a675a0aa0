"""A model folder's own code runs only with --trust-remote-code (issue #42 item 4): a tiny folder whose
config.json maps AutoConfig to a .py that writes a marker file when imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def custom_folder(tmp_path) -> tuple[Path, Path]:
    """(model folder, the marker file its code writes when it runs)."""
    folder, marker = tmp_path / "custom-model", tmp_path / "MARKER"
    folder.mkdir()
    config = {
        "model_type": "corpusbench-marker",
        "architectures": ["MarkerModel"],
        "auto_map": {"AutoConfig": "marker.MarkerConfig", "AutoModelForCausalLM": "marker.MarkerModel"},
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "marker.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('the folder code ran')\n"
        "from transformers import PretrainedConfig\n\n\n"
        "class MarkerConfig(PretrainedConfig):\n    model_type = 'corpusbench-marker'\n"
    )
    return folder, marker


def test_a_custom_code_folder_is_refused_in_one_line_and_nothing_runs(custom_folder) -> None:
    folder, marker = custom_folder
    r = CliRunner().invoke(  # "y" on stdin: there must be no question to answer
        app,
        [
            "llm",
            "generate",
            "hi",
            "--llm-backend",
            "transformers",
            "--llm-model",
            str(folder),
            "--no-llm-cache",
        ],
        input="y\n",
    )
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and "[y/N]" not in r.output
    [line] = [x for x in r.output.splitlines() if x.startswith("error:")]
    assert "ships its own Python code" in line and "--trust-remote-code" in line
    assert not marker.exists()
    from corpusbench.llm.transformers_backend import TransformersBackend

    with pytest.raises(ConfigError, match="--trust-remote-code"):
        TransformersBackend(str(folder))  # the default of the backend itself
    assert not marker.exists()


def test_trust_remote_code_runs_the_folder_code(custom_folder, tmp_path) -> None:
    """The flag does what it says (so the marker shows what the refusal prevents); a fresh process with
    its own module cache, so the code copied there does not outlive the test."""
    folder, marker = custom_folder
    cmd = [sys.executable, "-m", "corpusbench", "llm", "generate", "hi", "--llm-backend", "transformers",
           "--llm-model", str(folder), "--no-llm-cache", "--trust-remote-code"]  # fmt: skip
    env = {**os.environ, "HF_MODULES_CACHE": str(tmp_path / "modules"), "HF_HUB_OFFLINE": "1"}
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert marker.read_text() == "the folder code ran", r.stdout + r.stderr
    assert r.returncode == 2 and "cannot load model" in r.stdout + r.stderr  # no weights: refused after
