"""Executors: run one picklable function over a stream of shards, in-process, in spawned processes, or
as Ray tasks on a local or remote Ray cluster.

``Executor.map(fn, shards)`` yields ``fn(shard)`` for every shard exactly once, in completion order,
with at most ``workers`` shards running (``2 * workers`` queued locally), so memory stays flat.
Local worker processes exit when the driver dies, however it dies (``procs.exit_with_parent``);
their number is bounded by the usable CPUs (``make_executor``) and the shards (``start``), with a
one-line warning when ``--workers`` asked for more.
Callers merge by shard id (``corpus.stats`` does it in shard order). A ``Foldable`` function lets
the local executor's processes keep one running result each: every process (the driver, with one
worker) makes its own ``fn.folder()`` before its first shard, each shard yields
``folder.fold(shard)`` (a small receipt) and, after the last shard, every process yields
``folder.finish()`` (what it folded), so the driver unpickles and merges one result per worker
instead of one per shard. Ray tasks always call ``fn(shard)``.
Failures: an exception raised
by ``fn`` stops the run and is re-raised in the driver (a ``CorpusbenchError`` as itself); on Ray, a
worker process that dies is replaced and its shard retried (``max_retries``); a shard's result
counts only once it has arrived.
"""

from __future__ import annotations

import abc
import logging
import os
import pickle
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing import get_all_start_methods, get_context
from typing import Any, Protocol, TypeVar, runtime_checkable

from corpusbench.errors import BackendError, ConfigError, CorpusbenchError
from corpusbench.procs import exit_with_parent

log = logging.getLogger(__name__)
S = TypeVar("S")
R = TypeVar("R")
EXECUTORS = ("local", "ray")


class Folder(Protocol):
    """One worker process's running result of a run."""

    def fold(self, shard: Any) -> Any:
        """Add ``shard`` to the running result; answer a small receipt for the driver."""

    def finish(self) -> Any:
        """After this process's last shard: everything it folded."""


@runtime_checkable
class Foldable(Protocol):
    """A shard function whose local worker processes fold their shards into one result each
    (``fn(shard)`` stays the per-shard path, used by Ray)."""

    def __call__(self, shard: Any) -> Any: ...

    def folder(self) -> Folder:
        """A new, empty running result (one per worker process and run)."""


