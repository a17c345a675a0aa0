"""Reading a ``corpusbench stats`` output folder: the contract every generator builds on.

A stats folder holds:

``counts.parquet``   one row per (form, tag, pos, lemma, morph) with ``count`` (int64): tokens as
                     tagged *in context*, lowercased ``form``; ``tag`` is the tagger's fine tag
                     (PTB for NLTK and English spaCy, spaCy ``tag_`` for fr, STTS for German/HanTa),
                     ``pos`` the coarse universal POS, ``lemma``/``morph`` (UD features) where the
                     tagger gives them (empty strings for NLTK). Sorted by all key columns.
``forms.parquet``    the vocabulary: ``form`` -> ``count`` over all tokens, lowercased and with
                     symbols and digits split off (``counting.vocab_pieces``: "59th" -> "5", "9", "th").
``contexts.parquet`` up to N corpus sentences per (form, tag) of nouns and verbs in which the form
                     occurs exactly once: ``form, tag, sentence`` (original casing, tokens joined by
                     single spaces), ``token_index`` (position of the form), ``n_tokens``.
``manifest.json``    corpus fingerprint, reader, language, tagger and versions, parameters, totals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpusbench.errors import InputError
from corpusbench.io import read_json

if TYPE_CHECKING:
    import pandas as pd

COUNT_KEYS = ("form", "tag", "pos", "lemma", "morph")
FILES = ("counts.parquet", "forms.parquet", "contexts.parquet", "manifest.json")
MANIFEST_KEYS = ("language", "corpus", "totals")
REDO = "the stats folder is damaged; run `corpusbench stats CORPUS --out DIR` again"


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:200]


@dataclass(frozen=True)
class CorpusStats:
    """A loaded stats folder. Tables are pandas DataFrames (read once, lazily)."""

    path: Path
    manifest: dict[str, Any] = field(repr=False)

    @classmethod
    def load(cls, path: str | Path) -> CorpusStats:
        path = Path(path)
        missing = [f for f in FILES if not (path / f).exists()]
        if missing:
            raise InputError(
                f"{path}: not a corpusbench stats folder (missing {', '.join(missing)}); "
                "run `corpusbench stats CORPUS --out DIR` first"
            )
        manifest = read_json(path / "manifest.json")
        missing = [k for k in MANIFEST_KEYS if not isinstance(manifest, dict) or k not in manifest]
        if missing:
            raise InputError(
                f"{path / 'manifest.json'}: not a stats manifest (no {', '.join(missing)}); {REDO}"
            )
        return cls(path=path, manifest=manifest)

    @cached_property
    def counts(self) -> pd.DataFrame:
        return self._table("counts.parquet")

    @cached_property
    def forms(self) -> pd.DataFrame:
        return self._table("forms.parquet")

    @cached_property
    def contexts(self) -> pd.DataFrame:
        return self._table("contexts.parquet")

    def _table(self, name: str) -> pd.DataFrame:
        """One table of the folder; a damaged file is one ``InputError`` naming it."""
        try:
            import pandas as pd

            return pd.read_parquet(self.path / name)
        except Exception as e:  # pyarrow raises ArrowInvalid, OSError... for damaged files
            raise InputError(
                f"{self.path / name}: not a readable parquet file ({_first_line(e)}); {REDO}"
            ) from None

    @cached_property
    def vocabulary(self) -> dict[str, int]:
        """form -> count over the whole corpus (a generator's 'seen word' check uses this)."""
        return dict(zip(self.forms["form"], self.forms["count"].astype(int), strict=True))

    @property
    def language(self) -> str:
        return str(self.manifest["language"])

    @property
    def fingerprint(self) -> dict[str, Any]:
        return dict(self.manifest["corpus"]["fingerprint"])

    @property
    def n_tokens(self) -> int:
        return int(self.manifest["totals"]["tokens"])
