"""``run_cac``: dialogue in, site table + human statistics + plots + manifest out (atomically)."""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from corpusbench.corpus.chat import (
    CHILD,
    chat_inputs,
    read_chat,
    read_dialogue_table,
)
from corpusbench.corpus.records import Utterance
from corpusbench.errors import InputError
from corpusbench.families.cac.config import CacConfig, CacResult
from corpusbench.families.cac.io import write_outputs
from corpusbench.families.cac.records import DyadUnit
from corpusbench.families.cac.sites import extract_sites, load_nlp
from corpusbench.families.cac.stats import human_stats, human_tests

log = logging.getLogger(__name__)
TABLE_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet", ".jsonl.gz", ".csv.gz")


def _is_table(path: Path) -> bool:
    return path.is_file() and any(path.name.endswith(s) for s in TABLE_SUFFIXES)


def read_dialogue(inputs: Sequence[str | Path], config: CacConfig) -> tuple[list[Utterance], list[Path]]:
    """Read CHAT files/folders and dialogue tables; returns utterances and the input files read."""
    paths = [Path(p) for p in inputs]
    if not paths:
        raise InputError("no input given: pass CHAT files/folders or a dialogue table")
    tables = [p for p in paths if _is_table(p)]
    chats = [p for p in paths if p not in tables]
    utterances: list[Utterance] = []
    files: list[Path] = []
    if chats:
        files += [p for _, p in chat_inputs(chats)]
        utterances += read_chat(chats, roles=config.roles, max_line_bytes=config.max_line_bytes)
    for t in sorted(tables):
        files.append(t)
        utterances += read_dialogue_table(
            t, columns=config.table, roles=config.roles, max_line_bytes=config.max_line_bytes
        )
    names = [u.file for u in utterances]
    if len({(n, i) for n, i in zip(names, (u.index for u in utterances), strict=True)}) != len(utterances):
        raise InputError("two inputs contain the same session name; rename one")
    return utterances, files


def _check_lengths(utterances: Sequence[Utterance], limit: int) -> None:
    """Refuse an utterance longer than spaCy parses (``nlp.max_length`` characters, E088): its parser
    needs about 2 GB of memory per 100,000 characters (21 GB for 1.26 million), so the limit stays."""
    for u in utterances:
        if len(u.text) > limit:
            raise InputError(
                f"{u.file}: utterance {u.index + 1} ({u.speaker}) has {len(u.text):,} characters, more than "
                f"spaCy parses ({limit:,}; its parser needs about 2 GB of memory per 100,000): split it "
                "into utterances or leave it out"
            )


def _check_roles(utterances: Sequence[Utterance], config: CacConfig) -> None:
    if not utterances:
        raise InputError("the input has no utterances with words")
    speakers: dict[str, set[str]] = {}
    for u in utterances:
        speakers.setdefault(u.file, set()).add(u.speaker)
    for file, spk in speakers.items():
        if not spk & set(config.roles.child):
            raise InputError(
                f"{file}: no utterances by the child speaker {'/'.join(config.roles.child)} "
                f"(speakers: {', '.join(sorted(spk))}); choose one with --child"
            )
        if not spk & set(config.roles.caretakers):
            raise InputError(
                f"{file}: no utterances by a caretaker {'/'.join(config.roles.caretakers)} "
                f"(speakers: {', '.join(sorted(spk))}); choose them with --caretakers"
            )


def _folder(label: str) -> str | None:
    """The folder part of a transcript/session label (``Gail/020806.cha`` -> ``Gail``), if any."""
    return label.rsplit("/", 1)[0] if "/" in label else None


def base_dyads(files: Sequence[str], mode: str) -> dict[str, str]:
    """Each transcript/session label -> its dyad before any ``split_sessions`` cut."""
    if mode == "file":
        return {f: f for f in files}
    if mode == "dir":
        return {f: _folder(f) or "." for f in files}
    return {f: _folder(f) or f for f in files}


