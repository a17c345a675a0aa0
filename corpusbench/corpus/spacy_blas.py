"""A spaCy pipeline's matrix products on numpy's BLAS instead of blis, with its output kept exact.

thinc's ``NumpyOps`` multiplies through blis. On this project's 2-core AVX2 machines blis reaches
~17-27 GFLOP/s on the tagger's shapes where numpy's OpenBLAS reaches ~67-79 on one thread, and the
tagger's CNN is mostly matrix products (``docs/scaling.md``). The two libraries sum in different
orders, so scores differ in the last bits. Largest difference of a raw score (magnitudes up to
~10) measured: 1.5e-5 for the English tagger over 133k tokens, 2.7e-5 for the French morphologizer
over 116k, 2.9e-6 for either sentence recogniser; no arg-max moved. An arg-max can only move where
the top two scores of a token are that close, so every document in which some guarded component
(tagger, morphologizer, senter: each a spaCy ``Tagger``) has a token whose top two scores are
within ``MARGIN`` (over 350x the largest difference seen) is tagged again on
blis, and that is the answer kept. Pipelines with any other trained component (a parser, NER, a
text classifier) keep blis: their decisions are not guarded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

MARGIN = 1e-2
_NEAR = "corpusbench_near_tie"


class BlasMatmul:
    """Switches the thinc models of ``nlp`` to numpy's BLAS and flags near-tie documents.

    ``pipe`` is ``nlp.pipe`` with that switch: documents come back in order, each one either from
    the fast pass or, where it held a near tie, from blis. ``n_redone`` counts the latter.
    """

    def __init__(self, nlp: Any, models: list[Any], guarded: list[Any]) -> None:
        from thinc.api import NumpyOps
        from threadpoolctl import ThreadpoolController

        self.nlp = nlp
        self.threads = ThreadpoolController()  # made once: a fresh one inspects every loaded library
        self.nodes = [node for model in models for node in model.walk()]
        self.blis_ops = [node.ops for node in self.nodes]
        self.numpy_ops = NumpyOps(use_blis=False)
        self.n_redone = 0
        for comp in guarded:
            _flag_near_ties(comp)

    @classmethod
    def for_pipeline(cls, nlp: Any) -> BlasMatmul | None:
        """The switch for ``nlp``'s enabled components, or None where one of them is not guarded."""
        from spacy.pipeline import Tagger
        from spacy.pipeline.tok2vec import Tok2Vec
        from thinc.api import Model, NumpyOps

        models, guarded = [], []
        for _, comp in nlp.pipeline:
            model = getattr(comp, "model", None)
            if not isinstance(model, Model):
                continue  # rules only: the attribute ruler, a rule or lookup lemmatizer
            if isinstance(comp, Tagger):
                guarded.append(comp)
            elif not isinstance(comp, Tok2Vec):
                return None
            if any(type(node.ops) is not NumpyOps for node in model.walk()):
                return None  # another backend (a GPU, Apple's ops): leave it alone
            models.append(model)
        return cls(nlp, models, guarded) if guarded else None

    def _use(self, numpy_blas: bool) -> None:
        for node, ops in zip(self.nodes, self.blis_ops, strict=True):
            node.ops = self.numpy_ops if numpy_blas else ops

    def pipe(self, texts: Sequence[str], batch_size: int, disable: Iterable[str] = ()) -> list[Any]:
        disable = list(disable)
        self._use(True)
        try:
            with self.threads.limit(limits=1, user_api="blas"):  # one core per worker, as with blis
                docs = list(self.nlp.pipe(texts, batch_size=batch_size, disable=disable))
        finally:
            self._use(False)
        redo = [i for i, doc in enumerate(docs) if doc.user_data.pop(_NEAR, False)]
        if redo:
            self.n_redone += len(redo)
            again = self.nlp.pipe([texts[i] for i in redo], batch_size=batch_size, disable=disable)
            for i, doc in zip(redo, again, strict=True):
                doc.user_data.pop(_NEAR, None)
                docs[i] = doc
        return docs


def _flag_near_ties(comp: Any) -> None:
    """Wrap ``comp.predict`` so that a document with a token whose top two scores are within
    ``MARGIN`` gets ``doc.user_data[_NEAR]``. Only the instance is changed."""
    predict, to_guesses = comp.predict, comp._scores2guesses
    seen: list[list[Any]] = []

    def scores2guesses(scores: list[Any]) -> Any:
        seen.append(scores)
        return to_guesses(scores)

    def flagged_predict(docs: list[Any]) -> Any:
        seen.clear()
        guesses = predict(docs)
        if seen:
            for i in near_tie_docs(seen[-1]):
                docs[i].user_data[_NEAR] = True
        return guesses

    comp._scores2guesses = scores2guesses
    comp.predict = flagged_predict


def near_tie_docs(scores: list[Any]) -> list[int]:
    """Indices of the documents (one score matrix each, tokens x labels) that hold a near tie."""
    lens = [len(s) for s in scores]
    if not sum(lens) or np.shape(scores[0])[-1] < 2:
        return []
    flat = np.concatenate([np.asarray(s) for s in scores if len(s)])
    top2 = np.partition(flat, -2, axis=1)[:, -2:]
    near = np.flatnonzero(top2[:, 1] - top2[:, 0] < MARGIN)
    if not len(near):
        return []
    doc_of = np.repeat(np.arange(len(scores)), lens)
    return np.unique(doc_of[near]).tolist()
