"""The persistent cache and run report, on the scripted backend (parsing and fault cases)."""

from __future__ import annotations

import sqlite3

import pytest

from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm import CachedLLM, ChoiceRequest, GenRequest, LLMSpec, SamplingParams, open_llm
from corpusbench.llm.api import backend_class
from corpusbench.llm.cache import ResultCache, choice_key, gen_key
from corpusbench.llm.scripted import Crash, Fail, ScriptedBackend, TooLong


def gen(i: int, prompt: str | None = None, **kw) -> GenRequest:
    return GenRequest(id=f"r{i}", prompt=prompt or f"prompt {i}", **kw)


def test_second_run_is_served_from_cache(tmp_path) -> None:
    db = tmp_path / "c.sqlite"
    backend = ScriptedBackend({f"prompt {i}": f"answer {i}" for i in range(5)})
    with CachedLLM(backend, db) as llm:
        first = llm.generate([gen(i) for i in range(5)])
        assert [r.text for r in first] == [f"answer {i}" for i in range(5)]
        assert (llm.last.calls, llm.last.cache_hits, llm.last.ok) == (5, 0, 5)
        assert llm.last.tokens_in == 10 and llm.last.tokens_out == 10
    backend2 = ScriptedBackend({})  # would answer "" if asked
    with CachedLLM(backend2, db) as llm:
        again = llm.generate([gen(i) for i in range(5)])
        assert [r.text for r in again] == [r.text for r in first] and all(r.cached for r in again)
        assert (llm.last.calls, llm.last.cache_hits, llm.last.tokens_out) == (0, 5, 0)
    assert backend2.calls == []


def test_the_cost_a_run_used_is_the_same_from_the_cache(tmp_path) -> None:
    """requests_used/tokens_out_used count each answer once, fresh or cached: a rebuild from the cache
    reports the cost of the run it reproduces (calls/tokens_out count only what was sent)."""
    db = tmp_path / "c.sqlite"
    backend = ScriptedBackend({f"prompt {i}": f"answer number {i}" for i in range(4)})
    with CachedLLM(backend, db) as llm:
        llm.generate([gen(i) for i in range(4)])
        llm.generate([gen(i) for i in range(2)])  # looked up again: not a second request
        llm.generate([GenRequest(id="same-prompt", prompt="prompt 3")])  # one answer under another id
        cold = llm.report.as_dict()
    assert (cold["calls"], cold["cache_hits"]) == (4, 3)
    assert (cold["requests_used"], cold["tokens_out_used"]) == (4, 12)
    with CachedLLM(ScriptedBackend({}), db) as llm:
        llm.generate([gen(i) for i in range(4)])
        warm = llm.report.as_dict()
    assert (warm["calls"], warm["tokens_out"]) == (0, 0)
    assert (warm["requests_used"], warm["tokens_out_used"]) == (4, 12)


def test_key_covers_model_params_prompt_and_sample() -> None:
    base = gen(0)
    k = gen_key("m", base)
    assert (
        gen_key("m", GenRequest(id="other-id", prompt="prompt 0")) == k
    )  # the caller's id is not in the key
    assert gen_key("m2", base) != k
    assert gen_key("m", gen(0, params=SamplingParams(max_tokens=9))) != k
    assert gen_key("m", gen(0, sample=1)) != k
    assert gen_key("m", gen(0, system="Be terse.")) != k
    c = ChoiceRequest(id="c", prompt="p")
    assert choice_key("m", c) != choice_key("m", ChoiceRequest(id="c", prompt="p", options=("yes", "no")))
    assert choice_key("m", c) != choice_key("m", ChoiceRequest(id="c", prompt="p", method="generation"))


def test_errors_are_recorded_and_retried_next_run(tmp_path) -> None:
    db = tmp_path / "c.sqlite"
    backend = ScriptedBackend({"prompt 1": [Fail("HTTP 503"), "recovered"]}, default="fine")
    with CachedLLM(backend, db) as llm:
        out = llm.generate([gen(i) for i in range(3)])
        assert [r.status for r in out] == ["ok", "error", "ok"]
        assert out[1].error == "HTTP 503" and llm.last.failures == 1
    assert ResultCache(db).counts() == {"ok": 2, "error": 1}
    with CachedLLM(backend, db) as llm:
        out = llm.generate([gen(i) for i in range(3)])
        assert [r.text for r in out] == ["fine", "recovered", "fine"]
        assert (llm.last.calls, llm.last.cache_hits, llm.last.retried_errors, llm.last.failures) == (
            1,
            2,
            1,
            0,
        )
    assert ResultCache(db).counts() == {"ok": 3}
    attempts = sqlite3.connect(db).execute("SELECT MAX(attempts) FROM results").fetchone()[0]
    assert attempts == 2


