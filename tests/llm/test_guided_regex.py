"""Guided decoding (``GenRequest.regex``): sent as vLLM's ``structured_outputs``, part of the cache key
only when set, and refused in one line by a backend that cannot constrain decoding."""

from __future__ import annotations

import pytest
from fake_openai_server import FakeOpenAI

from corpusbench.errors import ConfigError
from corpusbench.llm import CachedLLM, GenRequest
from corpusbench.llm.cache import gen_key
from corpusbench.llm.openai_backend import OpenAIBackend
from corpusbench.llm.scripted import ScriptedBackend


def test_openai_backend_sends_the_regex_as_structured_outputs() -> None:
    with FakeOpenAI(model="m") as fake:
        backend = OpenAIBackend(fake.url)
        assert backend.guided_regex
        backend.generate([GenRequest(id="a", prompt="p", regex="(A|B)x[.]"), GenRequest(id="b", prompt="q")])
        by_prompt = {b["messages"][-1]["content"]: b for b in fake.bodies}
        assert by_prompt["p"]["structured_outputs"] == {"regex": "(A|B)x[.]"}
        assert "structured_outputs" not in by_prompt["q"]


def test_plain_openai_server_cannot_guide() -> None:
    with FakeOpenAI(model="m") as fake:
        assert not OpenAIBackend(fake.url, vllm_extensions=False).guided_regex


def test_regex_is_in_the_key_only_when_set() -> None:
    plain = GenRequest(id="x", prompt="p")
    assert gen_key("m", plain) == gen_key("m", GenRequest(id="y", prompt="p", regex=None))
    guided = {gen_key("m", GenRequest(id="x", prompt="p", regex=r)) for r in ("a[.]", "b[.]")}
    assert len(guided) == 2 and gen_key("m", plain) not in guided


class _NoGuide(ScriptedBackend):
    name = "noguide"
    guided_regex = False


def test_backend_without_guided_decoding_refuses_before_any_call() -> None:
    backend = _NoGuide(default="ok")
    llm = CachedLLM(backend, None)
    with pytest.raises(ConfigError, match="noguide LLM backend cannot constrain decoding") as e:
        llm.generate([GenRequest(id="x", prompt="p", regex="a")])
    assert "\n" not in str(e.value) and backend.calls == []
    assert llm.generate([GenRequest(id="x", prompt="p")])[0].text == "ok"  # unguided requests still work


def test_every_local_backend_says_whether_it_guides() -> None:
    from corpusbench.llm.ray_backend import RayBackend
    from corpusbench.llm.transformers_backend import TransformersBackend
    from corpusbench.llm.vllm_backend import VLLMBackend

    assert RayBackend.guided_regex  # every endpoint is an OpenAIBackend on a vLLM server
    assert not TransformersBackend.guided_regex and not VLLMBackend.guided_regex
