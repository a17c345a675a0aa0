"""``corpusbench demo summary``: what a demo run made, where, and the one number to look at first.

Reads the output folders that exist (each recognised by its own ``manifest.json``, ``results.json`` or
``provenance.json``), says "not built" for a missing one, and never fails on a half-finished run: a
folder it cannot read is reported as such. The same rows go to the terminal and, on request, to a
Markdown file next to the outputs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import typer

from corpusbench.family import DemoStep, families, load, number

RELEASE = "releases/build/corpusbench-default/0.1.0"
# The demo's outputs that are no family's; with the families' (``Family.demo_steps``), all of them are
# listed in the order `make demo` makes them (mk/*.mk, ``DemoStep.order``); anything else found under
# the scanned folders is listed after them.
CORE_STEPS: tuple[DemoStep, ...] = (
    DemoStep(title="corpus statistics", path="out/demo/stats", order=10),
    DemoStep(title="release: default spec + audit", path=RELEASE, order=130),
    DemoStep(title="stats on Ray", path="out/demo/ray-stats", order=140),
)
NOT_BUILT = "not built"


@dataclass(frozen=True, slots=True)
class Row:
    step: str
    made: str  # what kind of output ("" when not built)
    where: str
    key: str  # the key number(s), or why there are none
    built: bool


def _read(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _acc(x: Any) -> str:
    return f"{x:.3f}" if isinstance(x, int | float) and not math.isnan(x) else "–"


def _stats(m: dict[str, Any], _: Path) -> tuple[str, str]:
    t = m.get("totals", {})
    tagger = (m.get("tagger") or {}).get("name", "")
    key = f"{number(t.get('tokens', '?'))} tokens, {number(t.get('types', '?'))} types"
    return "counts/forms/contexts.parquet", key + (f", tagger {tagger}" if tagger else "")


def _eval(r: dict[str, Any], _: Path) -> tuple[str, str]:
    model = Path(str((r.get("provenance", {}).get("model") or {}).get("model_id", "?"))).name
    n, unit = (r["n_sites"], "sites") if "n_sites" in r else (r.get("n_pairs", "?"), "pairs")
    configs = list(r.get("configs", {}))
    shown = ", ".join(configs[:3]) + (", …" if len(configs) > 3 else "")
    key = f"{model}: accuracy {_acc(r.get('accuracy'))} on {number(n)} {unit} ({shown})"
    return "results.json, scores.parquet, summary.md", key


def _release(p: dict[str, Any], folder: Path) -> tuple[str, str]:
    rel = p.get("release", {})
    configs = p.get("configs", [])
    rows = sum(int(c.get("rows", 0)) for c in configs)
    key = f"{rel.get('name', '?')} {rel.get('tag', '')}: {len(configs)} configs, {number(rows)} rows"
    audit = _read(folder / "audit.json")
    if audit is None:
        return "README.md (card), data/, provenance.json", key + "; not audited"
    flags = [
        f"{name} by {b} ({_acc(c.get('accuracy', {}).get(b))})"
        for name, c in audit.get("configs", {}).items()
        for b in c.get("solved_by", [])
    ]
    flagged = "; ".join(flags) or "none"
    return "README.md (card), data/, audit.json", f"{key}; solved by a shallow baseline (>90%): {flagged}"


Reader = Callable[[dict[str, Any], Path], tuple[str, str]]
#: The files a demo output folder is recognised by, in the order they are tried.
RECOGNISED_BY = ("manifest.json", "results.json", "provenance.json", "split.json")


def _core_readers(file: str, doc: dict[str, Any]) -> Reader | None:
    """The readers of outputs that are no family's: corpus statistics, an eval run, a release."""
    if file == "manifest.json" and doc.get("kind") == "corpusbench.stats":
        return _stats
    if file == "results.json":
        return _eval
    if file == "provenance.json" and "release" in doc:
        return _release
    return None


