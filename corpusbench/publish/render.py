"""Everything in a release folder besides the parquet data, rendered from ``provenance.json``.

``write_release_files(folder, manifest)`` writes ``provenance.json``, the dataset card, the
``corpusbench eval`` config, the lm-eval-harness task folder and the BabyLM JSONL files. It depends
only on the manifest and the parquet files, so a build can be re-targeted to another repo id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2
import yaml

from corpusbench.family import TaskKind, load
from corpusbench.io import atomic_write, read_json, write_json, write_jsonl
from corpusbench.publish import tables
from corpusbench.publish.plugins import tasks
from corpusbench.review import card as review_card

TEMPLATES = Path(__file__).parent / "templates"
CARD_TEMPLATE = "dataset_card.md.j2"
LM_EVAL_README = "lm_eval_readme.md.j2"
LM_EVAL_TASKS = ("minimal_pairs", "prefix_pairs")
AUDIT_FILE = "audit.json"


def write_release_files(folder: Path, manifest: dict[str, Any]) -> None:
    """(Re)write every non-data file of a release folder from its manifest."""
    folder = Path(folder)
    manifest = review_card.attach(folder, manifest)  # labels under review/: the card's human validation
    write_json(folder / "provenance.json", manifest)
    for rel, text in render_eval_files(manifest).items():
        with atomic_write(folder / rel) as fh:
            fh.write(text)
    for cfg in manifest["configs"]:
        rows = babylm_rows(cfg, tables.read_parquet(folder / cfg["files"][0]["path"]))
        if rows is not None:
            write_jsonl(folder / "babylm" / f"{cfg['name']}.jsonl", rows)
    audit_path = folder / AUDIT_FILE  # written by `corpusbench audit`; kept when the card is re-rendered
    audit = read_json(audit_path) if audit_path.is_file() else None
    with atomic_write(folder / "README.md") as fh:
        fh.write(render_card(manifest, audit))


def lm_eval_family(manifest: dict[str, Any]) -> str:
    return re.sub(r"[^a-z0-9_]", "_", manifest["release"]["name"].lower())


def lm_eval_task(manifest: dict[str, Any], config: str) -> str:
    return f"{lm_eval_family(manifest)}_{re.sub(r'[^a-z0-9_]', '_', config)}"


def card_header(manifest: dict[str, Any]) -> dict[str, Any]:
    """The YAML front matter: Hub metadata plus one ``configs`` entry per config (split ``test``)."""
    rel, configs = manifest["release"], manifest["configs"]
    pairs = any(c["task"] in LM_EVAL_TASKS for c in configs)
    header: dict[str, Any] = {
        "pretty_name": rel["pretty_name"],
        "license": rel["license"],
        "language": rel["language"],
        "task_categories": ["text-classification"] if pairs else ["other"],
        "size_categories": [tables.size_category(sum(c["rows"] for c in configs))],
        "tags": sorted({"corpusbench", "minimal-pairs" if pairs else "benchmark", *rel["tags"]}),
    }
    if pairs:
        header["task_ids"] = ["acceptability-classification"]
    header["configs"] = [
        {
            "config_name": c["name"],
            "data_files": [{"split": rel["split"], "path": f"data/{c['name']}/{rel['split']}-*"}],
        }
        for c in configs
    ]
    return header


def render_card(manifest: dict[str, Any], audit: dict[str, Any] | None = None) -> str:
    """The dataset card; with ``audit`` (from ``corpusbench audit``) it has a shallow-baselines section."""
    header = yaml.safe_dump(card_header(manifest), sort_keys=False, allow_unicode=True, width=1000)
    citations: list[str] = []
    limitations: list[str] = list(manifest["release"]["limitations"])
    for c in manifest["configs"]:
        citations += [b for b in c["citations"] if b not in citations]
        limitations += [x for x in c["limitations"] if x not in limitations]
    return (
        _env()
        .get_template(CARD_TEMPLATE)
        .render(
            m=manifest,
            rel=manifest["release"],
            header=header,
            citations=citations,
            limitations=limitations,
            family=lm_eval_family(manifest),
            first=manifest["configs"][0]["name"],
            lm_eval_configs=lm_eval_configs(manifest),
            lm_eval_notes=[
                kind.lm_eval_note
                for task, kind in family_lm_eval().items()
                if kind.lm_eval_note and any(c["task"] == task for c in lm_eval_configs(manifest))
            ],
            audit=audit_view(audit) if audit else None,
            human_validation=review_card.section(manifest),
            to_yaml=lambda obj: yaml.safe_dump(
                public_path(obj), sort_keys=True, allow_unicode=True, width=100
            ).strip(),
        )
    )


def audit_view(audit: dict[str, Any]) -> dict[str, Any]:
    """The card's view of ``audit.json``: formatted accuracies, flags above the threshold."""
    names = audit["baselines"]
    thr = audit["threshold"]
    unflagged = set(audit.get("unflagged", ["oracle"]))

    def cell(b: str, acc: float | None, tie: float | None) -> str:
        if acc is None:
            return "–"
        text = f"**{acc:.2f}** ⚠" if acc > thr and b not in unflagged else f"{acc:.2f}"
        return text + (f" ({tie:.0%} ties)" if tie else "")

    def cells(c: dict[str, Any]) -> list[str]:
        ties = c.get("ties") or {}
        return [cell(b, c["accuracy"].get(b), ties.get(b)) for b in names]

    rows, bins = [], []
    for cfg, c in audit["configs"].items():
        rows.append({"config": cfg, "n": c["n"], "cells": cells(c), "solved_by": c["solved_by"]})
        for g, gc in c.get("groups", {}).items():
            rows.append({"config": f"{cfg} / {g}", "n": gc["n"], "cells": cells(gc), "solved_by": []})
        for b, bc in c.get("bins", {}).items():
            bins.append(
                {
                    "config": cfg,
                    "column": c["bin_column"],
                    "bin": b,
                    "n": bc["n"],
                    "cells": cells(bc),
                }
            )
    return {
        "names": names,
        "descriptions": audit["descriptions"],
        "percent": f"{thr * 100:.0f}%",
        "order": audit["order"],
        "scoring": audit["scoring"],
        "tie_conventions": audit.get("tie_conventions") or {},
        "tie_convention": audit.get("tie_convention") or {},
        "rows": rows,
        "bins": bins,
        "flagged": [r for r in rows if r["solved_by"]],
        "skipped": audit.get("skipped", {}),
    }


