"""What a reviewer labels: minimal pairs read from a release folder or an LT-Swap run, and the judge's
rejected LT-Swap drafts; a stratified, seeded sample over cells (subtask × bin; paradigm × bin).

An item's ``fingerprint`` comes from its two sentences only, so a pair labelled in a run keeps its
label in the release built from that run. Which sentence the benchmark calls correct is kept on the
item but never sent to the page before the reviewer answers.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import ConfigError, InputError
from corpusbench.io import read_json, read_jsonl

# LT-Swap subtasks under their run names (the release spells two of them out).
LTSWAP_NAMES = {"wordswap": "wordswap", "inflectionswap": "inflswap", "agreementswap": "agrswap"}
TITLES = {"wordswap": "WordSwap", "inflswap": "InflectionSwap", "agrswap": "AgreementSwap"}
CLAIMS = {
    "wordswap": "Swapping in the other rare word makes the sentence's meaning wrong.",
    "inflswap": "The other inflection of the rare word makes the sentence ungrammatical.",
    "agrswap": "The noun in the other number disagrees with its verb, pronoun or determiner "
    "(the sentences stop right after the word that agrees).",
    "fitclams": "The verb in the other number does not agree with its subject.",
}
GENERIC_CLAIM = "One sentence is acceptable and the other is not."
# the judge's verdict on an item: kept (in the benchmark), rejected (a judged-and-dropped draft), none
JUDGE_KEPT, JUDGE_REJECTED, JUDGE_NONE = "kept", "rejected", "none"
REJECTED_FILES = ("rejected_drafts.jsonl", "rejects.jsonl")  # read in this order; rows need sentences
DRAFT_FIELDS = ("subtask", "s1_good", "s2_good", "s1_bad", "s2_bad")


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One minimal pair to label."""

    fingerprint: str
    family: str  # the generator: ltswap | fitclams | minimal-pairs ...
    subtask: str  # wordswap | inflswap | agrswap | the FIT-CLAMS paradigm
    bin: str  # the bin label ("[2,4)"; FIT-CLAMS: the noun bin)
    good: str
    bad: str
    judge: str  # kept | rejected | none
    ref: str  # pair id or draft id, for people reading the labels
    config: str = ""  # the release config it is a row of ("": a run's item or a rejected draft)

    @property
    def cell(self) -> str:
        return f"{self.subtask} {self.bin}"

    @property
    def claim(self) -> str:
        return CLAIMS.get(self.subtask, CLAIMS["fitclams"] if self.family == "fitclams" else GENERIC_CLAIM)

    @property
    def title(self) -> str:
        return TITLES.get(self.subtask, self.subtask)


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """A folder's items and its identity: labels made on another source are refused."""

    path: Path
    kind: str  # release | ltswap-run
    name: str  # "corpusbench-default@0.1.0" | "ltswap run <corpus fingerprint>"
    items: tuple[Item, ...]
    populations: dict[str, dict[str, int]]  # subtask -> {kept: n, rejected: n}: what the sample is of


def pair_fingerprint(good: str, bad: str) -> str:
    return hashlib.sha256(f"{good}\x1f{bad}".encode()).hexdigest()[:16]


def _bin_label(value: Any) -> str:
    from corpusbench.corpus.bins import ltswap_bin_label

    if isinstance(value, str):
        return value
    try:
        return ltswap_bin_label(int(value))
    except (ValueError, TypeError, IndexError):
        return str(value)