def _recognise(folder: Path) -> tuple[Reader, dict[str, Any]] | None:
    """The reader for a demo output folder, from the file that says what it is: a registered family's
    demo line (:class:`corpusbench.family.DemoLine`) for that file, else a core output."""
    for file in RECOGNISED_BY:
        doc = _read(folder / file)
        if doc is None:
            continue
        for family in families.all():
            for hook in family.demo:
                if hook.file == file and load(hook.recognises)(doc):
                    return load(hook.line), doc
        core = _core_readers(file, doc)
        if core is not None:
            return core, doc
    return None


def describe(step: str, folder: Path, shown: str | None = None) -> Row:
    """One summary row for ``folder``: "not built" when it is missing, never an exception."""
    where = shown or str(folder)
    if not folder.is_dir():
        return Row(step, "", where, NOT_BUILT, False)
    found = _recognise(folder)
    if found is None:
        n = sum(1 for _ in folder.iterdir())
        return Row(step, "folder", where, f"{n} entries; no manifest/results/provenance (unfinished?)", True)
    reader, doc = found
    try:
        made, key = reader(doc, folder)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        return Row(step, "unreadable", where, f"{type(e).__name__}: {e}", True)
    return Row(step, made, where, key, True)


def _extras(root: Path, base: Path, known: set[Path]) -> Iterable[Path]:
    """Output folders under ``root`` (one or two levels: releases are NAME/VERSION) not listed already."""
    if not root.is_dir():
        return []
    found = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        candidates = (
            [d] if _recognise(d) else [v for v in sorted(d.iterdir()) if v.is_dir() and _recognise(v)]
        )
        found += [c for c in candidates if c.resolve() not in known]
    return sorted(found, key=lambda p: p.stat().st_mtime)


def demo_outputs() -> list[tuple[str, str]]:
    """The demo's outputs, (step, folder relative to the demo's), in the order `make demo` makes them."""
    steps = [*CORE_STEPS, *(s for f in families.all() for s in f.demo_steps)]
    return [(s.title, s.path) for s in sorted(steps, key=lambda s: s.order)]


def scan_roots(outputs: Iterable[tuple[str, str]]) -> list[str]:
    """The folders scanned for other outputs: the first two levels of the outputs' folders (``out/demo``,
    ``releases/build`` ...), in the order of the outputs."""
    return list(dict.fromkeys("/".join(rel.split("/")[:2]) for _, rel in outputs))


def summarize(base: Path = Path(".")) -> list[Row]:
    """Rows for the demo's outputs under ``base`` (demo order), then other outputs found under
    :func:`scan_roots`."""
    outputs = demo_outputs()
    rows = [describe(step, base / rel, rel) for step, rel in outputs]
    known = {(base / rel).resolve() for _, rel in outputs}
    for root in scan_roots(outputs):
        for folder in _extras(base / root, base, known):
            rel = folder.relative_to(base).as_posix() if folder.is_relative_to(base) else str(folder)
            rows.append(describe(folder.relative_to(base / root).as_posix(), folder, rel))
            known.add(folder.resolve())
    return rows


def load_dataset_line(provenance: dict[str, Any]) -> str:
    """The Python line that loads the first config of a published release."""
    rel = provenance.get("release", {})
    configs = provenance.get("configs") or [{"name": "CONFIG"}]
    return (
        f'load_dataset("{rel.get("repo_id", "ORG/NAME")}", "{configs[0].get("name", "CONFIG")}", '
        f'revision="{rel.get("tag", "vX.Y.Z")}", split="test")'
    )


def _has_make_target(base: Path, target: str) -> bool:
    """Whether the Makefile (or an mk/*.mk fragment) under ``base`` defines ``target``."""
    files = [base / "Makefile", *sorted((base / "mk").glob("*.mk"))]
    rule = re.compile(rf"^{re.escape(target)}\s*:(?!=)", re.M)
    return any(f.is_file() and rule.search(f.read_text(encoding="utf-8")) for f in files)


