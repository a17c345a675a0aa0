"""Versioned prompt templates: ``corpusbench/prompts/<generator>/<purpose>.vN.j2``.

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
SUFFIX = ".j2"


@functools.cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(ROOT)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def list_templates() -> list[str]:
    """All template names, e.g. ``["generic/choose_ab.v1", "generic/yes_no.v1"]``."""
    return sorted(p.relative_to(ROOT).as_posix()[: -len(SUFFIX)] for p in ROOT.rglob(f"*{SUFFIX}"))


def _path(name: str) -> Path:
    if name.endswith(SUFFIX):
        name = name[: -len(SUFFIX)]
    path = (ROOT / f"{name}{SUFFIX}").resolve()
    if not path.is_relative_to(ROOT) or not path.is_file():
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
    rel = path.relative_to(ROOT).as_posix()
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
