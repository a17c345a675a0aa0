"""Persistent result cache (SQLite) and ``CachedLLM``, the wrapper every caller goes through.

Keys are sha256 over (operation, model, sampling params / options, rendered prompt, sample index).
Each result is committed the moment it arrives, so a run killed at any point (even SIGKILL) redoes
no finished call. Errors and too-long prompts are stored with their status but are not final:
the next run sends them again. A reply that is not a well-formed answer (``records.malformed``:
empty, NaN log-probs) is stored and counted as an error, and such a row left by an older version
is a miss. With a ``FailureBudget``, the run stops with ``TooManyFailures``
as soon as more calls have failed than the budget allows (the answers so far stay saved).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from corpusbench.errors import BackendError, ConfigError, DiskFullError, disk_full_cause
from corpusbench.llm.base import Backend
from corpusbench.llm.choice import TOP_K
from corpusbench.llm.records import (
    ChoiceRequest,
    ChoiceResult,
    FailureBudget,
    GenRequest,
    GenResult,
    RunReport,
    ScoreRequest,
    ScoreResult,
    as_failure,
    choice_result_from_dict,
    gen_result_from_dict,
    malformed,
    result_to_dict,
    score_result_from_dict,
)
from corpusbench.provenance import fingerprint

log = logging.getLogger(__name__)

FINAL = ("ok", "reject")  # statuses served from the cache; others are retried
SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    op TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1,
    updated REAL NOT NULL
);
"""
Progress = Callable[[int, int], None]  # (done, total)
Req = TypeVar("Req", GenRequest, ChoiceRequest, ScoreRequest)


def gen_key(model: str, req: GenRequest) -> str:
    parts = (model, req.params.as_dict(), req.system, req.prompt, req.sample)
    if req.regex is not None:  # keys of unconstrained requests stay as they were
        return fingerprint("generate.v1", *parts, {"regex": req.regex})
    return fingerprint("generate.v1", *parts)


def choice_key(model: str, req: ChoiceRequest) -> str:
    return fingerprint(
        "choose.v1",
        model,
        list(req.options),
        req.method,
        req.answer_prefix,
        req.max_tokens,
        req.system,
        req.prompt,
        TOP_K,
    )


def score_key(model: str, req: ScoreRequest) -> str:
    # v2: a text whose first character spans byte tokens counts all of them (``first_text_token``)
    return fingerprint("score.v2", model, req.prefix, req.text)


def _served(row: tuple[str, dict[str, Any]] | None, req_id: str, from_dict: Callable[..., Any]) -> Any:
    """The cached answer of ``row``, or None: not final, or malformed (stored by an older version)."""
    if row is None or row[0] not in FINAL:
        return None
    hit = from_dict(req_id, row[1], cached=True)
    why = malformed(hit)
    if why is not None:
        log.debug("%s: the cached answer is malformed (%s); sending the call again", req_id, why)
        return None
    return hit


