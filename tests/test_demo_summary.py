"""``corpusbench demo summary``: one row per demo output, robust to missing and unfinished parts."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.demo import NOT_BUILT, demo_outputs, next_steps, summarize


def _put(folder: Path, name: str, doc: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(doc), encoding="utf-8")


def _demo(base: Path) -> None:
    """A partial demo run: the document shapes the real commands write (trimmed)."""
    _put(
        base / "out/demo/stats",
        "manifest.json",
        {
            "kind": "corpusbench.stats",
            "totals": {"tokens": 1945879, "types": 29268},
            "tagger": {"name": "nltk"},
        },
    )
    _put(
        base / "out/demo/cac",
        "manifest.json",
        {"kind": "cac", "n_sites": 212, "n_utterances": 1548, "tests": [{"passed": True}, {"passed": None}]},
    )
    _put(
        base / "out/demo/fitclams",
        "manifest.json",
        {
            "generator": "fitclams.v1",
            "language": "en",
            "pair_counts": {"default": {"simple_agrmt": 160, "vp_coord": 560}},
        },
    )
    _put(
        base / "out/demo/eval-fitclams",
        "results.json",
        {
            "accuracy": 0.85625,
            "n_pairs": 160,
            "configs": {"simple_agrmt": {}},
            "provenance": {"model": {"model_id": "models/smollm2-135m-instruct"}},
        },
    )
    release = base / "releases/build/corpusbench-default/0.1.0"
    _put(
        release,
        "provenance.json",
        {
            "release": {"name": "corpusbench-default", "tag": "v0.1.0", "repo_id": "corpusbench/default"},
            "configs": [{"name": "simple_agrmt", "rows": 160}, {"name": "obj_rel_within_anim", "rows": 1920}],
        },
    )
    _put(
        release,
        "audit.json",
        {
            "configs": {
                "obj_rel_within_anim": {
                    "solved_by": ["agree-previous-word"],
                    "accuracy": {"agree-previous-word": 1.0},
                }
            }
        },
    )
    _put(
        base / "out/demo/eval-cac", "results.json", {"accuracy": 0.5, "n_sites": 40, "configs": {"child": {}}}
    )
    (base / "out/demo/ltswap").mkdir()  # a run killed before its manifest


def test_rows_in_demo_order_with_key_numbers(tmp_path: Path) -> None:
    _demo(tmp_path)
    rows = {r.where: r for r in summarize(tmp_path)}
    assert [r.where for r in summarize(tmp_path)][: len(demo_outputs())] == [p for _, p in demo_outputs()]
    assert "1,945,879 tokens" in rows["out/demo/stats"].key
    assert (
        rows["out/demo/cac"].key.startswith("212 determiner sites")
        and "1/1 across-dyad" in rows["out/demo/cac"].key
    )
    assert "default 720 pairs, 2 paradigms" in rows["out/demo/fitclams"].key
    assert "smollm2-135m-instruct: accuracy 0.856 on 160 pairs" in rows["out/demo/eval-fitclams"].key
    rel = rows["releases/build/corpusbench-default/0.1.0"].key
    assert "2 configs, 2,080 rows" in rel and "obj_rel_within_anim by agree-previous-word (1.000)" in rel
    assert (
        rows["out/demo/fitclams-de-bible"].key == NOT_BUILT and not rows["out/demo/fitclams-de-bible"].built
    )
    assert (
        "unfinished" in rows["out/demo/ltswap"].key
    )  # a folder without its manifest is not "built" silently
    assert "accuracy 0.500 on 40 sites" in rows["out/demo/eval-cac"].key  # found by scanning: not in the list


def test_cli_prints_table_and_next_steps_and_writes_markdown(tmp_path: Path) -> None:
    _demo(tmp_path)
    (tmp_path / "mk").mkdir()
    (tmp_path / "mk" / "publish.mk").write_text("HUB_PORT := 8012\nhub: $(STAMP)\n\techo serve\n")
    md, js = tmp_path / "out/demo/SUMMARY.md", tmp_path / "s.json"
    res = CliRunner().invoke(
        app, ["demo", "summary", str(tmp_path), "--markdown", str(md), "--json", str(js)]
    )
    assert res.exit_code == 0, res.output
    assert "What the demo made" in res.output and "Next:" in res.output
    assert "make hub" in res.output and "corpusbench eval run" in res.output
    flat = " ".join(res.output.split())
    assert 'load_dataset("corpusbench/default", "simple_agrmt", revision="v0.1.0", split="test")' in flat
    text = md.read_text(encoding="utf-8")
    assert "| eval: SmolLM2 on FIT-CLAMS |" in text and "`out/demo/fitclams-fr-bible` | not built |" in text
    assert len(json.loads(js.read_text())["rows"]) == len(demo_outputs()) + 1


def test_nothing_built_is_not_an_error(tmp_path: Path) -> None:
    _put(tmp_path / "out/demo/stats", "manifest.json", {"kind": "corpusbench.stats", "totals": "garbled"})
    res = CliRunner().invoke(app, ["demo", "summary", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "1 of 14 outputs built" in res.output and "unreadable" in res.output


def test_without_make_hub_the_next_step_is_a_real_push(tmp_path: Path) -> None:
    _demo(tmp_path)
    (tmp_path / "Makefile").write_text("HUB := 1\nhubs: x\n")  # neither is a `hub` target
    steps = " ".join(cmd for cmd, _ in next_steps(summarize(tmp_path), tmp_path))
    assert "make hub" not in steps
    assert (
        "corpusbench release push releases/build/corpusbench-default/0.1.0 --repo-id corpusbench/default"
        in steps
    )
