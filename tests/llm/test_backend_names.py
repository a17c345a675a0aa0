"""One set of LLM backend names for every command (`--llm-backend`); the old vllm and hf are gone."""

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ConfigError
from corpusbench.llm.api import BACKEND_NAMES, DEFAULT_BACKEND, backend_class, canonical_backend


def test_names_and_default():
    assert set(BACKEND_NAMES) == {"vllm-server", "vllm-engine", "transformers", "openai", "ray"}
    assert DEFAULT_BACKEND == "vllm-server"
    assert backend_class("vllm-server").name == "openai" and backend_class("vllm-engine").name == "vllm"


@pytest.mark.parametrize("old", ["vllm", "hf"])
def test_the_old_spellings_are_gone(old):
    with pytest.raises(ConfigError, match="unknown LLM backend"):
        canonical_backend(old)


def test_unknown_backend_names_the_known_ones():
    with pytest.raises(ConfigError, match="vllm-server, vllm-engine"):
        canonical_backend("vllm-srv")


def test_commands_share_the_names_in_their_help():
    for cmd in (["llm", "generate", "--help"], ["ltswap", "build", "--help"], ["ltswap", "judge", "--help"]):
        r = CliRunner().invoke(app, cmd, env={"COLUMNS": "200"})
        assert r.exit_code == 0 and "vllm-server" in r.output and "vllm-engine" in r.output, cmd


def test_llm_command_names_the_known_backends(tmp_path):
    r = CliRunner().invoke(
        app,
        [
            "llm",
            "generate",
            "hi",
            "--llm-backend",
            "hf",
            "--llm-model",
            str(tmp_path / "nope"),
            "--no-llm-cache",
        ],
    )
    assert r.exit_code == 2 and "unknown LLM backend 'hf'" in r.output and "transformers" in r.output
