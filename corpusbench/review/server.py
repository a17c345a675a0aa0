"""The review page's server: the standard library's ``ThreadingHTTPServer`` on 127.0.0.1.

``GET /`` is the page (everything inline, nothing fetched from elsewhere); ``GET /api/state`` the
current item and progress; ``POST /api/label`` and ``POST /api/undo`` (JSON bodies only) write to the
labels file before they answer. The state never holds which sentence is the benchmark's good one for
the item on screen, nor any judge margin: only the previous item's answer is revealed.
"""

from __future__ import annotations

import errno
import json
import logging
from collections import Counter
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from corpusbench.errors import CorpusbenchError, InputError
from corpusbench.review.items import Item, Source, good_side
from corpusbench.review.labels import LabelStore
from corpusbench.review.page import PAGE

log = logging.getLogger(__name__)
MAX_BODY = 16_384


class ReviewSession:
    """A reviewer's pass over a sample: which item is next, what was answered, undo."""

    def __init__(self, source: Source, sample: Sequence[Item], store: LabelStore, seed: int):
        self.source, self.sample, self.store, self.seed = source, list(sample), store, seed
        self.by_fp = {it.fingerprint: it for it in self.sample}

    def _shown(self, it: Item) -> list[str]:
        return [it.good, it.bad] if good_side(it, self.seed) == 0 else [it.bad, it.good]

    def state(self) -> dict[str, Any]:
        labels = self.store.labels()
        done = [it for it in self.sample if it.fingerprint in labels]
        todo = [it for it in self.sample if it.fingerprint not in labels]
        counts = Counter(labels[it.fingerprint].label for it in done)
        last_row = max(
            (labels[it.fingerprint] for it in done),
            key=lambda lab: self.store.rows.index(lab.row),
            default=None,
        )
        last = None
        if last_row is not None:
            it = self.by_fp[last_row.fingerprint]
            last = {
                "title": it.title,
                "sentences": self._shown(it),
                "good": good_side(it, self.seed),
                "label": last_row.label,
                "picked": last_row.picked,
                "note": last_row.note,
            }
        item = None
        if todo:
            it = todo[0]
            item = {
                "fingerprint": it.fingerprint,
                "title": it.title,
                "claim": it.claim,
                "sentences": self._shown(it),
            }
        return {
            "reviewer": self.store.reviewer,
            "source": self.source.name,
            "labels_file": str(self.store.path),
            "total": len(self.sample),
            "done": len(done),
            "counts": dict(counts),
            "item": item,
            "last": last,
        }

    def label(self, body: dict[str, Any]) -> dict[str, Any]:
        it = self.by_fp.get(str(body.get("fingerprint")))
        if it is None:
            raise InputError("that item is not in this review's sample")
        picked = body.get("picked")
        if picked not in (None, 0, 1):
            raise InputError("picked: 0 (first sentence), 1 (second) or null")
        side = good_side(it, self.seed)
        self.store.add(
            it.fingerprint,
            str(body.get("label")),
            note=str(body.get("note") or ""),
            picked=None if picked is None else ("good" if picked == side else "bad"),
            subtask=it.subtask,
            bin=it.bin,
            judge=it.judge,
            good_shown=side,
            good=it.good,  # the file reads on its own: which pair, and which sentence is the intended one
            bad=it.bad,
            ref=it.ref,
        )
        return self.state()

    def undo(self) -> dict[str, Any]:
        self.store.undo([it.fingerprint for it in self.sample])
        return self.state()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("review page: " + format, *args)

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; "
            "style-src 'unsafe-inline'; img-src data:; connect-src 'self'",
        )
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json")

    def do_GET(self) -> None:
        if self.path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, PAGE.encode("utf-8"), "text/html; charset=utf-8")
        elif self.path == "/api/state":
            self._json(HTTPStatus.OK, self.server.session.state())
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {self.path}"})

    def do_POST(self) -> None:
        # JSON only: a page of another site cannot send it here without a CORS preflight we never answer
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "send application/json"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "body too large"})
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise InputError("send a JSON object")
            if self.path == "/api/label":
                self._json(HTTPStatus.OK, self.server.session.label(body))
            elif self.path == "/api/undo":
                self._json(HTTPStatus.OK, self.server.session.undo())
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no such action: {self.path}"})
        except (CorpusbenchError, json.JSONDecodeError) as e:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(e)})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    session: ReviewSession


def make_server(session: ReviewSession, port: int = 0, host: str = "127.0.0.1") -> _Server:
    """Bind the page to ``host``:``port`` (0: a free port); a port in use is one ``InputError``."""
    try:
        server = _Server((host, port), _Handler)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise InputError(
                f"port {port} on {host} is in use; pick another with --port, or leave it out"
            ) from None
        raise InputError(f"cannot serve on {host}:{port} ({e.strerror})") from None
    server.session = session
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/"
