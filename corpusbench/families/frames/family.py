"""The frames family: release config ``frames-sclusters`` (not scored by ``eval run``: ``eval
clusters`` scores word clusterings against it), its demo lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.families.frames import cli, records, release
from corpusbench.family import DemoLine, DemoStep, Family, ParamsSchema, ScoredBy, number


def _is_frames(m: dict[str, Any]) -> bool:
    return m.get("kind") == "corpusbench.frames"


def _is_frames_eval(r: dict[str, Any]) -> bool:
    return r.get("kind") == "corpusbench.frames.eval"


def _always(_: dict[str, Any]) -> bool:
    return True


def _frames_line(m: dict[str, Any], _: Path) -> tuple[str, str]:
    f = m.get("funnel", {})
    key = f"{number(f.get('S-clusters', '?'))} S-clusters over {number(f.get('words', '?'))} words"
    return "sclusters.parquet, occurrences.parquet", key


def _eval_line(r: dict[str, Any], _: Path) -> tuple[str, str]:
    rows = r.get("rows", [])
    if not rows:
        return "results.json", "no clustering scored"
    best = max(rows, key=lambda x: x.get("sp", 0) or 0)
    return "results.json, sp_vs_pp.png", (
        f"{len(rows)} clusterings; best SP {best.get('sp', 0):.3g} ({best.get('name', '?')}, "
        f"{best.get('unclustered', '')}), SR {best.get('sr', 0):.3g}"
    )


def _split_line(s: dict[str, Any], _: Path) -> tuple[str, str]:
    train, test = s.get("train", []), s.get("test", [])
    return "train/, test/, split.json", f"{number(len(train))} train / {number(len(test))} test files"


FAMILY = Family(
    name="frames",
    title="frames",
    rank=40,
    cli=cli.register,
    eval_cli=cli.register_eval,
    release=release.build_configs,
    params=ParamsSchema(
        types=(records.FramesSpec,),  # generated from FramesParams
        needs_corpus=True,
        corpus_keys=("train",),
    ),
    demo=(
        DemoLine(file="manifest.json", recognises=_is_frames, line=_frames_line),
        DemoLine(file="results.json", recognises=_is_frames_eval, line=_eval_line),
        DemoLine(file="split.json", recognises=_always, line=_split_line),
    ),
    scored_by=ScoredBy(task="other", what="frames S-clusters", command="eval clusters"),
    demo_steps=(
        DemoStep(title="frames: train/test split", path="out/frames/split", order=80),
        DemoStep(title="frames: training stats", path="out/frames/train-stats", order=90),
        DemoStep(title="frames: S-clusters", path="out/frames/sclusters", order=100),
        DemoStep(title="eval clusters", path="out/frames/eval-input", order=110),
    ),
)
