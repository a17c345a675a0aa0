"""The openai backend's handling of HTTP faults and the failure budget, against ``FakeOpenAI``
(tests/fake_openai_server.py), a loopback stand-in that fails on demand; the real server is used
in test_server.py."""

from __future__ import annotations

import pytest
from fake_openai_server import FakeOpenAI

from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm import CachedLLM, ChoiceRequest, GenRequest
from corpusbench.llm.cache import TooManyFailures
from corpusbench.llm.openai_backend import OpenAIBackend
from corpusbench.llm.records import FailureBudget
from corpusbench.llm.server import free_port


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(model="flaky", delay=1.0) as f:
        yield f


@pytest.fixture()
def backend(fake):
    fake.reset()
    return OpenAIBackend(fake.url, concurrency=4, timeout=0.3, max_retries=2, backoff=0.01)


def statuses(backend, prompts):
    return [r.status for r in backend.generate([GenRequest(id=p, prompt=p) for p in prompts])]


def test_retries_5xx_then_succeeds(fake, backend) -> None:
    fake.script = {"503 twice": ["503", "503", "ok"]}
    [r] = backend.generate([GenRequest(id="x", prompt="503 twice")])
    assert r.status == "ok" and r.text == "echo 503 twice" and fake.hits["503 twice"] == 3


def test_persistent_errors_become_error_results(fake, backend) -> None:
    fake.script = {"always 500": ["500"], "slow": ["slow"], "bad request": ["bad_request"]}
    out = backend.generate(
        [GenRequest(id=p, prompt=p) for p in ("always 500", "slow", "fine", "bad request")]
    )
    assert [r.status for r in out] == ["error", "error", "ok", "error"]
    assert "HTTP 500" in out[0].error and "engine exploded" in out[0].error
    assert "timed out after 0.3s (tried twice)" in out[1].error
    assert fake.hits["always 500"] == 3  # 2 retries
    assert fake.hits["slow"] == 2  # a stuck server: a timed-out call is sent once more, not per retry
    assert fake.hits["bad request"] == 1  # client errors are not retried


def test_malformed_responses(fake, backend) -> None:
    fake.script = {"bad json": ["garbage"], "no choices": ["no_choices"], "too long": ["too_long"]}
    assert statuses(backend, ["bad json", "no choices", "too long"]) == ["error", "error", "too_long"]


@pytest.mark.parametrize("mode", ["500", "garbage", "no_choices", "no_logprobs"])
def test_every_fault_is_a_failure_through_choose_never_a_reject(fake, backend, tmp_path, mode) -> None:
    fake.reset(mode)
    llm = CachedLLM(backend, tmp_path / "c.sqlite")
    out = llm.choose([ChoiceRequest(id=str(i), prompt=f"q{i}", options=("yes", "no")) for i in range(3)])
    assert [r.status for r in out] == ["error"] * 3 and llm.last.failures == 3 and llm.last.rejects == 0
    assert llm.cache.counts() == {"error": 3}  # recorded, but never served as an answer:
    fake.reset("ok")
    again = CachedLLM(backend, tmp_path / "c.sqlite").choose(
        [ChoiceRequest(id=str(i), prompt=f"q{i}", options=("yes", "no")) for i in range(3)]
    )
    assert [r.choice for r in again] == ["yes"] * 3 and fake.requests == 3


def test_an_answer_naming_no_option_is_a_reject_an_empty_one_a_failure(fake, backend) -> None:
    fake.script = {"no option": ["no_option"], "empty": ["empty"]}
    llm = CachedLLM(backend, None)
    [r] = llm.choose([ChoiceRequest(id="n", prompt="no option")])
    assert r.status == "reject" and llm.last.rejects == 1 and llm.last.failures == 0
    [r] = llm.choose([ChoiceRequest(id="e", prompt="empty")])
    assert r.status == "error" and "empty answer" in r.error and llm.last.failures == 1


def test_unknown_model(fake, backend) -> None:
    with pytest.raises(ConfigError, match=r"unknown model 'llama'.*serves flaky"):
        OpenAIBackend(fake.url, "llama")
    fake.script = {"wrong model": ["wrong_model"]}
    with pytest.raises(ConfigError, match="unknown model"):
        backend.generate([GenRequest(id="w", prompt="wrong model")])


