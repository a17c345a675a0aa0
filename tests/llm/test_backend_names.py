"""One set of LLM backend names for every command; old spellings are deprecated aliases that still work."""

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ConfigError
from corpusbench.llm.api import BACKEND_NAMES, DEFAULT_BACKEND, backend_class, canonical_backend


def test_names_and_default():
    assert set(BACKEND_NAMES) == {"vllm-server", "vllm-engine", "transformers", "openai", "ray"}
    assert DEFAULT_BACKEND == "vllm-server"
    assert backend_class("vllm-server").name == "openai" and backend_class("vllm-engine").name == "vllm"


@pytest.mark.parametrize(("old", "new"), [("vllm", "vllm-engine"), ("hf", "transformers")])
def test_old_spellings_map_with_a_warning(old, new, capsys):
    assert canonical_backend(old) == new
    assert "deprecated" in capsys.readouterr().err


def test_unknown_backend_names_the_known_ones():
    with pytest.raises(ConfigError, match="vllm-server, vllm-engine"):
        canonical_backend("vllm-srv")


def test_commands_share_the_names_in_their_help():
    for cmd in (["llm", "generate", "--help"], ["ltswap", "build", "--help"], ["ltswap", "judge", "--help"]):
        r = CliRunner().invoke(app, cmd, env={"COLUMNS": "200"})
        assert r.exit_code == 0 and "vllm-server" in r.output and "vllm-engine" in r.output, cmd


def test_llm_command_accepts_the_deprecated_alias(tmp_path):
    # `--backend hf` still works (deprecated): it reaches the transformers backend, which names the bad model
    r = CliRunner().invoke(
        app, ["llm", "generate", "hi", "--backend", "hf", "--model", str(tmp_path / "nope"), "--no-cache"]
    )
    assert "deprecated" in r.output and "--backend transformers" in r.output
    assert r.exit_code != 0 and "nope" in r.output