def load_source(
    path: Path, configs: Sequence[str] | None = None, rejected_from: Path | None = None
) -> Source:
    """Items of a release folder (``provenance.json``) or an LT-Swap run (``manifest.json``); with
    ``rejected_from`` (a run folder), that run's rejected drafts as well. No items: ``InputError``."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(f"{path}: no such folder (give a release folder or an LT-Swap run folder)")
    if (path / "provenance.json").is_file():
        kind, name, items = "release", *_release_items(path, configs)
    elif (path / "manifest.json").is_file() and read_json(path / "manifest.json").get(
        "kind"
    ) == "corpusbench.ltswap":
        kind, name, items = "ltswap-run", *_run_items(path, configs)
        rejected_from = rejected_from or path
    else:
        raise InputError(
            f"{path}: neither a release folder (provenance.json) nor an LT-Swap run (manifest.json)"
        )
    if rejected_from is not None:
        items += _rejected_items(Path(rejected_from), configs)
    if not items:
        raise InputError(
            f"{path}: no minimal pairs to review"
            + (f" in config(s) {', '.join(configs)}" if configs else " (review reads minimal-pair configs)")
        )
    seen: dict[str, Item] = {}
    for it in items:  # a pair both kept and rejected (two drafts sharing it) counts as kept
        if it.fingerprint not in seen or it.judge == JUDGE_KEPT:
            seen[it.fingerprint] = it
    uniq = tuple(sorted(seen.values(), key=lambda i: (i.family, i.subtask, i.bin, i.fingerprint)))
    pops: dict[str, dict[str, int]] = defaultdict(lambda: {JUDGE_KEPT: 0, JUDGE_REJECTED: 0})
    for it in uniq:
        if it.judge != JUDGE_NONE:
            pops[it.subtask][it.judge] += 1
    return Source(path=path, kind=kind, name=name, items=uniq, populations=dict(pops))


def _wanted(name: str, configs: Sequence[str] | None) -> bool:
    return not configs or name in configs


def _wanted_subtask(sub: str, configs: Sequence[str] | None) -> bool:
    """An LT-Swap subtask asked for by its name or a release config's (``ltswap-inflectionswap``)."""
    if not configs:
        return True
    return sub in {LTSWAP_NAMES.get(c.rsplit("-", 1)[-1], c.rsplit("-", 1)[-1]) for c in configs}


def release_fingerprints(path: Path, manifest: dict[str, Any]) -> set[str]:
    """The fingerprints of a release's pairs, from its ``manifest`` (a build not yet finished has none
    in ``provenance.json``)."""
    return {i.fingerprint for i in release_items(path, manifest)}


def release_items(path: Path, manifest: dict[str, Any]) -> list[Item]:
    """A release's pairs (every minimal-pair config but the ``-prefix`` repeats), from its ``manifest``."""
    return _release_items(path, None, manifest)[1]


def _release_items(
    path: Path, configs: Sequence[str] | None, manifest: dict[str, Any] | None = None
) -> tuple[str, list[Item]]:
    import pyarrow.parquet as pq

    manifest = manifest or read_json(path / "provenance.json")
    rel = manifest.get("release", {})
    known = [c["name"] for c in manifest.get("configs", [])]
    for c in configs or ():
        if c not in known:
            raise ConfigError(f"--configs: {path} has no config {c!r} (it has {', '.join(known)})")
    gens = {g["id"]: g["name"] for g in manifest.get("generators", [])}
    items: list[Item] = []
    for cfg in manifest.get("configs", []):
        family = gens.get(cfg["generator"], cfg["generator"])
        roles = cfg.get("roles", {})
        if (
            cfg.get("task") != "minimal_pairs"
            or "prefix_good" in roles  # the -prefix variant repeats the plain config's pairs
            or not _wanted(cfg["name"], configs)
        ):
            continue
        table = pq.read_table(path / cfg["files"][0]["path"]).to_pylist()
        short = cfg["name"].rsplit("-", 1)[-1]
        subtask = LTSWAP_NAMES.get(short, short) if family == "ltswap" else cfg["name"]
        for row in table:
            good, bad = row[roles.get("good", "sentence_good")], row[roles.get("bad", "sentence_bad")]
            if family == "fitclams":
                subtask = str(row.get(roles.get("paradigm", "paradigm"), cfg["name"]))
            b = row.get(roles["bin"]) if "bin" in roles else ""
            items.append(
                Item(
                    fingerprint=pair_fingerprint(good, bad),
                    family=family,
                    subtask=subtask,
                    bin=_bin_label(row.get("bin_label") or b)
                    if family == "ltswap"
                    else _other_bin(family, b),
                    good=good,
                    bad=bad,
                    judge=JUDGE_KEPT if family == "ltswap" else JUDGE_NONE,
                    ref=str(row.get(roles.get("id", "pair_id"), "")),
                    config=cfg["name"],
                )
            )
    return f"{rel.get('name', path.parent.name)}@{rel.get('version', path.name)}", items


def _other_bin(family: str, value: Any) -> str:
    if value in ("", None):
        return "all"
    return f"noun bin {value}" if family == "fitclams" else f"bin {value}"


def _run_items(path: Path, configs: Sequence[str] | None) -> tuple[str, list[Item]]:
    import pyarrow.parquet as pq

    manifest = read_json(path / "manifest.json")
    items: list[Item] = []
    for sub in TITLES:
        file = path / f"{sub}.parquet"
        if not file.is_file() or not _wanted_subtask(sub, configs):
            continue
        for q in pq.read_table(file).to_pylist():
            items += _quad_items(q, sub, JUDGE_KEPT, (1, 2))
    fp = manifest.get("corpus", {}).get("fingerprint", "")
    corpus = str(fp.get("sha256", "") if isinstance(fp, dict) else fp)[:12] or path.name
    return f"ltswap run {corpus}", items


