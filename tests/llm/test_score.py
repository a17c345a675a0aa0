"""The third primitive, ``score`` (a text's log-probability after a prefix): the prompt-log-prob reader,
the cache on the scripted backend, the transformers backend against a direct computation, the openai
backend against ``FakeOpenAI``'s ``/completions`` and against the real vLLM CPU server."""

from __future__ import annotations

import math

import pytest
from fake_openai_server import FakeOpenAI

from corpusbench.errors import ConfigError
from corpusbench.llm import CachedLLM
from corpusbench.llm.cache import ResultCache
from corpusbench.llm.openai_backend import OpenAIBackend, text_logprob
from corpusbench.llm.records import ScoreRequest
from corpusbench.llm.scripted import Fail, ScriptedBackend

SENTENCES = [
    "The cat sat on the mat.",
    "Dogs bark.",
    "Colorless green ideas sleep furiously while the old man reads the newspaper by the window.",
    "A",
]
# beyond ASCII: characters a byte-level tokenizer may split into tokens that decode to no whole character
WORLD = [
    "Le cœur de l'île — ça va ?",
    "Der Bär frißt Äpfel und Öl.",
    "Ærøskøbing’s ŋ ǂ ʘ.",
    "日本語の文です。",
]


# -- text_logprob: which prompt tokens are the text's ------------------------------------------------
def test_text_logprob_counts_the_tokens_that_end_past_the_prefix() -> None:
    # prompt "\nThe cat": tokens "\n" (first, no log-prob), "The", " cat"
    assert text_logprob("\n", "\nThe cat", ["The", " cat"], [-1.0, -2.0]) == -3.0
    # a longer prefix: its own tokens after the first are not the text's
    assert text_logprob("Say: ", "Say: the cat", [":", " the", " cat"], [-4.0, -1.0, -2.0]) == -3.0
    assert text_logprob("", "ab", ["b"], [-0.5]) == -0.5  # no prefix: all but the unscored first token


def test_text_logprob_counts_a_token_across_the_boundary_as_text() -> None:
    # prefix "a b", text "c d": the token " bc" starts in the prefix and ends in the text
    assert text_logprob("a b", "a bc d", [" bc", " d"], [-1.5, -2.0]) == -3.5
    # a token that ends exactly at the prefix's end is the prefix's
    assert text_logprob("a b", "a b c", [" b", " c"], [-1.5, -2.0]) == -2.0


def test_text_logprob_counts_the_first_bytes_of_the_texts_first_character() -> None:
    # "Æ" in two byte tokens: a vLLM server decodes the first as "" and the second as "Æ"; both are text
    assert text_logprob("\n", "\nÆr", ["", "Æ", "r"], [-5.0, -6.0, -1.0]) == -12.0
    assert text_logprob("\n", "\nrÆ", ["r", "", "Æ"], [-1.0, -5.0, -6.0]) == -12.0  # inside the text


def test_text_logprob_is_none_when_the_pieces_do_not_spell_the_prompt() -> None:
    assert text_logprob("\n", "\nThe cat", ["The", " dog"], [-1.0, -2.0]) is None
    assert text_logprob("\n", "\nThe cat", ["\nThe", " cat", "s"], [-1.0, -2.0, -1.0]) is None  # too long
    assert text_logprob("\n", "\nThe cat", ["\ufffd", " cat"], [-1.0, -2.0]) is None  # a partial character


# -- CachedLLM.score on the scripted backend ---------------------------------------------------------
def reqs(*texts: str) -> list[ScoreRequest]:
    return [ScoreRequest(id=f"s{i}", text=t) for i, t in enumerate(texts)]


def test_scores_are_cached(tmp_path) -> None:
    db = tmp_path / "c.sqlite"
    backend = ScriptedBackend(scores=lambda text: -float(len(text.split())))
    with CachedLLM(backend, db) as llm:
        first = llm.score(reqs("a b c", "d e"))
        assert [r.logprob for r in first] == [-3.0, -2.0] and not any(r.cached for r in first)
        assert (llm.last.calls, llm.last.cache_hits, llm.last.ok) == (2, 0, 2)
        again = llm.score(reqs("a b c", "d e"))
        assert [r.logprob for r in again] == [-3.0, -2.0] and all(r.cached for r in again)
        assert (llm.last.calls, llm.last.cache_hits) == (0, 2)
    assert len(backend.calls) == 2
    other = ScriptedBackend(scores=lambda text: 0.0)  # a new run: still served from the cache
    with CachedLLM(other, db) as llm:
        assert [r.logprob for r in llm.score(reqs("a b c"))] == [-3.0] and other.calls == []
        # another prefix is another question
        llm.score([ScoreRequest(id="p", text="a b c", prefix="Say: ")])
        assert other.calls == [("score", "a b c")]


def test_a_failed_score_is_an_error_and_is_retried_next_run(tmp_path) -> None:
    db = tmp_path / "c.sqlite"
    answers = {"bad": [Fail("HTTP 503"), -1.5]}
    backend = ScriptedBackend(scores=lambda text: answers[text].pop(0) if text in answers else -1.0)
    with CachedLLM(backend, db) as llm:
        out = llm.score(reqs("good", "bad"))
        assert [r.status for r in out] == ["ok", "error"] and out[1].error == "HTTP 503"
        assert out[1].logprob is None and llm.last.failures == 1
    assert ResultCache(db).counts() == {"ok": 1, "error": 1}
    with CachedLLM(backend, db) as llm:
        out = llm.score(reqs("good", "bad"))
        assert [r.logprob for r in out] == [-1.0, -1.5]
        assert (llm.last.calls, llm.last.cache_hits, llm.last.retried_errors) == (1, 1, 1)
    assert ResultCache(db).counts() == {"ok": 2}


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 0.5])
def test_a_score_that_is_not_a_log_probability_is_an_error(tmp_path, bad) -> None:
    db = tmp_path / "c.sqlite"
    with CachedLLM(ScriptedBackend(scores=lambda text: bad), db) as llm:
        [r] = llm.score(reqs("x"))
        assert r.status == "error" and "malformed answer" in r.error and not r.ok
        assert llm.last.failures == 1
    assert ResultCache(db).counts() == {"error": 1}  # never stored as an answer