class Executor(abc.ABC):
    """Runs ``fn`` over shards; ``workers`` is the number of shards processed at the same time."""

    name: str
    workers: int

    @abc.abstractmethod
    def map(self, fn: Callable[[S], R], shards: Iterable[S]) -> Iterator[R]:
        """``fn(shard)`` for each shard, as results complete."""

    def start(self, fn: Callable[[S], R], shards: int | None = None) -> None:  # noqa: B027 - optional hook
        """Get workers ready for ``fn`` before the first shard (``map`` works without it); ``shards``:
        how many there will be, if known (no more workers than that)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release worker processes or the Ray connection."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_executor(name: str, workers: int | None = None, address: str | None = None) -> Executor:
    """``local`` (``workers`` processes; 1 = in-process) or ``ray`` (``address``: None starts a local
    Ray with ``workers`` CPUs; ``auto`` or ``HOST:PORT`` joins a running cluster)."""
    if name == "local":
        if address:
            raise ConfigError("--ray-address needs --executor ray")
        executor = LocalExecutor(workers or 1)
        executor.bound(usable_cpus(), "usable CPUs")
        return executor
    if name == "ray":
        return RayExecutor(workers, address)
    raise ConfigError(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")


def usable_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def bound_workers(workers: int, limit: int, what: str, asked: int | None = None) -> int:
    """``workers`` processes, at most ``limit`` (of ``what``: CPUs, shards); a warning line naming
    ``asked`` (the ``--workers`` given) when cut, so that ``--workers 100000`` forks a few."""
    if workers <= max(1, limit):
        return workers
    n = max(1, limit)
    log.warning("--workers %d: using %d, as many as there are %s (%d)", asked or workers, n, what, limit)
    return n


# ------------------------------------------------------------------------------------------- local
class LocalExecutor(Executor):
    """In-process for one worker; otherwise long-lived spawned processes fed through queues."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1 (got {workers})")
        self.workers = workers
        self.asked = workers  # before any bound (for the warning line)
        self.start_method = "in-process" if workers == 1 else ""
        self._procs: list[Any] = []
        self._fn: Any = None

    def bound(self, limit: int, what: str) -> None:
        """No more workers than ``limit`` (of ``what``: usable CPUs, shards); a warning line when cut."""
        self.workers = bound_workers(self.workers, limit, what, self.asked)
        if self.workers == 1:
            self.start_method = "in-process"

    def start(self, fn: Callable[[S], R], shards: int | None = None) -> None:
        """Start the worker processes for ``fn`` now (no more than ``shards``, if given). With no
        other thread running they are forked after ``fn.warm()`` (the tagger loads once, in this
        process, and every worker inherits it); otherwise they are spawned and each loads its own on
        its first shard."""
        if shards is not None and not self._procs:
            self.bound(shards, "shards")
        if self.workers == 1 or self._procs:
            return
        fork = "fork" in get_all_start_methods() and threading.active_count() == 1
        if fork and hasattr(fn, "warm"):
            fn.warm()
        ctx = get_context("fork" if fork else "spawn")
        self.start_method = ctx.get_start_method()
        self._fn = fn
        self._tasks, self._results = ctx.Queue(), ctx.Queue()
        # a worker exits when this process dies (SIGKILL included); the kernel's parent-death signal
        # is tied to the starting thread, so it is asked for only from the main thread
        watch = (os.getpid(), threading.current_thread() is threading.main_thread())
        self._procs = [
            ctx.Process(target=_worker_loop, args=(fn, self._tasks, self._results, *watch), daemon=True)
            for _ in range(self.workers)
        ]
        for p in self._procs:
            p.start()
        log.info("local executor: %d %s worker processes", self.workers, self.start_method)

    def map(self, fn: Callable[[S], R], shards: Iterable[S]) -> Iterator[R]:
        if self.workers == 1:
            if isinstance(fn, Foldable):
                folder = fn.folder()
                yield from map(folder.fold, shards)
                yield folder.finish()
            else:
                yield from map(fn, shards)
            return
        if self._procs and self._fn is not fn:
            self.close()
        self.start(fn)
        tasks, results, procs = self._tasks, self._results, self._procs
        try:
            it = iter(shards)
            in_flight = 0
            exhausted = False
            while True:
                while not exhausted and in_flight < 2 * self.workers:
                    shard = next(it, None)
                    if shard is None:
                        exhausted = True
                        break
                    tasks.put(shard)
                    in_flight += 1
                if in_flight == 0:
                    break
                status, payload = _get(results, procs)
                if status == "error":
                    raise payload
                in_flight -= 1
                yield payload
            if isinstance(fn, Foldable):  # each worker takes one stop signal and answers what it folded
                for _ in procs:
                    tasks.put(None)
                for _ in procs:
                    status, payload = _get(results, procs, finishing=True)
                    if status == "error":
                        raise payload
                    yield payload
        finally:
            self.close()

    def close(self) -> None:
        """Stop the workers: a stop signal each, 5 s in all to finish, then SIGTERM for the rest."""
        procs, self._procs = [p for p in self._procs if p.pid is not None], []  # started ones only
        for _ in procs:
            self._tasks.put(None)
        deadline = time.monotonic() + 5
        for p in procs:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=1)
        if procs:  # stop the queues' feeder threads (a later fork must find no other thread)
            for q in (self._tasks, self._results):
                q.close()
                q.join_thread()


