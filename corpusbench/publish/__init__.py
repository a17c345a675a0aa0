"""Releases: spec → build folder → dataset card → provenance → push + tag → round-trip check."""

# params adds the generator checks (registered name, params) that ReleaseSpec.load runs last
from corpusbench.publish import params as params
from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, generators
from corpusbench.publish.spec import ReleaseSpec

__all__ = ["GeneratorContext", "ReleaseConfig", "ReleaseSpec", "generators"]
