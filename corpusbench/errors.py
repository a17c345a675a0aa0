"""The exception hierarchy. Every expected failure is a ``CorpusbenchError``.

The CLI prints ``str(error)`` as one line and exits non-zero; any other exception
is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager


class CorpusbenchError(Exception):
    """Expected failure; ``str(e)`` is shown to the user."""

    exit_code = 1


class InputError(CorpusbenchError, ValueError):
    """Bad input data: paths, encodings, empty or binary corpora, malformed CHAT."""

    exit_code = 2


class ConfigError(CorpusbenchError, ValueError):
    """Bad specs, options, registry names or prompt templates."""

    exit_code = 2


class ParamError(ConfigError):
    """A bad value of one parameter, named as the library calls it (``per_cell``), never as a command line
    or a spec spells it: the caller re-raises it under its own name with :meth:`named` (the CLI through
    :func:`option_names`: ``--per-cell``; ``release build``: ``families.<family>.params.per_cell``)."""

    def __init__(self, param: str, problem: str) -> None:
        self.param, self.problem = param, problem
        super().__init__(self._text(param))

    def _text(self, name: str) -> str:
        """``NAME problem``, or ``NAME: problem`` when the problem starts with a colon."""
        return f"{name}{'' if self.problem.startswith(':') else ' '}{self.problem}"

    def named(self, name: str) -> ConfigError:
        return ConfigError(self._text(name))


@contextmanager
def option_names(**spelling: str) -> Iterator[None]:
    """A command's body: a :class:`ParamError` raised inside names the command's option instead of the
    parameter (``--per-cell`` for ``per_cell``; ``spelling``: the exceptions, ``timeout="--llm-timeout"``)."""
    try:
        yield
    except ParamError as e:
        raise e.named(spelling.get(e.param, "--" + e.param.replace("_", "-"))) from None


class BackendError(CorpusbenchError, RuntimeError):
    """An external service or model failed: LLM server unreachable, Hub error, OOM."""

    exit_code = 3


class ReleaseExistsError(CorpusbenchError):
    """A release tag already exists on the Hub."""

    exit_code = 4


class DiskFullError(BackendError):
    """The disk or quota is full (``ENOSPC``/``EDQUOT``, SQLite's "database or disk is full")."""


DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
DISK_FULL_TEXTS = ("No space left on device", "Disk quota exceeded", "database or disk is full")


def disk_full_cause(error: BaseException) -> BaseException | None:
    """The exception in ``error``'s cause/context chain that says the disk is full, if any."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        by_errno = isinstance(e, OSError) and e.errno in DISK_FULL_ERRNOS
        if by_errno or any(t in str(e) for t in DISK_FULL_TEXTS):  # pyarrow and sqlite3 set no errno
            return e
        e = e.__cause__ or e.__context__
    return None


def disk_full_error(error: BaseException) -> DiskFullError | None:
    """A one-line ``DiskFullError`` for an error caused by a full disk (else None)."""
    cause = disk_full_cause(error)
    if cause is None:
        return None
    where = getattr(cause, "filename", None)
    what = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(cause).splitlines()[0]
    return DiskFullError(
        f"disk full{f' writing {where}' if where else ''} ({what}): "
        "free some space (or write to another disk) and run the command again"
    )


#: Secrets a command was given (``--token``) besides those in the environment (``SECRET_ENV``).
_SECRETS: set[str] = set()
SECRET_ENV = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY")
_VALUE = r"[^\s'\",;}]+"
_SECRET_PATTERNS = (
    # Authorization: [scheme] VALUE, as a header, a JSON key or a repr; then a bare "Bearer VALUE"
    (
        re.compile(rf"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(?:(?:bearer|basic|token)\s+)?{_VALUE}"),
        r"\1***",
    ),
    (re.compile(rf"(?i)\b(bearer\s+){_VALUE}"), r"\1***"),
    (re.compile(r"\bhf_[A-Za-z0-9_-]{6,}"), "hf_***"),
)


def register_secret(value: str | None) -> None:
    """Remember a secret (a ``--token`` value) so that :func:`redact` removes it from every message."""
    if value and len(value) >= 4:
        _SECRETS.add(value)


def redact(text: str) -> str:
    """``text`` without tokens: ``hf_…``, ``Bearer …``, ``Authorization`` values and every known secret
    (registered ones and those of ``SECRET_ENV``) become ``***``."""
    secrets = _SECRETS | {v for k in SECRET_ENV if len(v := os.environ.get(k, "")) >= 4}
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    for pattern, repl in _SECRET_PATTERNS:
        text = pattern.sub(repl, text)
    return text
