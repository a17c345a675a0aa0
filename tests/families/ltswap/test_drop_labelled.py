"""``--drop-labelled`` (#37): minimal pairs a labeller marked marginal or invalid are dropped before the
judge and their cells draw replacements; the run and the card say which labels filtered it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import InputError
from corpusbench.families.ltswap.assembly import drop_labelled
from corpusbench.families.ltswap.cells import cell_of
from corpusbench.families.ltswap.funnel import Funnel
from corpusbench.families.ltswap.pipeline import LtswapParams, run_ltswap
from corpusbench.families.ltswap.release import labelled_line, why_not_reused
from corpusbench.families.ltswap.validity import label_filter
from corpusbench.llm.cache import CachedLLM
from tests.families.ltswap.test_pipeline import RuleLLM
from tests.families.ltswap.test_shortcuts import _draft

PARAMS = LtswapParams(per_cell=2, max_per_bin=200, rules=("SVSHORT", "SVLONG"), seed=0)


def _row(q: dict, labels: list[str]) -> dict:
    keep = all(x == "valid" for x in labels)
    return {
        **{
            k: q[k]
            for k in ("subtask", "w1", "w2", "tag1", "tag2", "s1_good", "s1_bad", "s2_good", "s2_bad")
            if k in q
        },
        "labels": labels,
        "keep": keep,
        "why": "" if keep else "test",
    }


def _write(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_any_label_but_valid_puts_a_pair_in_the_filter(tmp_path) -> None:
    a = {"subtask": "wordswap", "w1": "otter", "w2": "beaver"}
    a |= {
        "s1_good": "The otter swam.",
        "s1_bad": "The beaver swam.",
        "s2_good": "A beaver dam.",
        "s2_bad": "An otter dam.",
    }
    _write(tmp_path / "one.jsonl", [_row(a, ["valid", "marginal"])])
    _write(tmp_path / "two.jsonl", [_row(a, ["invalid", "valid"])])  # a second labeller disagrees on pair 1
    f = label_filter([tmp_path])
    assert f.not_valid == {("A beaver dam.", "An otter dam."), ("The otter swam.", "The beaver swam.")}
    assert [x["file"] for x in f.files] == ["one.jsonl", "two.jsonl"]
    assert f.describe()["pairs_not_valid"] == 2 and len(f.digest) == 64
    (tmp_path / "copy").mkdir()
    _write(tmp_path / "copy" / "renamed.jsonl", [_row(a, ["invalid", "marginal"])])
    assert label_filter([tmp_path / "copy"]).digest == f.digest  # what it drops, not what files are called
    _write(tmp_path / "copy" / "renamed.jsonl", [_row(a, ["valid", "valid"])])
    assert label_filter([tmp_path / "copy"]).not_valid == frozenset()
    with pytest.raises(InputError, match="no such labels file"):
        label_filter([tmp_path / "missing.jsonl"])


def test_drop_labelled_counts_its_own_reason() -> None:
    funnel, rejects = Funnel(), []
    bad = _draft("The otter swam in the river.", "otter", "The beaver built a dam.", "beaver")
    fine = _draft("The otter slept in the sun.", "otter", "The beaver ate a branch.", "beaver")
    out = drop_labelled([bad, fine], {("The beaver built a dam.", "The otter built a dam.")}, funnel, rejects)
    assert out == [fine]
    assert funnel.reason_totals("wordswap") == {"labelled_not_valid": 1}
    assert rejects[0]["reason"] == "labelled_not_valid"
    assert drop_labelled([bad, fine], frozenset(), Funnel(), []) == [bad, fine]


@pytest.fixture(scope="module")
def first(slice_stats, tmp_path_factory):
    out = tmp_path_factory.mktemp("labelled")
    res = run_ltswap(slice_stats, CachedLLM(RuleLLM(), out / "cache.sqlite"), PARAMS, out / "lt")
    return out, res


def test_a_labelled_pair_is_replaced_and_the_run_says_so(first, slice_stats, tmp_path) -> None:
    out, res = first
    subtask = next(s for s in ("inflswap", "wordswap", "agrswap") if res.quadruplets[s])
    q = res.quadruplets[subtask][0]
    labels = tmp_path / "labels.jsonl"
    _write(labels, [_row(asdict(q), ["invalid", "valid"])])
    again = run_ltswap(
        slice_stats,
        CachedLLM(RuleLLM(), out / "cache.sqlite"),
        PARAMS,
        tmp_path / "lt",
        labelled=label_filter([labels]),
    )
    pairs = {(x.s1_good, x.s1_bad) for qs in again.quadruplets.values() for x in qs}
    pairs |= {(x.s2_good, x.s2_bad) for qs in again.quadruplets.values() for x in qs}
    assert (q.s1_good, q.s1_bad) not in pairs
    assert again.funnel.reason_totals(subtask)["labelled_not_valid"] >= 1
    assert again.manifest["labelled"]["pairs_not_valid"] == 1
    assert again.manifest["labelled"]["files"][0]["file"] == "labels.jsonl"
    # the cell drew a replacement, or says why it could not
    cell = cell_of(subtask, q.bin, q.rule)
    kept = Counter(cell_of(s, x.bin, x.rule) for s, qs in again.quadruplets.items() for x in qs)
    report = next(
        c for c in again.cells if (c.subtask, c.bin, c.length) == (cell.subtask, cell.bin, cell.length)
    )
    assert kept[cell] >= PARAMS.per_cell or report.reason
    line = labelled_line(again.manifest, subtask)
    assert line.startswith("Human filter: 1 draft(s)") and "`labels.jsonl`" in line
    assert labelled_line(res.manifest, subtask) == ""
    # a release does not reuse a run whose filter differs
    params = json.loads(json.dumps(PARAMS.as_dict()))
    fp = res.manifest["corpus"]["fingerprint"]
    model = res.manifest["llm"]["model"]
    ran, plain = (json.loads((d / "manifest.json").read_text()) for d in (tmp_path / "lt", out / "lt"))
    assert why_not_reused(ran, params, fp, model, label_filter([labels]).digest) is None
    assert "drop_labelled filter differs" in why_not_reused(plain, params, fp, model, "ab" * 32)
    assert "drop_labelled filter differs" in why_not_reused(ran, params, fp, model, None)


def test_a_missing_labels_file_is_one_clear_error(slice_stats, tmp_path) -> None:
    missing = str(tmp_path / "nope.jsonl")
    args = ["ltswap", "build", "x", "--stats", str(slice_stats.path), "--out", str(tmp_path / "o")]
    res = CliRunner().invoke(app, [*args, "--drop-labelled", missing])
    assert res.exit_code != 0
    assert "--drop-labelled" in res.output and "nope.jsonl: no such labels file" in res.output
    assert not (tmp_path / "o" / "manifest.json").exists()


def test_the_card_line_names_a_few_files_and_counts_the_rest() -> None:
    files = [{"file": f"l{n}.jsonl", "sha256": "0" * 64} for n in range(5)]
    meta = {
        "labelled": {"files": files, "pairs_not_valid": 7, "sha256": "ab" * 32},
        "drop_reasons": [
            {"subtask": "wordswap", "bin": 1, "reason": "labelled_not_valid", "count": 2},
            {"subtask": "wordswap", "bin": 2, "reason": "labelled_not_valid", "count": 1},
            {"subtask": "wordswap", "bin": 2, "reason": "cell_full", "count": 9},
            {"subtask": "inflswap", "bin": 2, "reason": "labelled_not_valid", "count": 4},
        ],
    }
    line = labelled_line(meta, "wordswap")
    assert line.startswith("Human filter: 3 draft(s)") and "7 such pairs in 5 label file(s)" in line
    assert "`l0.jsonl`, `l1.jsonl`, `l2.jsonl` and 2 more" in line and "`l3.jsonl`" not in line