def _get(results: Any, procs: list[Any], finishing: bool = False) -> tuple[str, Any]:
    """The next (status, payload) from the workers; raises when one died before answering."""
    while True:
        try:
            return results.get(timeout=1.0)
        except queue.Empty:
            # a worker that finished has exited by design; only a crash before that is an error
            if any(p.exitcode is not None and (p.exitcode != 0 or not finishing) for p in procs):
                raise RuntimeError("a stats worker process died unexpectedly") from None


def _worker_loop(fn: Callable[[Any], Any], tasks: Any, results: Any, parent: int, pdeathsig: bool) -> None:
    exit_with_parent(parent, pdeathsig)  # otherwise an orphan blocks on ``tasks`` forever
    try:
        folder = fn.folder() if isinstance(fn, Foldable) else None  # this process's running result
        step = folder.fold if folder is not None else fn
        while (shard := tasks.get()) is not None:
            results.put(("ok", step(shard)))
        if folder is not None:
            results.put(("ok", folder.finish()))
    except BaseException as e:  # report every failure to the parent, which re-raises it
        try:
            pickle.dumps(e)
        except Exception:
            e = RuntimeError(f"{type(e).__name__}: {e}")
        results.put(("error", e))


# --------------------------------------------------------------------------------------------- ray
def _apply(fn: Callable[[Any], Any], shard: Any) -> Any:
    return fn(shard)


class RayExecutor(Executor):
    """Shards as Ray tasks (1 CPU each). Joins a running Ray (``address`` or RAY_ADDRESS, or one
    already initialised in this process) or starts a local one with ``workers`` CPUs, shut down on
    ``close``."""

    name = "ray"

    def __init__(self, workers: int | None = None, address: str | None = None, max_retries: int = 3) -> None:
        import ray

        if workers is not None and workers < 1:
            raise ConfigError(f"--workers must be at least 1 (got {workers})")
        self.owns_ray = not ray.is_initialized()
        address = address or os.environ.get("RAY_ADDRESS") or None
        if self.owns_ray:
            try:
                if address:
                    ray.init(address=address, log_to_driver=False)
                else:
                    ray.init(
                        num_cpus=workers or None,
                        include_dashboard=False,
                        log_to_driver=False,
                        object_store_memory=256 * 1024**2,
                        # normal priority, like the local executor (Ray's default is nice 15)
                        _system_config={"worker_niceness": 0},
                    )
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = address or "a new local instance"
                raise BackendError(f"cannot start or join Ray at {where}: {e}") from e
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = workers or cpus
        self.max_retries = max_retries
        self._remote = ray.remote(num_cpus=1, max_retries=max_retries)(_apply)
        log.info("ray executor: %d shards in parallel on a cluster of %d CPUs", self.workers, cpus)

    def map(self, fn: Callable[[S], R], shards: Iterable[S]) -> Iterator[R]:
        import ray
        from ray.exceptions import RayTaskError

        fn_ref = ray.put(fn)
        pending: dict[Any, S] = {}
        it = iter(shards)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < self.workers:  # Ray runs whatever it is given
                    shard = next(it, None)
                    if shard is None:
                        exhausted = True
                        break
                    pending[self._remote.remote(fn_ref, shard)] = shard
                if not pending:
                    return
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    shard = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except RayTaskError as e:
                        cause = e.cause
                        if isinstance(cause, CorpusbenchError):
                            raise cause from None
                        raise RuntimeError(f"{_name(shard)} failed on a Ray worker: {cause!r}") from e
                    except ray.exceptions.RayError as e:
                        raise BackendError(
                            f"{_name(shard)}: Ray gave up after {self.max_retries} retries "
                            f"({type(e).__name__})"
                        ) from e
                    yield result
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        import ray

        if self.owns_ray and ray.is_initialized():
            ray.shutdown()


def _name(shard: Any) -> str:
    describe = getattr(shard, "describe", None)
    return describe() if callable(describe) else repr(shard)[:80]
