"""FIT-CLAMS: frequency-informed subject-verb agreement minimal pairs (Padovani et al. 2025, §5 / App. D).

from corpusbench.families.fitclams import FitClamsSpec, SelectionConfig, generate
spec = FitClamsSpec(corpora=(("c", "stats/childes"), ("w", "stats/wiki")), language="en")
generate(spec, "out/fitclams")
"""

import importlib
from typing import Any

# Names resolved on first use (PEP 562): the CLI imports this package's ``cli`` module at start-up,
# and the generator pulls in pandas (0.6 s), which ``corpusbench stats`` never needs.
_EXPORTS = {
    "FitClamsSpec": "generator",
    "generate": "generator",
    "Overrides": "lexicon",
    "PARADIGMS": "records",
    "Lexicon": "records",
    "MinimalPair": "records",
    "Noun": "records",
    "Verb": "records",
    "SelectionConfig": "select",
    "expected_pair_counts": "templates",
    "generate_pairs": "templates",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "PARADIGMS",
    "FitClamsSpec",
    "Lexicon",
    "MinimalPair",
    "Noun",
    "Overrides",
    "SelectionConfig",
    "Verb",
    "expected_pair_counts",
    "generate",
    "generate_pairs",
]
