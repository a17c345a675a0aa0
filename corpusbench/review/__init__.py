"""Human validation: a local page where people label a sample of a benchmark's items (``review``),
and what the labels say about the items and the judge (``review report``, the card's section)."""

from __future__ import annotations

from corpusbench.review.session import open_review

__all__ = ["open_review"]