def test_a_backend_that_cannot_score_says_so() -> None:
    llm = CachedLLM(ScriptedBackend(), None)
    with pytest.raises(ConfigError, match="cannot score"):
        llm.score(reqs("x"))


# -- the transformers backend ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tf_backend(model_dir):
    from corpusbench.llm.transformers_backend import TransformersBackend

    b = TransformersBackend(str(model_dir), max_model_len=2048, batch_size=4, threads=1, dtype="float32")
    yield b
    b.close()


def direct_logprob(backend, prefix: str, text: str) -> float:
    """The text's tokens' summed log-softmax from one plain forward pass (the prefix tokenized alone
    must be a token prefix of the prompt, as it is for these sentences)."""
    import torch

    tok, lm = backend.tok, backend.lm
    n_prefix = len(tok(prefix)["input_ids"])
    ids = tok(prefix + text, return_tensors="pt")["input_ids"]
    assert ids[0, :n_prefix].tolist() == tok(prefix)["input_ids"]
    with torch.inference_mode():
        logits = lm(input_ids=ids).logits[0].float()
    lps = torch.log_softmax(logits[:-1], dim=-1).gather(-1, ids[0, 1:, None])[:, 0]
    return float(lps[n_prefix - 1 :].double().sum())


def test_transformers_score_is_the_sum_of_the_texts_token_logprobs(tf_backend) -> None:
    out = tf_backend.score(reqs(*SENTENCES))
    for r, text in zip(out, SENTENCES, strict=True):
        assert r.ok and r.tokens_out == 0 and r.tokens_in == len(tf_backend.tok("\n" + text)["input_ids"])
        assert r.logprob == pytest.approx(direct_logprob(tf_backend, "\n", text), abs=1e-4)
    [r] = tf_backend.score([ScoreRequest(id="p", text=" the cat sat.", prefix="She said that")])
    assert r.logprob == pytest.approx(direct_logprob(tf_backend, "She said that", " the cat sat."), abs=1e-4)
    assert out[2].logprob < out[0].logprob < 0  # a longer text: a lower log-probability


def test_transformers_batches_score_like_single_texts(tf_backend) -> None:
    """Texts of different lengths in one padded batch (and over several batches) score as they do alone."""
    texts = [*SENTENCES, "Birds fly south in the winter.", "", "Yes."]
    batched = tf_backend.score(reqs(*texts))
    alone = [tf_backend.score([r])[0] for r in reqs(*texts)]
    assert [r.id for r in batched] == [f"s{i}" for i in range(len(texts))]
    for b, a in zip(batched, alone, strict=True):
        assert b.ok and b.logprob == pytest.approx(a.logprob, abs=1e-4)
    assert batched[texts.index("")].logprob == 0.0


def test_transformers_score_too_long(model_dir) -> None:
    from corpusbench.llm.transformers_backend import TransformersBackend

    b = TransformersBackend(str(model_dir), max_model_len=16, threads=1)
    [long, short] = b.score(reqs("word " * 40, "Hi."))
    assert long.status == "too_long" and long.tokens_in > 16 and short.ok
    b.close()


# -- the openai backend: parsing FakeOpenAI's prompt_logprobs, and the real vLLM server ----------------
@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(model="fake") as f:
        yield f


def test_openai_score_reads_prompt_logprobs(fake) -> None:
    fake.reset()
    backend = OpenAIBackend(fake.url, concurrency=2, timeout=5, max_retries=0)
    out = backend.score([ScoreRequest(id="a", text=" the black cat", prefix="Say:")])
    assert fake.bodies[-1]["prompt"] == "Say: the black cat" and fake.bodies[-1]["prompt_logprobs"] == 0
    [r] = out
    assert (r.status, r.logprob, r.tokens_in, r.tokens_out) == ("ok", -3.0, 4, 1)


@pytest.mark.parametrize(("mode", "error"), [("no_logprobs", "no prompt_logprobs"), ("nan", "malformed")])
def test_openai_score_without_usable_prompt_logprobs_is_an_error(fake, mode, error) -> None:
    fake.reset(mode)
    backend = OpenAIBackend(fake.url, concurrency=2, timeout=5, max_retries=0)
    [r] = backend.score([ScoreRequest(id="a", text=" the cat", prefix="Say:")])
    assert r.status == "error" and error in r.error


def test_openai_score_needs_vllm_extensions(fake) -> None:
    fake.reset()
    backend = OpenAIBackend(fake.url, vllm_extensions=False)
    with pytest.raises(ConfigError, match="vLLM server"):
        backend.score(reqs("x"))


@pytest.mark.slow
def test_vllm_server_scores_like_transformers(vllm_server, tf_backend) -> None:
    backend = OpenAIBackend(vllm_server.url, vllm_server.model, concurrency=2, timeout=120, backoff=0.2)
    served = backend.score(reqs(*SENTENCES, *WORLD))
    local = tf_backend.score(reqs(*SENTENCES, *WORLD))
    for s, t in zip(served, local, strict=True):
        assert s.ok and s.tokens_out == 1 and s.tokens_in == t.tokens_in
        assert s.logprob == pytest.approx(t.logprob, abs=1e-2)