def render_eval_files(manifest: dict[str, Any]) -> dict[str, str]:
    """Relative path → text: ``eval/corpusbench.yaml`` and the ``lm_eval/<family>/`` task folder."""
    rel = manifest["release"]
    note = f"# Generated by corpusbench for {rel['repo_id']} {rel['tag']}; do not edit.\n"
    files = {
        "eval/corpusbench.yaml": note
        + _yaml(
            {
                "dataset": {
                    "repo_id": rel["repo_id"],
                    "revision": rel["tag"],
                    "split": rel["split"],
                    "release_fingerprint": manifest["release_fingerprint"],
                },
                "configs": [
                    {
                        "name": c["name"],
                        "task": c["task"],
                        "rows": c["rows"],
                        "roles": c["roles"],
                        "content_fingerprint": c["content_fingerprint"],
                    }
                    for c in manifest["configs"]
                ],
                "scoring": {"reduction": "sum", "dtype": "float32", "ties": "incorrect"},
            }
        )
    }
    family = lm_eval_family(manifest)
    base = f"lm_eval/{family}"
    configs = lm_eval_configs(manifest)
    if not configs:
        return files
    own = family_lm_eval()
    for task in sorted({c["task"] for c in configs} - set(own)):
        files[f"{base}/{_template_name(task)}"] = note + _yaml(_lm_eval_template(rel, task))
    for c in configs:
        if (kind := own.get(c["task"])) is not None:  # a family's own task kind writes its files
            made = load(kind.lm_eval)(rel, c["name"], lm_eval_task(manifest, c["name"]), note)
            files |= {f"{base}/{name}": text for name, text in made.items()}
            continue
        files[f"{base}/{c['name']}.yaml"] = note + _yaml(
            {
                "include": _template_name(c["task"]),
                "dataset_name": c["name"],
                "task": lm_eval_task(manifest, c["name"]),
            }
        )
    files[f"{base}/_{family}.yaml"] = note + _yaml(
        {
            "group": family,
            "task": [lm_eval_task(manifest, c["name"]) for c in configs],
            "aggregate_metric_list": [{"metric": "acc", "aggregation": "mean", "weight_by_size": False}],
            "metadata": {"version": 1.0, "release": rel["tag"]},
        }
    )
    files[f"{base}/README.md"] = (
        _env()
        .get_template(LM_EVAL_README)
        .render(
            m=manifest, rel=rel, family=family, configs=configs, task_name=lambda n: lm_eval_task(manifest, n)
        )
    )
    return files


