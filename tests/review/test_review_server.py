"""The page's HTTP API on a real loopback server: blind state, answers written before the reply,
undo, resume, JSON-only writes, the page self-contained, a port in use."""

from __future__ import annotations

import json
import re
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import cli, read_rows

from corpusbench.errors import InputError
from corpusbench.review.server import url_of
from corpusbench.review.session import open_review


@pytest.fixture
def served(release_dir: Path, run_dir: Path) -> Iterator[tuple[str, object]]:
    server = open_review(release_dir, reviewer="ann", n=6, n_rejected=2, seed=3, rejected_from=run_dir)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url_of(server), server
    finally:
        server.shutdown()
        server.server_close()


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def _post(url: str, body: dict, ctype: str = "application/json") -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": ctype}, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_the_page_is_one_self_contained_document(served: tuple[str, object]) -> None:
    url, _ = served
    with urllib.request.urlopen(url, timeout=10) as r:
        html = r.read().decode()
        assert r.headers["Content-Type"].startswith("text/html")
    assert "<script>" in html and "<style>" in html
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing fetched from elsewhere


def test_label_undo_and_resume_through_the_api(served: tuple[str, object], release_dir: Path) -> None:
    url, server = served
    s = _get(url + "api/state")
    assert s["total"] == 8 and s["done"] == 0 and s["last"] is None
    item = s["item"]
    assert set(item) == {"fingerprint", "title", "claim", "sentences"}  # no answer, no judge, no margin
    s = _post(
        url + "api/label",
        {"fingerprint": item["fingerprint"], "label": "invalid", "picked": 0, "note": "odd"},
    )
    rows = read_rows(release_dir / "review" / "labels-ann.jsonl")  # on disk before the reply
    assert len(rows) == 1 and rows[0]["label"] == "invalid" and rows[0]["note"] == "odd"
    assert (rows[0]["good"], rows[0]["bad"]) == (
        server.session.by_fp[item["fingerprint"]].good,
        server.session.by_fp[item["fingerprint"]].bad,
    )
    truth = server.session.by_fp[item["fingerprint"]]
    assert rows[0]["picked"] == ("good" if item["sentences"][0] == truth.good else "bad")
    assert s["done"] == 1 and s["item"]["fingerprint"] != item["fingerprint"]
    assert s["last"]["sentences"][s["last"]["good"]] == truth.good  # revealed only once answered
    second = s["item"]["fingerprint"]
    s = _post(url + "api/label", {"fingerprint": second, "label": "valid"})
    s = _post(url + "api/undo", {})
    assert s["done"] == 1 and s["item"]["fingerprint"] == second
    reopened = open_review(release_dir, reviewer="ann", n=6, n_rejected=2, seed=3, port=0)
    try:
        assert reopened.session.state()["item"]["fingerprint"] != item["fingerprint"]
    finally:
        reopened.server_close()
    with pytest.raises(urllib.error.HTTPError) as e:
        _post(url + "api/label", {"fingerprint": second, "label": "valid"}, ctype="text/plain")
    assert e.value.code == 415
    with pytest.raises(urllib.error.HTTPError) as e:
        _post(url + "api/label", {"fingerprint": "nope", "label": "valid"})
    assert e.value.code == 400
    assert len(read_rows(release_dir / "review" / "labels-ann.jsonl")) == 3


def test_two_reviewers_label_the_same_sample_in_their_own_files(release_dir: Path) -> None:
    a = open_review(release_dir, reviewer="ann", n=4, n_rejected=0, seed=1)
    b = open_review(release_dir, reviewer="bob", n=4, n_rejected=0, seed=1)
    try:
        fa, fb = a.session.state()["item"]["fingerprint"], b.session.state()["item"]["fingerprint"]
        assert fa == fb
        a.session.label({"fingerprint": fa, "label": "valid"})
        assert b.session.state()["done"] == 0
    finally:
        a.server_close()
        b.server_close()
    assert sorted(p.name for p in (release_dir / "review").glob("labels-*")) == ["labels-ann.jsonl"]


def test_a_port_in_use_is_one_line_and_exit_2(release_dir: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(InputError, match=f"port {port} on 127.0.0.1 is in use"):
            open_review(release_dir, reviewer="ann", port=port)
        res = cli("review", str(release_dir), "--reviewer", "ann", "--port", str(port))
    assert res.returncode == 2 and res.stderr.strip().count("\n") == 0 and "is in use" in res.stderr
