"""The same contract for the three real backends on CPU: transformers with the default model,
openai against the real vLLM CPU server, and vllm's in-process engine (CPU build, worker venv)."""

from __future__ import annotations

import pytest

from corpusbench import prompts
from corpusbench.llm import ChoiceRequest, GenRequest, SamplingParams
from corpusbench.llm.base import Backend
from corpusbench.llm.hardware import reproducibility

pytestmark = pytest.mark.slow

LONG = "Tell me about the weather. " * 500  # ~3000 tokens: over the 2048-token context
AB = prompts.render(
    "generic/choose_ab.v1",
    question="Which sentence is grammatical English?",
    option_a="The dogs bark at the mailman.",
    option_b="Dogs the mailman at bark the.",
)
YES_NO = prompts.render(
    "generic/yes_no.v1", text="The cat is sleeping on the red sofa.", question="Is the cat sleeping?"
)


DTYPES: dict[Backend, str] = {}  # the dtype each backend computes in


@pytest.fixture(scope="module", params=["transformers", "openai", "vllm"])
def backend(request: pytest.FixtureRequest, model_dir) -> Backend:
    if request.param == "transformers":
        from corpusbench.llm.transformers_backend import TransformersBackend

        b: Backend = TransformersBackend(str(model_dir), max_model_len=2048, threads=1)
    elif request.param == "openai":
        from corpusbench.llm.openai_backend import OpenAIBackend

        server = request.getfixturevalue("vllm_server")
        b = OpenAIBackend(server.url, server.model, concurrency=4, timeout=120, backoff=0.2)
    else:
        from corpusbench.llm.vllm_backend import VLLMBackend

        b = VLLMBackend(str(model_dir), python=request.getfixturevalue("vllm_py"), max_model_len=2048)
    DTYPES[b] = (
        request.getfixturevalue("vllm_server").spec.dtype
        if request.param == "openai"
        else str(b.describe()["dtype"])
    )
    yield b
    b.close()


def test_model_identity(backend: Backend) -> None:
    assert backend.model == "smollm2-135m-instruct"
    assert backend.describe()["backend"] == backend.name


def test_generate_greedy_in_order_and_deterministic(backend: Backend) -> None:
    reqs = [
        GenRequest(id="fruit", prompt="Name one fruit.", params=SamplingParams(max_tokens=24)),
        GenRequest(
            id="sky", prompt="What colour is the sky on a clear day?", params=SamplingParams(max_tokens=24)
        ),
    ]
    seen: list[int] = []
    first = backend.generate(reqs, on_result=lambda i, r: seen.append(i))
    assert [r.id for r in first] == ["fruit", "sky"] and sorted(seen) == [0, 1]
    for r in first:
        assert r.status == "ok" and r.text.strip(), r
        assert r.tokens_in > 10 and 0 < r.tokens_out <= 24
        assert r.finish_reason in ("stop", "length")
    again = backend.generate(reqs[::-1])
    assert [r.text for r in again] == [r.text for r in first[::-1]]


def test_generate_respects_max_tokens_and_stop(backend: Backend) -> None:
    [short] = backend.generate(
        [GenRequest(id="s", prompt="Write a long story about a dragon.", params=SamplingParams(max_tokens=5))]
    )
    assert short.status == "ok" and short.tokens_out == 5 and short.finish_reason == "length"
    [stopped] = backend.generate(
        [
            GenRequest(
                id="t",
                prompt="Write a long story about a dragon.",
                params=SamplingParams(max_tokens=40, stop=(" ",)),
            )
        ]
    )
    assert stopped.status == "ok" and " " not in stopped.text.strip()


def test_sampling_is_seeded_per_sample(backend: Backend) -> None:
    """The promise of llm/hardware.py's ``reproducibility``: float32 is batch-invariant (the default on
    every CPU); bf16 (opt-in) repeats only the same batches, so there a request alone must repeat."""
    params = SamplingParams(temperature=1.0, max_tokens=16, seed=7)
    reqs = [
        GenRequest(id=f"s{i}", prompt="Write a sentence about a river.", params=params, sample=i)
        for i in range(4)
    ]
    a = backend.generate(reqs)
    b = backend.generate(reqs[:1])
    assert len({r.text for r in a}) > 1  # different samples differ
    if reproducibility(DTYPES[backend]) == "batch-invariant":
        assert a[0].text == b[0].text  # sample 0 is the same alone or in a batch
    else:
        assert backend.generate(reqs[:1])[0].text == b[0].text  # the same batch repeats itself


def test_choose_reads_logprobs_in_one_step(backend: Backend) -> None:
    reqs = [
        ChoiceRequest(id="ab", prompt=AB, options=("A", "B"), answer_prefix="["),
        ChoiceRequest(id="yn", prompt=YES_NO, options=("yes", "no")),
    ]
    out = backend.choose(reqs)
    assert [r.id for r in out] == ["ab", "yn"]
    for r, req in zip(out, reqs, strict=True):
        assert r.status == "ok" and r.path == "logprobs", r
        assert r.choice in req.options and r.tokens_out == 1 and r.tokens_in > 10
        assert len(r.logprobs) == 2 and all(lp is None or lp <= 0 for lp in r.logprobs)
        best = max((lp, o) for lp, o in zip(r.logprobs, req.options, strict=True) if lp is not None)[1]
        assert r.choice == best


def test_choose_by_generation_parses_or_rejects(backend: Backend) -> None:
    [r] = backend.choose([ChoiceRequest(id="g", prompt=AB, method="generation", max_tokens=48)])
    assert r.path in ("generation", "none") and r.status in ("ok", "reject"), r
    assert r.tokens_out > 1 and r.text
    if r.status == "ok":
        assert r.choice in ("A", "B")


def test_prompt_longer_than_context_is_skipped(backend: Backend) -> None:
    out = backend.generate(
        [
            GenRequest(id="long", prompt=LONG, params=SamplingParams(max_tokens=4)),
            GenRequest(id="ok", prompt="Say hi.", params=SamplingParams(max_tokens=4)),
        ]
    )
    assert [r.status for r in out] == ["too_long", "ok"]
    [c] = backend.choose([ChoiceRequest(id="long", prompt=LONG, options=("yes", "no"))])
    assert c.status == "too_long" and c.choice is None
