"""The built-in benchmark families, one folder each: a family's generator, params, commands, release
adapter, scoring and prompts, and the ``family.py`` that registers it (entry points of the group
``corpusbench.families``; the registry is :mod:`corpusbench.family`)."""