class ResultCache:
    """A SQLite file of results; safe to share between processes (WAL, busy timeout)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise ConfigError(
                f"{self.path}: cache path is a directory; give a file such as {self.path}/llm.sqlite"
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            self._disk_full(e)
            raise ConfigError(f"{self.path}: not a usable cache database ({e})") from None

    def _disk_full(self, error: BaseException) -> None:
        """Raise a one-line ``DiskFullError`` naming the cache when ``error`` says the disk is full."""
        if disk_full_cause(error) is not None:
            raise DiskFullError(
                f"disk full writing the LLM cache {self.path} ({str(error).splitlines()[0]}): free some "
                "space and rerun the same command; the answers saved so far are kept and not asked again"
            ) from None

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        uniq = list(dict.fromkeys(keys))
        for start in range(0, len(uniq), 500):
            chunk = uniq[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, status, payload in self.db.execute(
                f"SELECT key, status, payload FROM results WHERE key IN ({marks})", chunk
            ):
                found[key] = (status, json.loads(payload))
        return found

    def put(self, key: str, op: str, model: str, status: str, payload: dict[str, Any]) -> None:
        """Insert or replace one result and commit it at once (all or nothing: SQLite's transaction)."""
        row = json.dumps(payload, ensure_ascii=False, sort_keys=True)
        try:
            self.db.execute(
                "INSERT INTO results (key, op, model, status, payload, attempts, updated) "
                "VALUES (?,?,?,?,?,1,?) ON CONFLICT(key) DO UPDATE SET status=excluded.status, "
                "payload=excluded.payload, attempts=results.attempts+1, updated=excluded.updated",
                (key, op, model, status, row, time.time()),
            )
        except sqlite3.OperationalError as e:
            self._disk_full(e)
            raise

    def counts(self) -> dict[str, int]:
        """Rows per status."""
        return dict(self.db.execute("SELECT status, COUNT(*) FROM results GROUP BY status").fetchall())

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()


class TooManyFailures(BackendError):
    """More LLM calls failed than the run's ``FailureBudget`` allows."""

    def __init__(self, failures: int, requests: int, budget: FailureBudget, first: str, cache: Path | None):
        self.failures, self.requests, self.budget = failures, requests, budget
        saved = f"The answers so far are saved in {cache}" if cache else "Nothing was cached (no cache)"
        super().__init__(
            f"{failures} LLM call(s) failed, more than the failure budget allows ({budget.describe()} "
            f"of {requests} requests so far; first: {' '.join(first.split())[:300]}). {saved}: fix the "
            "server and rerun the same command to resume, or allow failures with --max-llm-failures "
            "(a count or a share, e.g. 2%; in a release spec: max_llm_failures)"
            + ("; a server that is only slow needs a longer --llm-timeout" if "timed out" in first else "")
        )


class CachedLLM:
    """``generate``/``choose``/``score`` through a backend with the persistent cache; keeps a ``RunReport``.

    ``budget``: stop with ``TooManyFailures`` once more calls have failed than it allows (counted
    over all calls through this object; None: never stop, failures are only counted)."""

    def __init__(
        self,
        backend: Backend,
        cache: ResultCache | str | Path | None,
        budget: FailureBudget | None = None,
    ):
        self.backend = backend
        self.cache = ResultCache(cache) if isinstance(cache, str | Path) else cache
        self.budget = budget
        self.report = RunReport()  # all calls through this object
        self.last = RunReport()  # the latest generate/choose call
        self.first_error: str | None = None  # the first failure's message, for the error line

    @property
    def model(self) -> str:
        return self.backend.model

    def describe(self) -> dict[str, Any]:
        d = self.backend.describe()
        d["cache"] = str(self.cache.path) if self.cache else None
        if self.budget is not None:
            d["max_failures"] = self.budget.describe()
        return d

    def _check_budget(self, rep: RunReport, planned: int) -> None:
        """Raise ``TooManyFailures`` once the failures exceed the budget for the requests so far."""
        if self.budget is None:
            return
        failures = self.report.failures + rep.failures
        requests = self.report.calls + self.report.cache_hits + planned
        if failures > self.budget.allowed(requests):
            path = self.cache.path if self.cache else None
            raise TooManyFailures(failures, requests, self.budget, self.first_error or "", path)

    @property
    def guided_regex(self) -> bool:
        """Whether the backend honours ``GenRequest.regex`` (guided decoding)."""
        return bool(self.backend.guided_regex)

    def generate(self, reqs: Sequence[GenRequest], progress: Progress | None = None) -> list[GenResult]:
        if not self.backend.guided_regex and any(r.regex is not None for r in reqs):
            raise ConfigError(
                f"the {self.backend.name} LLM backend cannot constrain decoding to a regex (guided "
                "decoding); use the vllm-server, openai (a vLLM server) or ray backend, or turn the "
                "constraint off"
            )
        keys = [gen_key(self.model, r) if r.params.cacheable else None for r in reqs]
        return self._run("generate", reqs, keys, self.backend.generate, gen_result_from_dict, progress)

    def choose(self, reqs: Sequence[ChoiceRequest], progress: Progress | None = None) -> list[ChoiceResult]:
        for r in reqs:
            if (
                len(r.options) < 2
                or len(set(r.options)) != len(r.options)
                or not all(o.strip() for o in r.options)
            ):
                raise ConfigError(
                    f"request {r.id}: options must be two or more distinct non-empty strings, "
                    f"got {r.options!r}"
                )
        keys = [choice_key(self.model, r) for r in reqs]
        return self._run("choose", reqs, keys, self.backend.choose, choice_result_from_dict, progress)

    def score(self, reqs: Sequence[ScoreRequest], progress: Progress | None = None) -> list[ScoreResult]:
        """Each text's log-probability after its prefix (``Backend.score``), cached like the rest."""
        keys: list[str | None] = [score_key(self.model, r) for r in reqs]
        return self._run("score", reqs, keys, self.backend.score, score_result_from_dict, progress)

    def _run(
        self,
        op: str,
        reqs: Sequence[Any],
        keys: list[str | None],
        call: Callable[..., Any],
        from_dict: Callable[..., Any],
        progress: Progress | None,
    ) -> list[Any]:
        t0 = time.perf_counter()
        rep = RunReport()
        out: list[Any] = [None] * len(reqs)
        done = 0
        hits = self.cache.get_many([k for k in keys if k]) if self.cache else {}
        todo: dict[str, list[int]] = {}  # one call per distinct key; duplicates share the answer
        uncached: list[int] = []
        for i, (req, key) in enumerate(zip(reqs, keys, strict=True)):
            if key is None or self.cache is None:
                uncached.append(i)
                rep.uncached += key is None
            elif (hit := _served(hits.get(key), req.id, from_dict)) is not None:
                out[i] = hit
                rep.add(hit, key)
                done += 1
            else:
                rep.retried_errors += key in hits and key not in todo
                todo.setdefault(key, []).append(i)
        if progress and done:
            progress(done, len(reqs))
        send = [idxs[0] for idxs in todo.values()] + uncached

        def on_result(j: int, result: Any) -> None:
            nonlocal done
            result = as_failure(result)  # not a well-formed answer: a failed call, never stored as one
            i = send[j]
            key = keys[i]
            if key is not None and self.cache is not None:
                self.cache.put(key, op, self.model, result.status, result_to_dict(result))
                for k, other in enumerate(todo[key]):
                    out[other] = (
                        result if k == 0 else from_dict(reqs[other].id, result_to_dict(result), cached=True)
                    )
            else:
                out[i] = result
            for other in todo[key] if key is not None and self.cache is not None else [i]:
                rep.add(out[other], key)
                done += 1
            if progress:
                progress(done, len(reqs))
            if result.status == "error":
                self.first_error = self.first_error or str(result.error or "unknown error")
                self._check_budget(rep, len(reqs))

        try:
            if send:
                call([reqs[i] for i in send], on_result)
        finally:
            rep.wall_s = time.perf_counter() - t0
            self.last = rep
            self.report.merge(rep)
        log.info(
            "%s: %d requests, %d calls, %d cache hits, %d failures, %d rejects, %d too long in %.1fs",
            op,
            len(reqs),
            rep.calls,
            rep.cache_hits,
            rep.failures,
            rep.rejects,
            rep.too_long,
            rep.wall_s,
        )
        return out

    def close(self) -> None:
        self.backend.close()
        if self.cache:
            self.cache.close()

    def __enter__(self) -> CachedLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