def test_malformed_answers_are_rejects_and_empty_ones_failures(tmp_path) -> None:
    replies = {
        "q-empty": "",
        "q-garbage": "I cannot decide between them.",
        "q-bracket": "Clearly [B].",
        "q-other": "[C]",
        "q-bare": "A",
    }
    backend = ScriptedBackend(replies)  # no top tokens scripted: every logprobs read-out falls back
    reqs = [ChoiceRequest(id=p, prompt=p) for p in replies]
    with CachedLLM(backend, tmp_path / "c.sqlite") as llm:
        out = {r.id: r for r in llm.choose(reqs)}
        assert {k: (r.status, r.choice) for k, r in out.items()} == {
            "q-empty": ("error", None),  # an empty reply is a failed call, not an answer naming no option
            "q-garbage": ("reject", None),
            "q-bracket": ("ok", "B"),
            "q-other": ("reject", None),
            "q-bare": ("ok", "A"),
        }
        assert all(r.path == "generation" for r in out.values() if r.ok)
        assert (llm.last.rejects, llm.last.ok, llm.last.by_path) == (2, 2, {"generation": 2})
        assert llm.last.failures == 1 and "empty answer" in out["q-empty"].error
        llm.choose(reqs)  # rejects are final for greedy decoding: not asked again; the failure is
        assert llm.last.cache_hits == 4 and llm.last.calls == 1


def test_logprob_path_decides_without_generation() -> None:
    backend = ScriptedBackend(top={"q": [("The", -0.5), ("B", -1.0), (" A", -2.5)]})
    llm = CachedLLM(backend, None)
    [r] = llm.choose([ChoiceRequest(id="q", prompt="q")])
    assert (r.status, r.choice, r.path, r.tokens_out) == ("ok", "B", "logprobs", 1)
    assert r.logprobs == (-2.5, -1.0)
    assert [op for op, _ in backend.calls] == ["top"]


def test_too_long_prompts_are_skipped_counted_and_rechecked(tmp_path) -> None:
    backend = ScriptedBackend({"huge": TooLong()}, default="x")
    with CachedLLM(backend, tmp_path / "c.sqlite") as llm:
        out = llm.generate([gen(0, "huge"), gen(1)])
        assert [r.status for r in out] == ["too_long", "ok"] and llm.last.too_long == 1
        [c] = llm.choose([ChoiceRequest(id="c", prompt="huge")])
        assert c.status == "too_long" and llm.last.too_long == 1


def test_duplicate_requests_share_one_call(tmp_path) -> None:
    backend = ScriptedBackend(default="same")
    with CachedLLM(backend, tmp_path / "c.sqlite") as llm:
        out = llm.generate([GenRequest(id="a", prompt="p"), GenRequest(id="b", prompt="p")])
        assert [r.id for r in out] == ["a", "b"] and [r.text for r in out] == ["same", "same"]
        assert len(backend.calls) == 1 and llm.last.calls == 1 and llm.last.cache_hits == 1


def test_unseeded_sampling_bypasses_cache(tmp_path) -> None:
    backend = ScriptedBackend(default="s")
    params = SamplingParams(temperature=0.7, seed=None)
    with CachedLLM(backend, tmp_path / "c.sqlite") as llm:
        llm.generate([gen(0, params=params)])
        llm.generate([gen(0, params=params)])
        assert len(backend.calls) == 2 and llm.last.uncached == 1
        assert llm.cache.counts() == {}


def test_backend_crash_keeps_results_already_committed(tmp_path) -> None:
    db = tmp_path / "c.sqlite"
    backend = ScriptedBackend({"prompt 3": Crash("server gone")}, default="ok")
    with CachedLLM(backend, db) as llm, pytest.raises(BackendError, match="server gone"):
        llm.generate([gen(i) for i in range(6)])
    assert ResultCache(db).counts() == {"ok": 3}
    backend = ScriptedBackend(default="ok")
    with CachedLLM(backend, db) as llm:
        llm.generate([gen(i) for i in range(6)])
        assert (llm.last.cache_hits, llm.last.calls) == (3, 3)


def test_progress_and_report_totals(tmp_path) -> None:
    seen: list[tuple[int, int]] = []
    with CachedLLM(ScriptedBackend(default="a b c"), tmp_path / "c.sqlite") as llm:
        llm.generate([gen(i) for i in range(4)], progress=lambda d, t: seen.append((d, t)))
        llm.generate([gen(i) for i in range(6)])
        assert seen[-1] == (4, 4)
        assert (llm.report.calls, llm.report.cache_hits, llm.report.tokens_out) == (6, 4, 18)
        assert llm.report.as_dict()["wall_s"] >= 0


def test_bad_options_and_bad_cache_path(tmp_path) -> None:
    llm = CachedLLM(ScriptedBackend(), None)
    with pytest.raises(ConfigError, match="distinct"):
        llm.choose([ChoiceRequest(id="x", prompt="p", options=("A", "A"))])
    with pytest.raises(ConfigError, match="is a directory"):
        ResultCache(tmp_path)
    bad = tmp_path / "not.sqlite"
    bad.write_text("this is not a database, just text " * 100)
    with pytest.raises(ConfigError, match="not a usable cache"):
        ResultCache(bad)


def test_registry_names_and_suggestions() -> None:
    assert backend_class("vllm-server").name == "openai"
    assert backend_class("scripted") is ScriptedBackend
    with pytest.raises(ConfigError, match="Did you mean: openai"):
        backend_class("opnai")
    llm = open_llm(LLMSpec(backend="scripted", cache=None))
    assert llm.model == "scripted"
