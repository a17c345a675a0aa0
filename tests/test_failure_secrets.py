"""No error line contains a token (issue 42, item 3): the CLI redacts every line it prints.

The Hub stand-in here is malformed on purpose: its dataset info names the revision after the request's
``Authorization`` header, so the client's own error message carries ``Bearer hf_…``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cliproc import corpusbench

from corpusbench.errors import redact, register_secret

TOKEN = "hf_echoedsecret0123456789"


class _EchoingHub(BaseHTTPRequestHandler):
    """Dataset info whose ``sha`` is the Authorization header; no file, no such revision (404)."""

    def _reply(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:
        echo = f"internal error for {self.headers.get('Authorization')}"
        if self.path.rstrip("/") == "/api/datasets/org/name":
            info = {"id": "org/name", "sha": echo, "siblings": [{"rfilename": "data/x/test.parquet"}]}
            self._reply(200, json.dumps(info).encode(), {"Content-Type": "application/json"})
        elif "/resolve/" in self.path:
            self._reply(404, headers={"X-Error-Code": "EntryNotFound"})
        else:
            self._reply(404, headers={"X-Error-Code": "RevisionNotFound", "X-Error-Message": echo})

    do_HEAD = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echoing_hub() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoingHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_eval_run_error_line_has_no_token(echoing_hub: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(
        HF_ENDPOINT=echoing_hub,
        HF_TOKEN=TOKEN,
        HF_HUB_DISABLE_XET="1",
        HF_HOME=str(tmp_path / "hf"),
        HF_HUB_CACHE=str(tmp_path / "hf" / "hub"),
        HF_DATASETS_CACHE=str(tmp_path / "hf" / "datasets"),
    )
    proc = corpusbench(
        *("eval", "run", "--dataset", "org/name", "--model", str(tmp_path / "no-model")),
        *("--out", str(tmp_path / "out")),
        cwd=tmp_path,
        env=env,
    )
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "Bearer ***" in lines[0], proc.stderr  # the echo reached the line, redacted
    assert TOKEN not in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("internal error for Bearer hf_abcdefgh12", "internal error for Bearer ***"),
        ("headers {'Authorization': 'Bearer xyz.abc'}", "headers {'Authorization': '***'}"),
        ("authorization=Basic dXNlcjpwdw== sent", "authorization=*** sent"),
        ("token hf_AbCdEf123456 in a URL", "token hf_*** in a URL"),
        ("plain text, hf_ short, Bearer", "plain text, hf_ short, Bearer"),
    ],
)
def test_redact_patterns(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_redact_known_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """A token of no known shape is removed when the process knows it (environment or ``--token``)."""
    monkeypatch.setenv("HF_TOKEN", "plainsecret-from-env")
    register_secret("given-on-the-command-line")
    assert redact("a plainsecret-from-env b given-on-the-command-line") == "a *** b ***"


def test_log_lines_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    from corpusbench import cli

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    handler.addFilter(cli._redact_record)
    logger = logging.getLogger("corpusbench.test_failure_secrets")
    logger.addHandler(handler)
    try:
        logger.warning("retrying %s with %s", "http://hub", "Authorization: Bearer hf_leakedtoken99")
    finally:
        logger.removeHandler(handler)
    assert [r.getMessage() for r in records] == ["retrying http://hub with Authorization: ***"]
