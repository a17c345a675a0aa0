"""An endpoint behind a key (issue #42 item 7): the OpenAI-compatible backend sends --llm-api-key, else
OPENAI_API_KEY, for `llm` and `ltswap` alike, and no output line shows the key, even when the server
echoes it. Against ``FakeOpenAI(api_key=...)``, which answers 401 without the right key."""

from __future__ import annotations

import json

import pytest
from fake_openai_server import FakeOpenAI
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.families.ltswap.calibration import CALIBRATION_SET

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(model="keyed", api_key=KEY) as f:
        yield f


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_llm_generate_sends_the_key_from_the_option_or_the_environment(fake, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ("llm", "generate", "hi", "--llm-backend", "openai", "--llm-base-url", fake.url, "--no-llm-cache")
    r = invoke(*args)
    assert r.exit_code == 2 and "refused the API key (HTTP 401)" in r.output, r.output
    r = invoke(*args, "--llm-api-key", KEY)
    assert r.exit_code == 0 and "echo hi" in r.output, r.output
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    r = invoke(*args)
    assert r.exit_code == 0 and "echo hi" in r.output, r.output


def test_ltswap_judge_sends_the_key(fake, monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    items = tmp_path / "items.jsonl"
    row = json.loads(CALIBRATION_SET.read_text(encoding="utf-8").splitlines()[0])
    items.write_text(json.dumps({k: v for k, v in row.items() if k != "keep"}) + "\n")
    args = ("ltswap", "judge", items, "--out", tmp_path / "v.jsonl", "--llm-backend", "openai",
            "--llm-base-url", fake.url, "--llm-cache", tmp_path / "c.sqlite")  # fmt: skip
    r = invoke(*args)
    assert r.exit_code == 2 and "refused the API key" in r.output, r.output
    r = invoke(*args, "--llm-api-key", KEY)
    assert r.exit_code == 0 and (tmp_path / "v.jsonl").exists(), r.output
    assert KEY not in (tmp_path / "v.jsonl").read_text() + r.output
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert invoke(*args).exit_code == 0


def test_a_server_echoing_the_key_never_shows_it(fake, tmp_path) -> None:
    fake.reset("echo_auth")
    r = invoke("llm", "generate", "hi", "--llm-backend", "openai", "--llm-base-url", fake.url,
               "--llm-api-key", KEY, "--llm-cache", tmp_path / "c.sqlite",
               "--out", tmp_path / "r.jsonl")  # fmt: skip
    assert r.exit_code == 3 and "bad request with Authorization: " in r.output, r.output
    assert KEY not in r.output + (tmp_path / "r.jsonl").read_text()
    fake.reset("ok")
