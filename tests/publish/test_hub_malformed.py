"""``release push`` to a server that answers 200 with a body the Hub client cannot read (issue 42, item 6):
one line, exit 3, no traceback, no token."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import TOKEN, run_cli


def _answering(body: bytes) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_HEAD = _reply

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@pytest.fixture(params=[b"{}", b"not json"], ids=["empty-object", "not-json"])
def broken_hub(request: pytest.FixtureRequest) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _answering(request.param))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_push_to_a_malformed_hub_is_one_line_exit_3(
    broken_hub: str, hub_env: dict[str, str], built: Path
) -> None:
    proc = run_cli("release", "push", str(built), env={**hub_env, "HF_ENDPOINT": broken_hub})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "sent a malformed answer" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and TOKEN not in proc.stdout + proc.stderr
