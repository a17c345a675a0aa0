"""The package's import graph has no circles and no upward arrows.

Every module under ``corpusbench/`` is parsed with ``ast``; each ``import``/``from ... import`` of a
``corpusbench`` module is an edge, wherever it stands (module level, inside a function, under
``TYPE_CHECKING``), so a lazy import that only hides a circle still fails here. A family record
(``corpusbench/families/<family>/family.py``) refers to its hooks by ``"module:attr"`` strings, loaded
when first called: each such string is an edge too, as if it were imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "corpusbench"
#: a hook target in a family record: ``"corpusbench.families.cac.score:cac_markdown"``
TARGET = re.compile(r"(corpusbench(?:\.\w+)+):\w+")


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted name lives in: itself, or the nearest enclosing module."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def is_record(module: str) -> bool:
    """A family record: ``corpusbench.families.<family>.family``."""
    parts = module.split(".")
    return len(parts) == 4 and parts[1] == "families" and parts[3] == "family"


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every corpusbench module that ``module`` imports (a family record: and its hooks' modules)."""
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and is_record(module):
            names = [m.group(1) for m in TARGET.finditer(node.value)]
            assert all(n in modules for n in names), f"{module}: a hook names no module: {node.value}"
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import sub`` imports the submodule when there is one, else pkg itself
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
            ]
        for name in names:
            if name == "corpusbench" or name.startswith("corpusbench."):
                target = _resolve(name, modules)
                if target and target != module:
                    targets.add(target)
    return targets


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {module: _imports(module, path, modules) for module, path in modules.items()}


def components(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (each holds circles)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest circle through each strongly connected component."""
    return [_shortest_cycle(graph, component) for component in components(graph)]


def _shortest_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    best: list[str] = []
    for start in sorted(component):
        paths = {start: [start]}
        frontier = [start]
        while frontier:
            nxt_frontier = []
            for node in frontier:
                for nxt in sorted(graph[node] & component):
                    if nxt == start and (not best or len(paths[node]) < len(best)):
                        best = paths[node]
                    if nxt not in paths:
                        paths[nxt] = [*paths[node], nxt]
                        nxt_frontier.append(nxt)
            frontier = nxt_frontier
    return [*best, best[0]]


def test_graph_sees_module_and_function_level_imports() -> None:
    graph = import_graph()
    assert "corpusbench.errors" in graph["corpusbench.io"]  # module level
    assert "corpusbench.cli" in graph and len(graph) > 50


def test_find_cycles_finds_a_two_module_circle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == [["a", "b", "a"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycles() -> None:
    graph = import_graph()
    report = [
        f"{' -> '.join(_shortest_cycle(graph, c))}   (circles among: {', '.join(sorted(c))})"
        for c in components(graph)
    ]
    assert not report, f"{len(report)} group(s) of modules importing each other:\n" + "\n".join(report)


#: Package layers, lowest first: a module imports only from its own layer or a lower one, and a
#: benchmark family (``families.<family>``) never imports another family. The family registry
#: (``corpusbench.family``) is in the core layer: every layer above asks it and it imports only
#: ``errors``; the families (``corpusbench.families.<family>.*``) sit above the publish/eval framework.
FAMILIES = "families.*"
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "",
        "assets",
        "console",
        "errors",
        "family",
        "heuristics",  # surface rules for minimal pairs: LT-Swap's shortcut filter and the audit's baselines
        "imports",
        "intervals",
        "io",
        "params",  # a family's parameters declared once: the typer options and the spec params made from them
        "procs",
        "progress_llm",
        "provenance",
    ),
    ("corpus", "llm", "prompts"),
    ("review",),  # review: human labels, read by the release card (publish.render)
    ("publish",),
    ("eval",),
    ("baselines",),
    (FAMILIES,),
    ("__main__", "cli", "demo"),
)


def layer_of(module: str) -> int:
    parts = module.split(".")
    part = FAMILIES if len(parts) > 1 and parts[1] == "families" else (parts[1] if len(parts) > 1 else "")
    for i, names in enumerate(LAYERS):
        if part in names:
            return i
    raise AssertionError(f"{module}: in no layer of LAYERS; add its package there")


def _family(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "families" else None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``a -> b`` for each import of a higher layer, or of another benchmark family."""
    found = []
    for a, targets in sorted(graph.items()):
        for b in sorted(targets):
            if layer_of(b) > layer_of(a):
                found.append(f"{a} -> {b} (layer {layer_of(a)} imports layer {layer_of(b)})")
            elif _family(a) and _family(b) and _family(a) != _family(b):
                found.append(f"{a} -> {b} (one family imports another)")
    return found


def test_upward_imports_are_found() -> None:
    graph = {
        "corpusbench.eval.runner": {"corpusbench.baselines.scoring"},
        "corpusbench.baselines.scoring": set(),
    }
    assert upward_imports(graph) == [
        "corpusbench.eval.runner -> corpusbench.baselines.scoring (layer 4 imports layer 5)"
    ]
    family = {"corpusbench.families.cac.io": {"corpusbench.families.frames.metrics"}}
    assert upward_imports({**family, "corpusbench.families.frames.metrics": set()}) == [
        "corpusbench.families.cac.io -> corpusbench.families.frames.metrics (one family imports another)"
    ]


def test_family_records_hooks_are_edges() -> None:
    graph = import_graph()
    assert "corpusbench.families.cac.score" in graph["corpusbench.families.cac.family"]
    assert "corpusbench.families.ltswap.release" in graph["corpusbench.families.ltswap.family"]


def test_no_upward_imports() -> None:
    found = upward_imports(import_graph())
    assert not found, f"{len(found)} upward import(s):\n" + "\n".join(found)
