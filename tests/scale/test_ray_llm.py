"""``--llm-backend ray``: batches over endpoints through Ray actors, into the shared result cache."""

from __future__ import annotations

import pytest

from corpusbench.errors import BackendError
from corpusbench.llm import LLMSpec, open_llm
from corpusbench.llm.records import ChoiceRequest, GenRequest, SamplingParams

CHOOSE = [
    ChoiceRequest(id=f"c{i}", prompt=f"Which word is a {kind}: {a} or {b}? Answer with A or B.")
    for i, (kind, a, b) in enumerate(
        [
            ("fruit", "A. apple", "B. chair"),
            ("colour", "A. table", "B. red"),
            ("number", "A. seven", "B. horse"),
            ("animal", "A. spoon", "B. tiger"),
            ("city", "A. Paris", "B. shoe"),
            ("verb", "A. green", "B. run"),
            ("tool", "A. hammer", "B. cloud"),
            ("drink", "A. stone", "B. water"),
        ]
    )
]
GENERATE = [
    GenRequest(id=f"g{i}", prompt=p, params=SamplingParams(max_tokens=12, temperature=0.0))
    for i, p in enumerate(
        [
            "Write one short sentence about the sea.",
            "Name three colours.",
            "What is the capital of France?",
            "Finish the sentence: The cat sat on",
            "Say hello in French.",
            "Give a synonym of happy.",
        ]
    )
]


def same(a, b) -> bool:
    key = ("choice", "path", "text", "status")
    return all(getattr(a, k, None) == getattr(b, k, None) for k in key)


def two_endpoints(url: str) -> str:
    """Two endpoint URLs that reach the one test server: two Ray actors share the work."""
    return f"{url},{url.replace('127.0.0.1', 'localhost')}"


@pytest.mark.slow
def test_ray_backend_gives_the_local_answers_and_resumes_from_the_cache(ray_local, llm_endpoint, tmp_path):
    url, model = llm_endpoint
    local_spec = LLMSpec(backend="openai", base_url=url, cache=tmp_path / "local.sqlite", concurrency=1)
    with open_llm(local_spec) as llm:
        want_c = llm.choose(CHOOSE)
        want_g = llm.generate(GENERATE)
    assert all(r.status == "ok" for r in want_c + want_g)

    ray_spec = LLMSpec(
        backend="ray", base_url=two_endpoints(url), cache=tmp_path / "ray.sqlite", concurrency=1
    )
    with open_llm(ray_spec) as llm:  # a first, "stopped" run that did only half of the work
        assert llm.describe()["backend"] == "ray" and len(llm.describe()["endpoints"]) == 2
        assert llm.model == model
        llm.choose(CHOOSE[:4])
        llm.generate(GENERATE[:3])
    with open_llm(ray_spec) as llm:  # the rerun sends only what is missing
        got_c = llm.choose(CHOOSE)
        assert (llm.last.calls, llm.last.cache_hits) == (4, 4)
        got_g = llm.generate(GENERATE)
        assert (llm.last.calls, llm.last.cache_hits) == (3, 3)
    assert all(same(a, b) for a, b in zip(got_c, want_c, strict=True)), [r.choice for r in got_c]
    assert all(same(a, b) for a, b in zip(got_g, want_g, strict=True)), [r.text for r in got_g]
    with open_llm(ray_spec) as llm:  # a finished job makes no new calls
        again = llm.choose(CHOOSE) + llm.generate(GENERATE)
        assert llm.report.calls == 0 and llm.report.cache_hits == len(CHOOSE) + len(GENERATE)
    assert all(same(a, b) for a, b in zip(again, want_c + want_g, strict=True))


@pytest.mark.slow
def test_a_dead_endpoint_is_named_before_anything_runs(ray_local, llm_endpoint, tmp_path):
    url, _ = llm_endpoint
    spec = LLMSpec(backend="ray", base_url=f"{url},http://127.0.0.1:9/v1", cache=tmp_path / "c.sqlite")
    with pytest.raises(BackendError, match=r"127\.0\.0\.1:9/v1"):
        open_llm(spec)
