"""Importing libraries without the heavy optional dependencies they only probe for.

``import nltk`` pulls in SciPy and scikit-learn (2.2 s of its 2.7 s on a 2-core machine) for
collocation and classifier modules that sentence splitting never uses, and thinc, under spaCy,
imports PyTorch whenever it is installed (2.6 s of the 4.4 s of ``import spacy``). Both libraries
catch the ``ImportError`` and carry on without the optional part. Every ``corpusbench stats`` run
paid these seconds before its first word.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from types import ModuleType


@contextlib.contextmanager
def without(*names: str) -> Iterator[None]:
    """Within the block, importing any of ``names`` (or a submodule) raises ImportError; modules
    already imported stay usable, and afterwards every one of them can be imported again."""
    blocked = [n for n in names if n not in sys.modules]
    for n in blocked:
        sys.modules[n] = None  # type: ignore[assignment]  # Python's documented import block
    try:
        yield
    finally:
        for n in blocked:
            if n in sys.modules and sys.modules[n] is None:
                del sys.modules[n]


def import_nltk() -> ModuleType:
    """``import nltk`` without SciPy and scikit-learn (where they are not imported already)."""
    if "nltk" not in sys.modules:
        with without("scipy", "sklearn"):
            import nltk  # noqa: F401
    return sys.modules["nltk"]
