"""`fitclams build --llm-check` on an LLM that fails (issue #42 item 2): a malformed reply is a failed
call and stops the run with one line, exit 3, instead of counting as "no veto"; the rerun against a
healthy server completes. The LLM is ``FakeOpenAI`` (tests/fake_openai_server.py)."""

from __future__ import annotations

from dataclasses import replace

from fake_openai_server import FakeOpenAI
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.llm import api


def test_llm_check_on_malformed_replies_exits_3_then_resumes(en_stats, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the LLM cache: ./.cache/llm.sqlite
    out = tmp_path / "fc"
    args = ["fitclams", "build", "--corpus", f"plays={en_stats}", "--lang", "en", "--out", str(out),
            "--nouns", "3", "--verbs", "2", "--llm-check", "--llm-backend", "openai"]  # fmt: skip
    with FakeOpenAI(model="fake") as fake:
        opened = api.open_backend
        monkeypatch.setattr(api, "open_backend", lambda spec: opened(replace(spec, base_url=fake.url)))
        fake.reset("null")
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 3, res.output
        [line] = [x for x in res.output.splitlines() if x.startswith("error:")]
        assert "LLM call(s) failed" in line and "not a JSON object" in line and not out.exists()
        fake.reset("ok")
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        assert fake.requests > 0 and (out / "manifest.json").exists()
