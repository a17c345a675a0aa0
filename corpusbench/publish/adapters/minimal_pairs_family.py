"""``minimal-pairs``: existing BLiMP-style pairs packaged as release configs (scored as plain pairs)."""

from __future__ import annotations

from corpusbench.families import Family, ParamsSchema

FAMILY = Family(
    name="minimal-pairs",
    title="minimal pairs",
    rank=50,
    release="corpusbench.publish.adapters.minimal_pairs:build_configs",
    params=ParamsSchema(types=("corpusbench.publish.adapters.minimal_pairs:MinimalPairsParams",)),
)