def test_a_local_folder_is_asked_for_under_its_served_name(fake, tmp_path) -> None:
    """`--llm-base-url URL --llm-model models/NAME` finds the server `llm serve --llm-model models/NAME`
    started."""
    folder = tmp_path / "flaky"
    folder.mkdir()
    assert OpenAIBackend(fake.url, str(folder)).model == "flaky"
    with pytest.raises(ConfigError, match="unknown model"):
        OpenAIBackend(fake.url, str(tmp_path / "llama"))  # no such folder and not served


def test_unreachable_url_names_url_and_fix() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(BackendError) as e:
        OpenAIBackend(url)
    assert (
        url in str(e.value) and "make llm-server" in str(e.value) and "corpusbench llm serve" in str(e.value)
    )


def test_server_gone_mid_run_names_the_callers_remedy(tmp_path) -> None:
    with FakeOpenAI() as f:
        backend = OpenAIBackend(f.url, max_retries=0, restart_hint="see run.log, then rerun")
    with pytest.raises(BackendError) as e:  # the server stopped after the model list
        backend.generate([GenRequest(id="x", prompt="x")])
    msg = str(e.value)
    assert "results so far are saved — see run.log, then rerun" in msg and "make llm-server" not in msg


def test_timeout_and_retries_are_recorded(backend) -> None:
    d = backend.describe()
    assert d["timeout_s"] == 0.3 and d["max_retries"] == 2
    with pytest.raises(ConfigError, match="timeout"):
        OpenAIBackend(backend.base_url, timeout=0)


def test_failure_budget_stops_the_run_early_and_keeps_the_answers(fake, tmp_path) -> None:
    backend = OpenAIBackend(fake.url, concurrency=1, max_retries=0)
    fake.reset("ok")
    fake.script = {"p3": ["500"], "p6": ["500"]}
    reqs = [GenRequest(id=str(i), prompt=f"p{i}") for i in range(20)]
    llm = CachedLLM(backend, tmp_path / "c.sqlite", FailureBudget(count=1))
    with pytest.raises(TooManyFailures) as e:
        llm.generate(reqs)
    msg = str(e.value)
    assert "2 LLM call(s) failed, more than the failure budget allows (1 of 20 requests so far" in msg
    assert "HTTP 500: engine exploded" in msg and str(tmp_path / "c.sqlite") in msg
    assert "--max-llm-failures" in msg and "\n" not in msg
    assert fake.requests == 7  # stopped at the second failure, not after all 20 calls
    assert llm.cache.counts() == {"ok": 5, "error": 2}
    fake.reset("ok")
    out = CachedLLM(backend, tmp_path / "c.sqlite", FailureBudget()).generate(reqs)
    assert all(r.ok for r in out) and fake.requests == 15  # the 5 answers came from the cache
    assert e.value.exit_code == 3


def test_failure_budget_as_a_share(fake, tmp_path) -> None:
    backend = OpenAIBackend(fake.url, concurrency=2, max_retries=0)
    fake.reset("ok")
    fake.script = {"p0": ["500"], "p1": ["500"]}
    reqs = [GenRequest(id=str(i), prompt=f"p{i}") for i in range(20)]
    llm = CachedLLM(backend, tmp_path / "c.sqlite", FailureBudget.parse("10%"))
    out = llm.generate(reqs)  # 2 of 20 allowed
    assert llm.last.failures == 2 and sum(r.ok for r in out) == 18
    assert llm.describe()["max_failures"] == "10%"
    with pytest.raises(TooManyFailures):
        CachedLLM(backend, tmp_path / "d.sqlite", FailureBudget.parse("0.05")).generate(reqs)


def test_failure_budget_parsing() -> None:
    assert FailureBudget.parse(None) == FailureBudget() and FailureBudget().allowed(1000) == 0
    assert FailureBudget.parse("3") == FailureBudget(count=3) and FailureBudget.parse(3).allowed(10) == 3
    assert FailureBudget.parse("2%").allowed(150) == 3 and FailureBudget.parse("0.5").allowed(5) == 2
    for bad in ("-1", "many", "150%", "2.5", "nan"):
        with pytest.raises(ConfigError, match="--max-llm-failures"):
            FailureBudget.parse(bad)
