"""Readers for the released FIT-CLAMS reference data (validation only, never copied: it has no licence).

Where it lies: ``$FITCLAMS_REFERENCE_DIR``, default ``../shared/fitclams`` (a relative path is taken from
the repository root). Without it the conformance tests skip with one reason; with ``CI=true`` they fail.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from corpusbench.families.fitclams.grammar import DEFAULT_PREPS, DEFAULT_RC_VERBS
from corpusbench.families.fitclams.records import Lexicon, Noun, Verb

REPO = Path(__file__).resolve().parents[3]
ENV = "FITCLAMS_REFERENCE_DIR"
DEFAULT = "../shared/fitclams"


def reference_dir() -> Path:
    p = Path(os.environ.get(ENV) or DEFAULT).expanduser()
    return p if p.is_absolute() else (REPO / p).resolve()


SHARED = reference_dir()
LANG_DIR = {"en": "en", "fr": "fr", "de": "de"}
# The RC verbs the reference used (paper Table 13): the CLAMS lists filtered by the shared vocabulary.
REF_RC = {"en": 4, "fr": 1, "de": 2}


def available() -> bool:
    return (SHARED / "MANIFEST.md").is_file()


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing_reason() -> str:
    return (
        f"FIT-CLAMS reference data not found at {SHARED} (no MANIFEST.md); set {ENV} to the released "
        "data (see docs/fitclams.md)"
    )


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as fh:
        return [
            {k.strip(): (v or "").strip() for k, v in r.items()}
            for r in csv.DictReader(fh)
            if r.get("word_sing")
        ]


def _gender(g: str) -> str | None:
    return g if g in ("Masc", "Fem", "Neut") else None


def reference_lexicon(lang: str, corpus: str) -> Lexicon:
    """The reference's chosen words for one pair set (``childes`` or ``wiki``)."""
    base = SHARED / "word_lists" / LANG_DIR[lang]
    nouns = tuple(
        Noun(sg=r["word_sing"], pl=r["word_plur"], gender=_gender(r["gender"]))
        for r in _rows(base / f"nouns_per_bin_{corpus}" / "chosen_small.csv")
    )
    verbs = tuple(
        Verb(sg=r["word_sing"], pl=r["word_plur"], complement=r["long_vp"])
        for r in _rows(base / f"verbs_per_bin_{corpus}" / "chosen_small.csv")
    )
    objects = tuple(
        Noun(sg=r["word_sing"], pl=r["word_plur"], gender=_gender(r["gender"]))
        for r in _rows(base / "objects_both.csv")
        if r["df"] == corpus
    )
    rc = tuple(Verb(sg=s, pl=p) for s, p in DEFAULT_RC_VERBS[lang][: REF_RC[lang]])
    return Lexicon(
        language=lang,
        corpus=corpus,
        nouns=nouns,
        verbs=verbs,
        objects=objects,
        rc_verbs=rc,
        preps=DEFAULT_PREPS[lang],
    )


def reference_pairs(lang: str, corpus: str, paradigm: str) -> list[tuple[str, str]]:
    path = SHARED / "minimal_pairs" / lang / corpus / f"{paradigm}.csv"
    with open(path, encoding="utf-8") as fh:
        rows = [r[0] for r in csv.reader(fh)]
    return [(rows[i], rows[i + 1]) for i in range(0, len(rows), 2)]
