"""The exception hierarchy. Every expected failure is a ``CorpusbenchError``.

The CLI prints ``str(error)`` as one line and exits non-zero; any other exception
is a bug and keeps its traceback.
"""

from __future__ import annotations


class CorpusbenchError(Exception):
    """Expected failure; ``str(e)`` is shown to the user."""

    exit_code = 1


class InputError(CorpusbenchError, ValueError):
    """Bad input data: paths, encodings, empty or binary corpora, malformed CHAT."""

    exit_code = 2


class ConfigError(CorpusbenchError, ValueError):
    """Bad specs, options, registry names or prompt templates."""

    exit_code = 2


class BackendError(CorpusbenchError, RuntimeError):
    """An external service or model failed: LLM server unreachable, Hub error, OOM."""

    exit_code = 3


class ReleaseExistsError(CorpusbenchError):
    """A release tag already exists on the Hub."""

    exit_code = 4
