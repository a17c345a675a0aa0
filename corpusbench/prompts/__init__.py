"""Versioned prompt templates, named ``<namespace>/<purpose>.vN``.

The ``generic`` namespace is ``corpusbench/prompts/generic/``; a benchmark family's namespace is its name,
its templates in its folder's ``prompts/`` (``corpusbench/families/<family>/prompts/<purpose>.vN.j2``).
``render("generic/yes_no.v1", question=..., text=...)`` renders one with jinja2 ``StrictUndefined``:
a missing variable, an unexpected one or an unknown template is a ``ConfigError``. Templates are
never edited once used; a changed prompt is a new ``.vN`` file. ``template_hash`` goes into the
provenance of everything a prompt produced (the rendered text is what the LLM cache keys on).
"""

from __future__ import annotations

import difflib
import functools
from pathlib import Path

import jinja2
import jinja2.meta

from corpusbench.errors import ConfigError
from corpusbench.provenance import sha256_text

ROOT = Path(__file__).resolve().parent
FAMILIES = ROOT.parent / "families"  # each family's templates: FAMILIES/<family>/prompts/
SUFFIX = ".j2"


@functools.cache
def roots() -> dict[str, Path]:
    """Template namespace -> its folder: the folders here (``generic``), then each family's ``prompts/``."""
    found = {p.name: p for p in sorted(ROOT.iterdir()) if p.is_dir() and not p.name.startswith("_")}
    found.update({p.parent.name: p for p in sorted(FAMILIES.glob("*/prompts")) if p.is_dir()})
    return found


@functools.cache
def _env() -> jinja2.Environment:
    loaders = {ns: jinja2.FileSystemLoader(str(root)) for ns, root in roots().items()}
    return jinja2.Environment(
        loader=jinja2.PrefixLoader(loaders, delimiter="/"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def list_templates() -> list[str]:
    """All template names, e.g. ``["generic/choose_ab.v1", "generic/yes_no.v1"]``."""
    return sorted(
        f"{ns}/{p.relative_to(root).as_posix()[: -len(SUFFIX)]}"
        for ns, root in roots().items()
        for p in root.rglob(f"*{SUFFIX}")
    )


def _path(name: str) -> Path:
    if name.endswith(SUFFIX):
        name = name[: -len(SUFFIX)]
    ns, _, rest = name.partition("/")
    root = roots().get(ns)
    path = (root / f"{rest}{SUFFIX}").resolve() if root and rest else None
    if path is None or root is None or not path.is_relative_to(root) or not path.is_file():
        near = difflib.get_close_matches(name, list_templates(), n=3)
        hint = f" Did you mean: {', '.join(near)}?" if near else f" Known: {', '.join(list_templates())}"
        raise ConfigError(f"unknown prompt template {name!r}.{hint}")
    return path


def source(name: str) -> str:
    return _path(name).read_text(encoding="utf-8")


def variables(name: str) -> set[str]:
    """The variables a template uses."""
    return jinja2.meta.find_undeclared_variables(_env().parse(source(name)))


def template_hash(name: str) -> str:
    """sha256 of the template's text, for provenance (the cache keys on the rendered prompt)."""
    return sha256_text(source(name))


def render(name: str, /, **vars: object) -> str:
    """Render a template; surrounding white space is stripped."""
    path = _path(name)
    ns = name.partition("/")[0]
    rel = f"{ns}/{path.relative_to(roots()[ns]).as_posix()}"
    extra = set(vars) - variables(name)
    if extra:
        raise ConfigError(
            f"prompt {rel}: unexpected variable(s) {', '.join(sorted(extra))} "
            f"(it uses {', '.join(sorted(variables(name))) or 'none'})"
        )
    try:
        return _env().get_template(rel).render(**vars).strip()
    except jinja2.UndefinedError as e:
        raise ConfigError(f"prompt {rel}: {e.message}; pass it to render()") from None
    except jinja2.TemplateSyntaxError as e:
        raise ConfigError(f"prompt {rel}:{e.lineno}: template syntax error: {e.message}") from None
