"""Items and the sample: what a folder offers for review, cells, blind order, bad folders."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import QUADS, REJECTED, cli

from corpusbench.errors import ConfigError, InputError
from corpusbench.review.items import (
    JUDGE_KEPT,
    JUDGE_REJECTED,
    good_side,
    load_source,
    pair_fingerprint,
    sample,
)


def test_a_run_gives_both_pairs_of_every_quadruplet_and_one_pair_per_rejected_draft(run_dir: Path) -> None:
    src = load_source(run_dir)
    judges = Counter(i.judge for i in src.items)
    assert judges == {JUDGE_KEPT: 2 * len(QUADS), JUDGE_REJECTED: len(REJECTED)}
    assert src.kind == "ltswap-run" and src.name.startswith("ltswap run f00d")
    manifest = run_dir / "manifest.json"  # a real run's corpus fingerprint is a dict with its sha256
    manifest.write_text(
        '{"kind": "corpusbench.ltswap", "corpus": {"fingerprint": {"sha256": "beef0123456789"}}}'
    )
    assert load_source(run_dir).name == "ltswap run beef01234567"
    assert src.populations["wordswap"] == {JUDGE_KEPT: 8, JUDGE_REJECTED: 2}
    # the pair the judge rejected: the second one when the first passed (margin 0.9 > threshold 0.1)
    (basket,) = [i for i in src.items if "basket" in i.good or "basket" in i.bad]
    assert basket.good == "She carried the bucket home." and basket.bad == "She carried the basket home."
    assert all(i.claim for i in src.items)


def test_the_release_has_the_runs_pairs_under_the_same_fingerprints_without_its_prefix_copy(
    run_dir: Path, release_dir: Path
) -> None:
    rel = load_source(release_dir)
    run = {i.fingerprint for i in load_source(run_dir).items if i.judge == JUDGE_KEPT}
    assert rel.kind == "release" and rel.name == "lt-test@0.1.0"
    assert {i.fingerprint for i in rel.items} == run  # the -prefix config adds nothing
    assert {i.subtask for i in rel.items} == {"wordswap", "inflswap", "agrswap"}
    assert {i.bin for i in rel.items if i.subtask == "wordswap"} == {"[4,8)", "[16,32)"}
    noise = next(i for i in rel.items if i.good == "The noise is")
    assert noise.fingerprint == pair_fingerprint("The noise is", "The noises is")
    with_rej = load_source(release_dir, rejected_from=run_dir)
    assert Counter(i.judge for i in with_rej.items)[JUDGE_REJECTED] == len(REJECTED)
    one = load_source(release_dir, configs=["ltswap-inflectionswap"], rejected_from=run_dir)
    assert {(i.subtask, i.judge) for i in one.items} == {
        ("inflswap", JUDGE_KEPT),
        ("inflswap", JUDGE_REJECTED),
    }


def test_the_sample_spreads_over_cells_and_is_seeded(release_dir: Path, run_dir: Path) -> None:
    items = load_source(release_dir, rejected_from=run_dir).items
    cells = {i.cell for i in items if i.judge == JUDGE_KEPT}
    assert len(cells) == 6
    one = sample(items, 6, 0, seed=1)
    assert sorted(i.cell for i in one) == sorted(cells)  # one per cell
    two = sample(items, 9, 2, seed=1)
    per_cell = Counter(i.cell for i in two if i.judge == JUDGE_KEPT)
    assert sum(per_cell.values()) == 9 and max(per_cell.values()) - min(per_cell.values()) <= 1
    assert set(Counter(i.subtask for i in two if i.judge == JUDGE_KEPT).values()) == {3}  # even over subtasks
    assert Counter(i.judge for i in two)[JUDGE_REJECTED] == 2
    assert [i.fingerprint for i in sample(items, 9, 2, seed=1)] == [i.fingerprint for i in two]
    assert [i.fingerprint for i in sample(items, 9, 2, seed=2)] != [i.fingerprint for i in two]
    assert len(sample(items, 1000, 1000, seed=0)) == len(items)  # never more than there is
    sides = Counter(good_side(i, 0) for i in items)
    assert sides[0] > 5 and sides[1] > 5  # the good sentence is first about half the time


def test_a_folder_without_items_is_one_input_error(tmp_path: Path, release_dir: Path) -> None:
    with pytest.raises(InputError, match="neither a release folder"):
        load_source(tmp_path)
    with pytest.raises(InputError, match="no such folder"):
        load_source(tmp_path / "missing")
    with pytest.raises(ConfigError, match="no config 'nope'"):
        load_source(release_dir, configs=["nope"])
    empty = tmp_path / "empty-run"
    empty.mkdir()
    (empty / "manifest.json").write_text('{"kind": "corpusbench.ltswap"}', encoding="utf-8")
    with pytest.raises(InputError, match="no minimal pairs to review"):
        load_source(empty)
    res = cli("review", str(empty), "--reviewer", "ann")
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().count("\n") == 0 and "no minimal pairs to review" in res.stderr
