"""Releases: spec → build folder → dataset card → provenance → push + tag → round-trip check."""

from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, generators
from corpusbench.publish.spec import ReleaseSpec

__all__ = ["GeneratorContext", "ReleaseConfig", "ReleaseSpec", "generators"]
