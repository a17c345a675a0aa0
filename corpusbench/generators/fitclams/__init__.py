"""FIT-CLAMS: frequency-informed subject-verb agreement minimal pairs (Padovani et al. 2025, §5 / App. D).

from corpusbench.generators.fitclams import FitClamsSpec, SelectionConfig, generate
spec = FitClamsSpec(corpora=(("c", "stats/childes"), ("w", "stats/wiki")), language="en")
generate(spec, "out/fitclams")
"""

from corpusbench.generators.fitclams.generator import FitClamsSpec, generate
from corpusbench.generators.fitclams.lexicon import Overrides
from corpusbench.generators.fitclams.records import PARADIGMS, Lexicon, MinimalPair, Noun, Verb
from corpusbench.generators.fitclams.select import SelectionConfig
from corpusbench.generators.fitclams.templates import expected_pair_counts, generate_pairs

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