def dyad_unit(bases: dict[str, str], mode: str, parts: int) -> DyadUnit:
    """What a dyad was in this run (recorded in the manifest, printed, carried into the card)."""
    own = [f == d for f, d in bases.items()]
    unit = "file" if all(own) else "folder" if not any(own) else "mixed"
    return DyadUnit(
        mode=mode, unit=unit, n_dyads=len(set(bases.values())), n_sessions=len(bases), parts=parts
    )


def _dyad_of(config: CacConfig, bases: dict[str, str]) -> Callable[[str, int, int], str]:
    def dyad(file: str, pos: int, n: int) -> str:
        base = bases[file]
        if config.split_sessions > 1:
            part = min(config.split_sessions - 1, pos * config.split_sessions // max(n, 1))
            return f"{base}#{part + 1}/{config.split_sessions}"
        return base

    return dyad


def run_cac(
    inputs: Sequence[str | Path],
    out: str | Path,
    config: CacConfig = CacConfig(),
    progress: Callable[[int, int], None] | None = None,
) -> CacResult:
    """Extract sites, compute human statistics and tests, write everything to ``out`` atomically."""
    utterances, files = read_dialogue(inputs, config)
    _check_roles(utterances, config)
    nlp = load_nlp(config.spacy_model)
    _check_lengths(utterances, nlp.max_length)
    bases = base_dyads(sorted({u.file for u in utterances}), config.dyads)
    unit = dyad_unit(bases, config.dyads, config.split_sessions)
    counters: Counter[str] = Counter()
    total, done = len(utterances), 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(done, total)

    sites = list(
        extract_sites(
            utterances,
            nlp=nlp,
            alternation=config.alternation,
            context_utterances=config.context_utterances,
            dyad_of=_dyad_of(config, bases),
            stats=counters,
            progress=tick,
        )
    )
    dyad_sites = [s for s in sites if s.role in {"child", "caretaker"}]
    if not dyad_sites:
        raise InputError(
            f"no {config.alternation.describe()} sites found in the child/caretaker utterances "
            f"of {len(files)} input file(s)"
        )
    if not any(s.role == CHILD for s in dyad_sites):
        raise InputError(
            f"no sites in the child's utterances ({'/'.join(config.roles.child)}): "
            "the human statistics need child sites"
        )
    stats = human_stats(sites, config.alternation, config.zipf_exponent)
    tests = human_tests(stats, baseline=config.baseline, alpha=config.alpha)
    notes = [f"unit of analysis: {unit.describe()}"]
    n_dyads = len({s.dyad for s in stats})
    if config.split_sessions > 1:
        notes.append(
            f"tests across dyads use {n_dyads} pseudo-dyads: part k of each dyad's sessions "
            "(TPR antecedents may lie in an earlier part)"
        )
    if n_dyads < 2:
        notes.append(
            "single dyad: per-speaker statistics only; the across-dyad t-tests need >= 2 dyads "
            "(give a folder with one sub-folder per child, several transcripts with --dyads file, "
            "or --split-sessions K)"
        )
    if unit.unit == "mixed":
        notes.append(
            "mixed units: transcripts inside a folder are grouped by folder, transcripts given on their "
            "own are dyads of one session (--dyads file or dir makes it uniform)"
        )
    if not config.alternation.is_binary:
        notes.append("overlap and Yang's prediction are only defined for two alternatives: left empty")
    for s in stats:
        if s.n_tokens and math.isnan(s.tpr):
            counters[f"groups_without_tpr_cases:{s.role}"] += 1
    result = CacResult(
        out=Path(out),
        sites=sites,
        stats=stats,
        tests=tests,
        counters=dict(sorted(counters.items())),
        pseudo_dyads=config.split_sessions > 1,
        dyad_unit=unit,
        notes=notes,
    )
    write_outputs(result, utterances=utterances, files=files, config=config)
    return result
