"""The eval runner: score any HF model on minimal pairs with the metrics of the papers.

- Scorers: :class:`~corpusbench.eval.causal.CausalScorer`,
  :class:`~corpusbench.eval.masked.MaskedPllScorer`, :class:`~corpusbench.eval.seq2seq.Seq2SeqScorer`;
  each has ``score(texts, spans)``, ``sequence_logprob``, ``span_logprob`` and ``conventions()``;
  :mod:`~corpusbench.eval.scorers` opens one for ``--model`` (other kinds, e.g. ``ngram:DIR``, by scheme).
- Determiner choice at a site (a family's own scoring): :class:`~corpusbench.eval.records.DeterminerSite`
  records, scored by the family (``corpusbench/families/<family>/``).
- Data, metrics, outputs: :mod:`~corpusbench.eval.data`, :mod:`~corpusbench.eval.metrics`,
  :func:`corpusbench.eval.runner.run_eval` (``corpusbench eval run``);
  :mod:`~corpusbench.eval.compare` (``corpusbench compare``).

Heavy imports (torch, transformers) happen in the submodules only.
"""