def family_lm_eval() -> dict[str, TaskKind]:
    """The families' task kinds that have lm-eval-harness files (``TaskKind.lm_eval``), by task name."""
    return {name: kind for name, kind in tasks().items() if kind.lm_eval is not None}


def lm_eval_configs(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The configs that get an lm-eval-harness task: pairs, prefix pairs and the families' own kinds."""
    own = family_lm_eval()
    return [c for c in manifest["configs"] if c["task"] in LM_EVAL_TASKS or c["task"] in own]


def _template_name(task: str) -> str:
    return "_template_yaml" if task == "minimal_pairs" else "_template_prefix_yaml"


def _lm_eval_template(rel: dict[str, Any], task: str) -> dict[str, Any]:
    """A multiple-choice task over the two sentences (or two critical regions after a shared prefix)."""
    body: dict[str, Any] = {
        "dataset_path": rel["repo_id"],
        "dataset_kwargs": {"revision": rel["tag"]},
        "output_type": "multiple_choice",
        "test_split": rel["split"],
    }
    if task == "minimal_pairs":
        body.update(
            {"doc_to_text": "", "target_delimiter": "", "doc_to_choice": "{{[sentence_good, sentence_bad]}}"}
        )
    else:
        body.update(
            {
                "doc_to_text": "{{prefix}}",
                "target_delimiter": " ",
                "doc_to_choice": "{{[critical_good, critical_bad]}}",
            }
        )
    body.update(
        {
            "doc_to_target": 0,
            "num_fewshot": 0,
            "metric_list": [
                {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
                {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True},
            ],
            "metadata": {"version": 1.0},
        }
    )
    return body


def babylm_rows(cfg: dict[str, Any], table: Any) -> list[dict[str, Any]] | None:
    """BLiMP-shaped rows (sentence_good, sentence_bad, field, UID, linguistics_term) or None if not pairs."""
    if cfg["task"] not in LM_EVAL_TASKS or not {"sentence_good", "sentence_bad"} <= set(table.column_names):
        return None
    group_col = cfg["roles"].get("group")
    out = []
    for row in table.to_pylist():
        uid = str(row[group_col]) if group_col and row.get(group_col) else cfg["name"]
        out.append(
            {
                "sentence_good": row["sentence_good"],
                "sentence_bad": row["sentence_bad"],
                "field": cfg["generator"],
                "UID": uid,
                "linguistics_term": str(row.get("linguistics_term") or cfg["name"]),
                "pair_id": row.get(cfg["roles"].get("id", "pair_id")),
            }
        )
    return out


def _yaml(obj: Any) -> str:
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True, width=1000)


def public_path(value: Any) -> Any:
    """``value`` as the card shows it: an absolute path (a folder of the machine that built the release)
    by its last part only, relative paths as written; lists and mappings are walked."""
    if isinstance(value, dict):
        return {k: public_path(v) for k, v in value.items()}
    if isinstance(value, list):
        return [public_path(v) for v in value]
    if isinstance(value, str) and re.match(r"^(/|~|[A-Za-z]:[\\/])", value):
        return re.split(r"[\\/]", value.rstrip("\\/"))[-1] or value
    return value


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["public_path"] = public_path
    return env