def next_steps(rows: list[Row], base: Path = Path(".")) -> list[tuple[str, str]]:
    """Commands to try next, (command, what it does), for what was built."""
    built = {r.where for r in rows if r.built}
    release = RELEASE  # the demo's release folder, spelled in the commands below
    out: list[tuple[str, str]] = []
    provenance = _read(base / release / "provenance.json")
    if release in built and provenance is not None:
        out += [
            (f"less {release}/README.md", "the dataset card: configs, funnel, bins, audit, provenance"),
            (
                f"corpusbench eval run --dataset {release} --model models/smollm2-135m-instruct "
                "--limit 300 --out out/eval-default",
                "score a model on every config of the release",
            ),
        ]
        load = f"'from datasets import load_dataset; print({load_dataset_line(provenance)})'"
        if _has_make_target(base, "hub"):
            out += [
                (
                    "make hub",
                    "serves the demo release on a local Hub until Ctrl-C and prints the line to paste into a "
                    f"second shell, with the endpoint set: {load_dataset_line(provenance)}",
                ),
            ]
        else:
            repo = provenance.get("release", {}).get("repo_id", "ORG/NAME")
            out += [
                (
                    f"corpusbench release push {release} --repo-id {repo}",
                    "publish it on the Hub (needs HF_TOKEN)",
                ),
                (f"python -c {load}", "then load a config as users of the release will"),
            ]
    lines = sorted((n for f in families.all() for n in f.demo_next), key=lambda n: n.order)
    out += [(n.command, n.what) for n in lines if n.after in built]
    out += [
        ("corpusbench stats YOUR_CORPUS --out out/my-stats", "start on your own corpus (docs/corpus.md)"),
        ("corpusbench --help", "every command; docs/index.md for the rest"),
    ]
    return out


def to_markdown(rows: list[Row], steps: list[tuple[str, str]]) -> str:
    """The summary as a Markdown page (written next to the outputs)."""
    lines = ["# What `make demo` made", "", "| step | made | where | key numbers |", "|---|---|---|---|"]
    lines += [f"| {r.step} | {r.made or '–'} | `{r.where}` | {r.key} |" for r in rows]
    lines += ["", "## Next", ""]
    lines += [f"- `{cmd}` — {what}" for cmd, what in steps]
    return "\n".join(lines) + "\n"


def as_json(rows: list[Row]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]


def register(app: typer.Typer) -> None:
    """Add ``corpusbench demo summary`` to the app."""
    demo_app = typer.Typer(help="What `make demo` made: a summary of its outputs and what to try next.")
    demo_app.command("summary")(summary_cmd)
    app.add_typer(demo_app, name="demo")


def summary_cmd(
    base: Path = typer.Argument(Path("."), help="Folder the demo ran in (holds out/ and releases/)."),
    markdown: Path | None = typer.Option(None, "--markdown", help="Also write the summary here (.md)."),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the rows here (.json)."),
) -> None:
    """Each demo step: what it produced, where, and its key number; then the next commands to try."""
    from rich.table import Table

    from corpusbench.console import make_console
    from corpusbench.io import write_json

    rows = summarize(base)
    steps = next_steps(rows, base)
    console = make_console()
    table = Table(title="What the demo made", title_justify="left")
    table.add_column("step", ratio=2)
    table.add_column("where (main files)", ratio=3, overflow="fold")
    table.add_column("key numbers", ratio=5)
    for r in rows:
        where = f"{r.where}\n[dim]{r.made}[/]" if r.made else r.where
        table.add_row(r.step, where, r.key if r.built else f"[yellow]{r.key}[/]")
    console.print(table)
    n_built = sum(r.built for r in rows)
    console.print(f"{n_built} of {len(rows)} outputs built.\n[bold]Next:[/]", highlight=False)
    for cmd, what in steps:
        console.print(f"  {cmd}\n      [dim]{what}[/]", highlight=False, soft_wrap=True)
    if markdown is not None:
        from corpusbench.io import atomic_write

        with atomic_write(markdown) as fh:
            fh.write(to_markdown(rows, steps))
        console.print(f"wrote {markdown}", highlight=False)
    if json_out is not None:
        write_json(json_out, {"rows": as_json(rows), "next": [list(s) for s in steps]})