def _quad_items(q: dict[str, Any], sub: str, judge: str, pairs: Iterable[int]) -> list[Item]:
    out = []
    for k in pairs:
        good, bad = q[f"s{k}_good"], q[f"s{k}_bad"]
        out.append(
            Item(
                fingerprint=pair_fingerprint(good, bad),
                family="ltswap",
                subtask=sub,
                bin=_bin_label(q.get("bin", "")),
                good=good,
                bad=bad,
                judge=judge,
                ref=f"{q.get('id', '')}-{k}",
            )
        )
    return out


def _rejected_items(run: Path, configs: Sequence[str] | None) -> list[Item]:
    """Drafts the judge judged and dropped: rows with the four sentences in ``rejected_drafts.jsonl``
    (``ltswap build`` writes it) or ``rejects.jsonl``. For each, the pair the judge rejected
    (``margins``: the first at or below ``threshold``; else the first pair)."""
    items: list[Item] = []
    for name in REJECTED_FILES:
        file = run / name
        if not file.is_file():
            continue
        for n, row in enumerate(read_jsonl(file)):
            if (
                not all(row.get(f) for f in DRAFT_FIELDS)
                or row.get("reason", "filter_rejected") == "cell_full"
            ):
                continue
            sub = LTSWAP_NAMES.get(row["subtask"], row["subtask"])
            if not _wanted_subtask(sub, configs):
                continue
            margins, threshold = row.get("margins") or [], float(row.get("threshold", 0.0))
            k = next((i + 1 for i, m in enumerate(margins[:2]) if m is None or m <= threshold), 1)
            items += _quad_items({**row, "id": row.get("id", f"{name}:{n + 1}")}, sub, JUDGE_REJECTED, (k,))
        break
    return items


def sample(items: Sequence[Item], n: int, n_rejected: int, seed: int) -> list[Item]:
    """``n`` benchmark items spread evenly over subtasks (LT-Swap subtasks, FIT-CLAMS paradigms,
    configs) and within each over its cells (bins); a group short of its share gives the rest to the
    others. Plus ``n_rejected`` rejected drafts spread the same way; all shuffled together (seeded)."""
    if n < 0 or n_rejected < 0:
        raise ConfigError("--sample and --rejected must be 0 or more")
    rng = random.Random(seed)
    kept = [i for i in items if i.judge != JUDGE_REJECTED]
    rejected = [i for i in items if i.judge == JUDGE_REJECTED]
    chosen = _stratified(kept, n, rng) + _stratified(rejected, n_rejected, rng)
    rng.shuffle(chosen)
    return chosen


def _allocate(sizes: dict[str, int], n: int, rng: random.Random) -> dict[str, int]:
    """``n`` spread evenly over groups of the given sizes; leftovers to random groups of the fewest."""
    taken = dict.fromkeys(sizes, 0)
    left = min(n, sum(sizes.values()))
    while left > 0:
        open_groups = [g for g in sorted(sizes) if taken[g] < sizes[g]]
        share, extra = divmod(left, len(open_groups))
        for j, g in enumerate(sorted(open_groups, key=lambda g: (taken[g], rng.random()))):
            add = min(share + (j < extra), sizes[g] - taken[g])
            taken[g] += add
            left -= add
    return taken


def _stratified(items: Sequence[Item], n: int, rng: random.Random) -> list[Item]:
    groups: dict[str, dict[str, list[Item]]] = defaultdict(lambda: defaultdict(list))
    for it in items:
        groups[it.subtask][it.cell].append(it)
    for sub in sorted(groups):
        for cell in sorted(groups[sub]):
            rng.shuffle(groups[sub][cell])
    per_sub = _allocate({s: sum(map(len, cells.values())) for s, cells in groups.items()}, n, rng)
    out: list[Item] = []
    for sub in sorted(groups):
        per_cell = _allocate({c: len(p) for c, p in groups[sub].items()}, per_sub[sub], rng)
        out += [it for c in sorted(groups[sub]) for it in groups[sub][c][: per_cell[c]]]
    return out


def good_side(item: Item, seed: int) -> int:
    """0 when the good sentence is shown first, 1 when second: seeded per item, stable across reloads."""
    return int(hashlib.sha256(f"{seed}:{item.fingerprint}".encode()).hexdigest(), 16) % 2
