"""``minimal-pairs``: existing BLiMP-style pairs packaged as release configs (scored as plain pairs)."""

from __future__ import annotations

from corpusbench.families.minimal_pairs import release
from corpusbench.family import Family, ParamsSchema

FAMILY = Family(
    name="minimal-pairs",
    title="minimal pairs",
    rank=50,
    release=release.build_configs,
    params=ParamsSchema(types=(release.MinimalPairsParams,)),
)
