"""FIT-CLAMS end to end: stats folders -> lexicons -> the seven paradigms -> an output folder.

Output folder (built in a temporary sibling, renamed at the end):

``pairs/<corpus>/<paradigm>.parquet``  one row per pair (``MinimalPair.as_row``)
``words/<corpus>.json``                chosen nouns, verbs, objects, RC verbs, prepositions with per-corpus
                                       frequencies and bins, the bin edges and the empty bins
``candidates/<corpus>_{nouns,verbs}.parquet``  every candidate with its bin and verdict (the funnel)
``manifest.json``                      spec, inputs (hashes), code version, counts, fingerprint
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from corpusbench.corpus.store import CorpusStats
from corpusbench.errors import ConfigError, InputError
from corpusbench.families.fitclams.grammar import LANGUAGES
from corpusbench.families.fitclams.lexicon import CorpusSelection, Overrides, build_selections
from corpusbench.families.fitclams.records import PARADIGMS, TEMPLATE_VERSION, Lexicon, Noun, Verb
from corpusbench.families.fitclams.select import Judge, SelectionConfig
from corpusbench.families.fitclams.templates import expected_pair_counts, generate_pairs
from corpusbench.io import atomic_dir, write_json
from corpusbench.provenance import code_version, file_sha256, fingerprint

log = logging.getLogger(__name__)
GENERATOR = "fitclams.v1"
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # a file name, never "." or ".."
Progress = Callable[[str, int, int], None]
SELECTION_DEPENDS_ON = (
    "the stats of the corpora (their counts and contexts; with several corpora, the shared vocabulary) and "
    "spec.selection (seed included); never the names the corpora are given"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class FitClamsSpec:
    corpora: tuple[tuple[str, str], ...]  # (name, stats folder)
    language: str
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    overrides: Overrides = field(default_factory=Overrides)
    paradigms: tuple[str, ...] = PARADIGMS

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ConfigError(
                f"FIT-CLAMS has no templates for language {self.language!r}; "
                f"supported: {', '.join(LANGUAGES)}"
            )
        if not self.corpora:
            raise ConfigError("give at least one --corpus NAME=PATH")
        names = [n for n, _ in self.corpora]
        if len(set(names)) != len(names):
            raise ConfigError(f"corpus names must be unique, got {names}")
        for n in names:
            if not _NAME.match(n):
                raise ConfigError(f"corpus name {n!r}: use letters, digits, '_', '-' or '.' (not first)")
        unknown = sorted(set(self.paradigms) - set(PARADIGMS))
        if unknown:
            raise ConfigError(f"unknown paradigm(s) {unknown}; choose from {', '.join(PARADIGMS)}")
        cfg = self.selection
        if cfg.n_bins < 1 or cfg.n_nouns < 1 or cfg.n_verbs < 2 or cfg.n_objects < 1:
            raise ConfigError("need bins >= 1, nouns >= 1, verbs >= 2 (coordination) and objects >= 1")
        if cfg.coord_order not in ("seeded", "file"):
            raise ConfigError(f"coord_order must be 'seeded' or 'file', got {cfg.coord_order!r}")
        if cfg.bin_counts not in ("paper", "agreement"):
            raise ConfigError(f"bin_counts must be 'paper' or 'agreement', got {cfg.bin_counts!r}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "corpora": [list(c) for c in self.corpora],
            "language": self.language,
            "selection": asdict(self.selection),
            "overrides": asdict(self.overrides),
            "paradigms": list(self.paradigms),
        }


@dataclass
class FitClamsReport:
    out: Path
    pair_counts: dict[str, dict[str, int]]
    expected: dict[str, dict[str, int]]
    lexicon_sizes: dict[str, dict[str, int]]
    empty_bins: dict[str, dict[str, list[int]]]
    notes: list[str]


def load_corpora(spec: FitClamsSpec) -> dict[str, CorpusStats]:
    stats = {}
    for name, path in spec.corpora:
        s = CorpusStats.load(path)
        lang = str(s.manifest.get("language", "")).split("-")[0].lower()
        if lang and lang != spec.language:
            raise ConfigError(f"{path}: stats are for language {lang!r}, but --lang is {spec.language!r}")
        stats[name] = s
    return stats


def _word(x: Noun | Verb) -> dict[str, Any]:
    d: dict[str, Any] = {
        "sg": x.sg,
        "pl": x.pl,
        "lemma": x.lemma,
        "freq": dict(x.freq),
        "bins": dict(x.bins),
        "note": x.note,
    }
    if isinstance(x, Noun):
        d["gender"] = x.gender
    else:
        d["complement"] = x.complement
    return d


def _words_doc(sel: CorpusSelection) -> dict[str, Any]:
    lex: Lexicon = sel.lexicon
    return {
        "corpus": sel.corpus,
        "language": lex.language,
        "nouns": [_word(n) for n in lex.nouns],
        "verbs": [_word(v) for v in lex.verbs],
        "objects": [_word(o) for o in lex.objects],
        "rc_verbs": [_word(v) for v in lex.rc_verbs],
        "preps": list(lex.preps),
        "edges": sel.edges,
        "empty_bins": sel.empty_bins,
        "funnel": sel.funnel,
        "notes": sel.notes,
    }


def generate(
    spec: FitClamsSpec, out: str | Path, *, judge: Judge | None = None, progress: Progress | None = None
) -> FitClamsReport:
    """Build every pair set of ``spec`` into ``out`` (atomically; an existing folder is replaced)."""
    stats = load_corpora(spec)
    sels = build_selections(stats, spec.language, spec.selection, spec.overrides, judge)
    names = [n for n, _ in spec.corpora]
    vocab = {n: s.vocabulary for n, s in stats.items()}
    counts: dict[str, dict[str, int]] = {}
    expected: dict[str, dict[str, int]] = {}
    total = len(sels) * len(spec.paradigms)
    done = 0
    with atomic_dir(out) as tmp:
        for sel in sels:
            lex = sel.lexicon
            exp = expected_pair_counts(
                len(lex.nouns), len(lex.verbs), len(lex.objects), len(lex.rc_verbs), len(lex.preps)
            )
            expected[sel.corpus] = {p: exp[p] for p in spec.paradigms}
            counts[sel.corpus] = {}
            for paradigm in spec.paradigms:
                rows = [
                    p.as_row()
                    for p in generate_pairs(
                        lex,
                        paradigm,
                        corpora=names,
                        vocab=vocab,
                        coord_order=spec.selection.coord_order,
                        seed=spec.selection.seed,
                    )
                ]
                if len(rows) != exp[paradigm]:  # the closed formulas of reference §3.9
                    raise AssertionError(f"{paradigm}: {len(rows)} pairs, formula says {exp[paradigm]}")
                path = tmp / "pairs" / sel.corpus / f"{paradigm}.parquet"
                path.parent.mkdir(parents=True, exist_ok=True)
                pd.DataFrame(rows).to_parquet(path, index=False)
                counts[sel.corpus][paradigm] = len(rows)
                done += 1
                if progress:
                    progress(f"{sel.corpus}/{paradigm}", done, total)
            write_json(tmp / "words" / f"{sel.corpus}.json", _words_doc(sel))
            for pos, cands in (("nouns", sel.nouns), ("verbs", sel.verbs)):
                path = tmp / "candidates" / f"{sel.corpus}_{pos}.parquet"
                path.parent.mkdir(parents=True, exist_ok=True)
                pd.DataFrame([c.as_row() for c in cands]).to_parquet(path, index=False)
        inputs = {
            n: {
                "path": str(p),
                "counts_sha256": file_sha256(Path(p) / "counts.parquet"),
                "forms_sha256": file_sha256(Path(p) / "forms.parquet"),
                "corpus": stats[n].manifest.get("corpus", {}),
            }
            for n, p in spec.corpora
        }
        notes = sorted({n for s in sels for n in s.notes})
        sizes = {
            s.corpus: {
                "nouns": len(s.lexicon.nouns),
                "verbs": len(s.lexicon.verbs),
                "objects": len(s.lexicon.objects),
                "rc_verbs": len(s.lexicon.rc_verbs),
                "preps": len(s.lexicon.preps),
            }
            for s in sels
        }
        empty = {s.corpus: s.empty_bins for s in sels}
        words_fp = {s.corpus: fingerprint(_words_doc(s)) for s in sels}
        write_json(
            tmp / "manifest.json",
            {
                "generator": GENERATOR,
                "template_version": TEMPLATE_VERSION,
                "language": spec.language,
                "spec": spec.as_dict(),
                "selection_depends_on": SELECTION_DEPENDS_ON,
                "inputs": inputs,
                "code": code_version(),
                "llm_judge": judge is not None,
                "pair_counts": counts,
                "expected_pair_counts": expected,
                "lexicon_sizes": sizes,
                "empty_bins": empty,
                "notes": notes,
                "fingerprint": fingerprint(
                    GENERATOR,
                    TEMPLATE_VERSION,
                    spec.as_dict(),
                    {n: i["counts_sha256"] for n, i in inputs.items()},
                    words_fp,
                ),
            },
        )
    for s in sels:
        for kind, bins in s.empty_bins.items():
            if bins:
                log.warning("corpus %s: no usable %s candidate in bin(s) %s", s.corpus, kind, bins)
    return FitClamsReport(
        out=Path(out),
        pair_counts=counts,
        expected=expected,
        lexicon_sizes=sizes,
        empty_bins=empty,
        notes=notes,
    )


def parse_corpus_args(values: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``NAME=PATH`` (or a bare PATH, named after its folder)."""
    out = []
    for v in values:
        name, sep, path = v.partition("=")
        if not sep:
            name, path = Path(v).name, v
        if not name or not path:
            raise ConfigError(f"--corpus {v!r}: expected NAME=PATH")
        out.append((name, path))
    return tuple(out)


