"""Judge calibration: how well a judge (model + filter rule) keeps valid quadruplets and drops invalid ones.

The shipped set ``data/judge_calibration.jsonl`` (158 hand-written items: WordSwap, InflectionSwap,
AgreementSwap; English plus French and German) labels each quadruplet ``keep``: true for a valid
one (each swap makes its sentence wrong), false for an invalid one (near-synonym swaps that stay
sensible, inflection or number swaps that stay grammatical). Per subtask it reports accuracy
(verdict == label), first-option rate (pairwise rules: share of "A" answers; 50% is unbiased),
keep-precision (valid among kept) and keep-recall (kept among valid).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError
from corpusbench.families.ltswap.judging import JudgeItem, Judgement
from corpusbench.io import read_utf8

CALIBRATION_SET = Path(__file__).with_name("data") / "judge_calibration.jsonl"


def read_items(path: str | Path, *, labelled: bool = False) -> tuple[list[JudgeItem], list[bool]]:
    """Items of a JSON-lines file (and their ``keep`` labels when ``labelled``); errors name the line."""
    import json

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such items file")
    items: list[JudgeItem] = []
    labels: list[bool] = []
    seen: set[str] = set()
    text = read_utf8(path, hint="save the items as UTF-8 JSON lines")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
        item = JudgeItem.from_dict(row, where)
        if item.id in seen:
            raise InputError(f"{where}: duplicate id {item.id!r}")
        seen.add(item.id)
        if labelled:
            if not isinstance(row.get("keep"), bool):
                raise InputError(f"{where}: calibration items need a boolean 'keep' label")
            labels.append(row["keep"])
        items.append(item)
    if not items:
        raise InputError(f"{path}: no items")
    return items, labels


def balanced_subset(
    items: Sequence[JudgeItem], labels: Sequence[bool], n: int
) -> tuple[list[JudgeItem], list[bool]]:
    """Up to ``n`` valid and ``n`` invalid items per subtask, spread evenly over the file (deterministic)."""
    keep: set[int] = set()
    for sub in {it.subtask for it in items}:
        for lab in (True, False):
            idx = [i for i, it in enumerate(items) if it.subtask == sub and labels[i] == lab]
            step = max(1, len(idx) / n) if idx else 1
            keep |= {idx[int(k * step)] for k in range(min(n, len(idx)))}
    order = sorted(keep)
    return [items[i] for i in order], [labels[i] for i in order]


@dataclass(frozen=True, slots=True, kw_only=True)
class Scores:
    subtask: str
    n: int
    valid: int
    accuracy: float
    first_option_rate: float | None
    keep_precision: float | None
    keep_recall: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def score(items: Sequence[JudgeItem], labels: Sequence[bool], verdicts: Sequence[Judgement]) -> list[Scores]:
    """Per subtask (and ``all``): accuracy, first-option rate, keep-precision, keep-recall."""
    out = []
    subtasks = sorted({it.subtask for it in items}, key=("wordswap", "inflswap", "agrswap").index)
    for sub in (*subtasks, "all"):
        rows = [
            (lab, v) for it, lab, v in zip(items, labels, verdicts, strict=True) if sub in ("all", it.subtask)
        ]
        kept = [lab for lab, v in rows if v.keep]
        firsts = [v.first_option for _, v in rows if v.first_option is not None]
        out.append(
            Scores(
                subtask=sub,
                n=len(rows),
                valid=sum(lab for lab, _ in rows),
                accuracy=round(sum(lab == v.keep for lab, v in rows) / len(rows), 4),
                first_option_rate=_ratio(sum(firsts), 4 * len(firsts)),
                keep_precision=_ratio(sum(kept), len(kept)),
                keep_recall=_ratio(sum(kept), sum(lab for lab, _ in rows)),
            )
        )
    return out


FIGURES = Path(__file__).with_name("data") / "judge_figures.json"


def judge_figures(model: str | None, judge: dict[str, Any] | None) -> dict[str, Any] | None:
    """The shipped calibration figures of ``model`` under the run's judge (rule + prompt hashes), if
    measured with exactly those prompts (``data/judge_figures.json``, written by ``judge-check --out``)."""
    import json

    if not model or not judge or not FIGURES.is_file():
        return None
    by_model = json.loads(FIGURES.read_text(encoding="utf-8")).get(model) or {}
    fig = (by_model.get("rules") or {}).get(judge["rule"])
    if (
        not fig
        or fig.get("prompts") != judge.get("prompts")
        or fig.get("threshold") != judge.get("threshold")
    ):
        return None
    return {"model": model, "items": by_model.get("n"), **fig}


def figures_markdown(fig: dict[str, Any] | None, rule: str, subtask: str | None = None) -> str:
    """A small Markdown table of a judge's calibration figures (or a line saying how to measure them);
    with ``subtask``, only that subtask's row (where the figures have one): a card section shows the rule
    on the items it judges, not on the other subtasks' items."""
    if fig is None:
        return (
            f"Judge figures: not measured for this model with the `{rule}` rule; run "
            f"`corpusbench ltswap judge-check --llm-model MODEL --filter-rule {rule}`."
        )

    def pct(x: float | None) -> str:
        return "—" if x is None else f"{100 * x:.0f}%"

    scores = fig["scores"]
    own = [s for s in scores if s["subtask"] == subtask]
    if own:
        scores = own
    which = f"{own[0]['n']} labelled {subtask}" if own else f"{fig['items']} labelled"
    lines = [
        f"Judge `{fig['model']}`, rule `{rule}` (threshold {fig['threshold']}), "
        f"on the {which} "
        "quadruplets of corpusbench's calibration set (`corpusbench ltswap judge-check`):",
        "",
        "| subtask | items | accuracy | first-option rate | keep-precision | keep-recall |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in scores:
        lines.append(
            f"| {s['subtask']} | {s['n']} | {pct(s['accuracy'])} | {pct(s['first_option_rate'])} | "
            f"{pct(s['keep_precision'])} | {pct(s['keep_recall'])} |"
        )
    return "\n".join(lines)


SWEEP = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
LM_SWEEP = (0.0, 2.0, 4.0, 6.0, 7.0, 8.0, 10.0, 12.0)  # the lm rule's margins are sentence log-prob leads


def threshold_sweep(
    labels: Sequence[bool], verdicts: Sequence[Judgement], sweep: Sequence[float] = SWEEP
) -> list[dict[str, Any]]:
    """Accuracy, keep-precision and keep-recall of the margin rule at each threshold of ``sweep``
    (items without margins count as dropped), to choose a rule's threshold on labelled data."""
    out = []
    for t in sweep:
        keep = [v.margins is not None and min(v.margins) > t for v in verdicts]
        kept = [lab for lab, k in zip(labels, keep, strict=True) if k]
        out.append(
            {
                "threshold": t,
                "accuracy": round(
                    sum(lab == k for lab, k in zip(labels, keep, strict=True)) / len(labels), 4
                ),
                "keep_precision": _ratio(sum(kept), len(kept)),
                "keep_recall": _ratio(sum(kept), sum(labels)),
            }
        )
    return out
