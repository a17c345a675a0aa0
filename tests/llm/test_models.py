"""Unknown model names fail early with one clear line, for every local backend."""

from __future__ import annotations

import pytest

from corpusbench.errors import ConfigError
from corpusbench.llm.server import ServerSpec, VLLMServer, check_model, served_name


def test_check_model_accepts_folders_and_hub_ids(model_dir) -> None:
    check_model(str(model_dir))
    check_model("meta-llama/Llama-3.1-8B-Instruct")
    assert served_name(str(model_dir)) == "smollm2-135m-instruct"
    assert served_name("meta-llama/Llama-3.1-8B-Instruct") == "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize("name", ["./models/nope", "/no/such/folder", "llama", "a/b/c"])
def test_check_model_rejects_unknown(name: str) -> None:
    with pytest.raises(ConfigError, match=f"unknown model '{name}'"):
        check_model(name)


def test_folder_without_config_is_rejected(tmp_path) -> None:
    with pytest.raises(ConfigError, match=r"no config\.json"):
        check_model(str(tmp_path))


def test_transformers_unknown_hub_id_offline(monkeypatch) -> None:
    from corpusbench.llm.transformers_backend import TransformersBackend

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="unknown model 'no-such-org/no-such-model'"):
        TransformersBackend("no-such-org/no-such-model")


def test_vllm_backends_reject_unknown_models_before_starting_anything() -> None:
    from corpusbench.llm.vllm_backend import VLLMBackend

    with pytest.raises(ConfigError, match="unknown model"):
        VLLMBackend("./models/missing-model")
    with pytest.raises(ConfigError, match="unknown model"):
        VLLMServer(ServerSpec(model="missing-model"), "unused.log")