FITCLAMS_TAGGER = {"en": "spacy", "fr": "spacy", "de": "hanta"}  # in context, with lemmas (and morphology)


def ensure_stats(
    name: str,
    path: str,
    language: str,
    workdir: Path,
    *,
    tagger: str | None = None,
    max_contexts: int = 20,
    workers: int = 1,
) -> str:
    """A stats folder for ``path``: itself, or one computed by ``corpusbench.corpus.stats.compute_stats``
    into ``workdir/name`` (spaCy in context for en/fr, HanTa for de)."""
    p = Path(path)
    if (p / "counts.parquet").exists() or (p / "manifest.json").exists():
        return path
    if not p.exists():
        raise InputError(f"--corpus {name}={path}: no such file or folder")
    try:
        from corpusbench.corpus.stats import StatsParams, compute_stats
    except ImportError:
        raise ConfigError(
            f"--corpus {name}={path} is a raw corpus, and `corpusbench stats` is not available in "
            f"this build; run `corpusbench stats {path} --out DIR` and pass NAME=DIR"
        ) from None
    from corpusbench.corpus.readers import CorpusSpec

    target = workdir / name
    if (target / "counts.parquet").exists():
        log.info("reusing stats of %s in %s", path, target)
        return str(target)
    params = StatsParams(
        lang=language, tagger=tagger or FITCLAMS_TAGGER[language], max_contexts=max_contexts, workers=workers
    )
    compute_stats(CorpusSpec(path=str(p)), target, params)
    return str(target)
