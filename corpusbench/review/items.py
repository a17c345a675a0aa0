"""What a reviewer labels: minimal pairs read from a release folder or a family's run folder, and the
judge's rejected drafts; a stratified, seeded sample over cells (subtask × bin). How a family's pairs
become items (subtask, bin, claim, judge) is its :class:`corpusbench.family.ReviewKind`.

An item's ``fingerprint`` comes from its two sentences only, so a pair labelled in a run keeps its
label in the release built from that run. Which sentence the benchmark calls correct is kept on the
item but never sent to the page before the reviewer answers.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import ConfigError, InputError
from corpusbench.family import Family, ReviewKind, families, load
from corpusbench.io import read_json

GENERIC_CLAIM = "One sentence is acceptable and the other is not."
# the judge's verdict on an item: kept (in the benchmark), rejected (a judged-and-dropped draft), none
JUDGE_KEPT, JUDGE_REJECTED, JUDGE_NONE = "kept", "rejected", "none"


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One minimal pair to label."""

    fingerprint: str
    family: str  # the generator (a family's name)
    subtask: str  # the family's subtask (its ``ReviewKind.subtask``; default: the config's name)
    bin: str  # the bin label ("[2,4)", "bin 3"; the family's ``ReviewKind.bin``)
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
        """The subtask's claim (any family's ``claims``), else the item family's claim, else generic."""
        reviews = _reviews()
        for review in reviews.values():
            if self.subtask in review.claims:
                return review.claims[self.subtask]
        own = reviews.get(self.family)
        return (own.claim if own else "") or GENERIC_CLAIM

    @property
    def title(self) -> str:
        return title(self.subtask)


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """A folder's items and its identity: labels made on another source are refused."""

    path: Path
    kind: str  # release | <family>-run
    name: str  # "corpusbench-default@0.1.0" | what the family's ``run`` hook calls its run
    items: tuple[Item, ...]
    populations: dict[str, dict[str, int]]  # subtask -> {kept: n, rejected: n}: what the sample is of


def pair_fingerprint(good: str, bad: str) -> str:
    return hashlib.sha256(f"{good}\x1f{bad}".encode()).hexdigest()[:16]


def _reviews() -> dict[str, ReviewKind]:
    """The registered families' review hooks, by family name (in rank order)."""
    return {f.name: f.review for f in families.all() if f.review is not None}


def titles() -> dict[str, str]:
    """Subtask -> its title, over the families (rank order, then each family's order of subtasks)."""
    return {sub: t for review in _reviews().values() for sub, t in review.titles.items()}


def title(subtask: str) -> str:
    return titles().get(subtask, subtask)


def judged_families() -> list[Family]:
    """The families whose release items are the ones an LLM judge kept."""
    return [f for f in families.all() if f.review is not None and f.review.judged]


def _run_reviews() -> dict[str, ReviewKind]:
    """The review hooks of the families whose run folders can be reviewed, by family name."""
    return {name: r for name, r in _reviews().items() if r.run is not None and r.recognises is not None}


def _run_of(path: Path, runs: dict[str, ReviewKind]) -> str | None:
    """The family whose run ``path`` is (by its ``manifest.json``), if any."""
    if not (path / "manifest.json").is_file():
        return None
    manifest = read_json(path / "manifest.json")
    return next((name for name, r in runs.items() if load(r.recognises)(manifest)), None)


def load_source(
    path: Path, configs: Sequence[str] | None = None, rejected_from: Path | None = None
) -> Source:
    """Items of a release folder (``provenance.json``) or a family's run folder (``manifest.json``, its
    ``ReviewKind.run``); with ``rejected_from`` (a run folder), that run's rejected drafts as well (a run
    folder's own by default). No items: ``InputError``."""
    path = Path(path)
    runs = _run_reviews()
    labels = " or ".join(r.run_label for r in runs.values())
    if not path.is_dir():
        raise InputError(f"{path}: no such folder (give a release folder or {labels} folder)")
    if (path / "provenance.json").is_file():
        kind, name, items = "release", *_release_items(path, configs)
    elif family := _run_of(path, runs):
        kind = f"{family}-run"
        name, items = load(runs[family].run)(path, configs)
        rejected_from = rejected_from or path
    else:
        raise InputError(f"{path}: neither a release folder (provenance.json) nor {labels} (manifest.json)")
    if rejected_from is not None:
        items += rejected_items(Path(rejected_from), configs)
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


def rejected_items(folder: Path, configs: Sequence[str] | None) -> list[Item]:
    """The judge's rejected drafts in ``folder``: what the families' ``ReviewKind.rejected`` read there."""
    return [
        it for r in _reviews().values() if r.rejected is not None for it in load(r.rejected)(folder, configs)
    ]


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
    reviews = _reviews()
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
        review = reviews.get(family, ReviewKind())
        subtask_of = load(review.subtask) if review.subtask is not None else None
        bin_of = load(review.bin) if review.bin is not None else bin_label
        judge = JUDGE_KEPT if review.judged else JUDGE_NONE
        for row in table:
            good, bad = row[roles.get("good", "sentence_good")], row[roles.get("bad", "sentence_bad")]
            items.append(
                Item(
                    fingerprint=pair_fingerprint(good, bad),
                    family=family,
                    subtask=subtask_of(cfg["name"], row, roles) if subtask_of else cfg["name"],
                    bin=bin_of(row, roles),
                    good=good,
                    bad=bad,
                    judge=judge,
                    ref=str(row.get(roles.get("id", "pair_id"), "")),
                    config=cfg["name"],
                )
            )
    return f"{rel.get('name', path.parent.name)}@{rel.get('version', path.name)}", items


def bin_value(row: dict[str, Any], roles: dict[str, str]) -> Any:
    """A release row's value of its ``bin`` role ("" without one)."""
    return row.get(roles["bin"]) if "bin" in roles else ""


def bin_label(row: dict[str, Any], roles: dict[str, str], word: str = "bin") -> str:
    """The default ``ReviewKind.bin``: ``<word> <value>`` of the row's ``bin`` role, ``all`` without one."""
    value = bin_value(row, roles)
    return "all" if value in ("", None) else f"{word} {value}"


def sample(items: Sequence[Item], n: int, n_rejected: int, seed: int) -> list[Item]:
    """``n`` benchmark items spread evenly over subtasks (a family's subtasks, paradigms, configs) and
    within each over its cells (bins); a group short of its share gives the rest to the
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
