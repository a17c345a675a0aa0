"""CAC (Contextual Alternative Choice): choice sites from dialogue, human benchmarks, model metrics.

- :func:`~corpusbench.families.cac.pipeline.run_cac`: dialogue in, ``sites.parquet`` + human
  statistics + plots + manifest out.
- :func:`~corpusbench.families.cac.io.load_sites` / :func:`~corpusbench.families.cac.io.site_prompt`:
  what a model scorer needs per site.
- :func:`~corpusbench.families.cac.model.evaluate_model`: per-site :class:`SiteChoice` in,
  expected overlap / bias / predicted overlap / TPR / accuracy per dyad and the tests out.
"""

from corpusbench.families.cac.records import Alternation, GroupStats, Site, SiteChoice, TestResult

__all__ = ["Alternation", "GroupStats", "Site", "SiteChoice", "TestResult"]
