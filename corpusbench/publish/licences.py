"""Licences carried from corpora to a release: what each source requires and what a release may declare.

A benchmark is derived from its corpora (its rows quote their text), so each config inherits the
conditions of the corpora it was built from, and the release those of all of them. Conditions are
the Creative Commons elements: ``BY`` (attribution), ``SA`` (share alike: same licence elements,
same or later version), ``NC`` (non-commercial), ``ND`` (no derivatives: a benchmark cannot be
released). Public-domain text (``public-domain``, ``cc0-1.0``, ``pddl``) has none; permissive
software/data licences (``mit``, ``apache-2.0``, ``odc-by``...) only ``BY``. Any other id (``other``,
a custom licence) is compared by name only: the release must then declare that same id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

PUBLIC = frozenset({"public-domain", "cc0-1.0", "pddl", "unlicense"})
ATTRIBUTION = frozenset(
    {"mit", "apache-2.0", "bsd-2-clause", "bsd-3-clause", "odc-by", "cc-by-2.0", "cc-by-2.5"}
)
CC = re.compile(r"^cc-by(?P<nc>-nc)?(?P<nd>-nd)?(?P<sa>-sa)?-(?P<version>\d+\.\d+)$")
WEIGHT = {"BY": 1, "SA": 2, "NC": 2, "ND": 8}
UNKNOWN_WEIGHT = 16


@dataclass(frozen=True, slots=True)
class Terms:
    """The conditions of a licence id; ``elements`` is None when corpusbench cannot read them."""

    licence: str
    elements: frozenset[str] | None
    version: tuple[int, ...] = ()

    @property
    def weight(self) -> int:
        """How restrictive: higher is more (unknown licences count as the most restrictive)."""
        if self.elements is None:
            return UNKNOWN_WEIGHT
        return sum(WEIGHT[e] for e in self.elements)


def terms(licence: str) -> Terms:
    lic = licence.strip().lower()
    if lic in PUBLIC:
        return Terms(lic, frozenset())
    if lic in ATTRIBUTION:
        return Terms(lic, frozenset({"BY"}))
    m = CC.match(lic)
    if m:
        elements = {"BY"} | {k.upper() for k in ("nc", "nd", "sa") if m.group(k)}
        return Terms(lic, frozenset(elements), tuple(int(x) for x in m.group("version").split(".")))
    return Terms(lic, None)


def why_not(source: str, release: str) -> str | None:
    """None if text under ``source`` may be released (adapted) under ``release``, else the reason."""
    s, r = terms(source), terms(release)
    if s.licence == r.licence:
        return None if s.elements is None or "ND" not in s.elements else f"{source} forbids derivatives"
    if s.elements is None:
        return f"corpusbench cannot compare {source!r} with other licences; declare the release as {source}"
    if "ND" in s.elements:
        return f"{source} forbids derivatives, so no benchmark built from it can be released"
    if not s.elements:
        return None  # public domain: any release licence
    if r.elements is None:
        return f"{source} requires {'/'.join(sorted(s.elements))}; corpusbench cannot check {release!r}"
    if "SA" in s.elements:
        if r.elements != s.elements or r.version < s.version:
            return f"{source} is share-alike: the release must use the same licence (this or a later version)"
        return None
    missing = s.elements - r.elements
    if missing:
        return f"{source} requires {', '.join(sorted(missing))}, which {release} does not impose"
    return None


def most_restrictive(licences: Iterable[str]) -> str | None:
    """The most restrictive of ``licences`` (the one every other one allows, when there is one)."""
    items = sorted({lic for lic in licences if lic}, key=lambda lic: (terms(lic).weight, lic))
    if not items:
        return None
    for cand in reversed(items):
        if all(why_not(other, cand) is None for other in items):
            return cand
    return items[-1]


def check_release(release: str, sources: dict[str, str]) -> None:
    """Raise ``ConfigError`` (one line) if ``release`` is more permissive than a source allows.

    ``sources`` maps a corpus key to its declared licence."""
    from corpusbench.errors import ConfigError

    for key, lic in sorted(sources.items()):
        reason = why_not(lic, release)
        if reason:
            raise ConfigError(
                f"license: {release!r} is more permissive than corpus {key!r} allows ({lic}): {reason}; "
                f"declare license: {most_restrictive(sources.values())} (or drop that corpus)"
            )
