"""The LLM layer: one interface (``generate``, ``choose``) over vLLM (server or in-process),
transformers and a scripted test backend, with a persistent cache that makes runs resumable.

    from corpusbench.llm import ChoiceRequest, LLMSpec, open_llm
    with open_llm(LLMSpec(backend="openai", base_url="http://127.0.0.1:8011/v1")) as llm:
        results = llm.choose([ChoiceRequest(id="q1", prompt=text, options=("A", "B"))])
        print(llm.last)  # RunReport: calls, cache hits, failures, tokens, wall time
"""

from corpusbench.llm.api import BACKENDS, LLMSpec, backend_class, open_backend, open_llm
from corpusbench.llm.base import Backend, TopTokens
from corpusbench.llm.cache import CachedLLM, ResultCache
from corpusbench.llm.records import (
    ChoiceRequest,
    ChoiceResult,
    GenRequest,
    GenResult,
    RunReport,
    SamplingParams,
)

__all__ = [
    "BACKENDS",
    "Backend",
    "CachedLLM",
    "ChoiceRequest",
    "ChoiceResult",
    "GenRequest",
    "GenResult",
    "LLMSpec",
    "ResultCache",
    "RunReport",
    "SamplingParams",
    "TopTokens",
    "backend_class",
    "open_backend",
    "open_llm",
]
