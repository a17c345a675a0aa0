"""Release specs: ``releases/*.yaml`` loaded into a typed, validated ``ReleaseSpec``.

Defaults live on the dataclasses; unknown keys are errors; dotted overrides
(``{"seed": 7, "families.demo.params.max_pairs": 10}``) are applied to the raw mapping before
validation; every error is one ``ConfigError`` naming the file and the field.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpusbench.errors import ConfigError
from corpusbench.io import load_yaml, read_utf8

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
LICENSE = re.compile(r"^[a-z0-9][a-z0-9.+-]*$")
#: A corpus key names folders (its stats under the work folder) and columns: a plain name, never a path.
CORPUS_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Checks of a loaded spec that need more than the spec itself (the generator registry, each
#: generator's params), run last by ``ReleaseSpec.load``; :mod:`corpusbench.publish.params` adds its
#: check when the ``corpusbench.publish`` package is imported, so this module imports neither.
SPEC_CHECKS: list[Callable[[ReleaseSpec, str], None]] = []


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseCorpus:
    """A release's corpus (``corpora.KEY``): its text (``path``), optionally its ``corpusbench stats``
    folder, and its licence. (How a text is read is :class:`corpusbench.corpus.readers.CorpusSpec`.)

    ``license`` is the licence of the corpus text (a Hub licence id, or ``public-domain``); every config
    built from it and the release carry it (see :mod:`corpusbench.publish.licences`). ``attribution``
    is the credit line the licence asks for, printed in the card.
    """

    path: str
    stats: str | None = None
    language: str | None = None
    reader: str = "auto"
    license: str | None = None
    attribution: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseLLM:
    """A release's ``llm:`` block: the LLM a family writes and judges its items with, recorded in the card
    and provenance. (How an LLM is opened is :class:`corpusbench.llm.api.LLMSpec`.)"""

    model: str
    backend: str = "vllm-server"  # as every command's --llm-backend (llm.api.DEFAULT_BACKEND)
    revision: str | None = None
    sampling: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilySpec:
    """One generator run; ``id`` (default: ``name``) must be unique within the spec."""

    name: str
    id: str = ""
    corpus: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewLabels:
    """A label file the release's card reports (``review.labels[]``): items labelled outside the release
    (a validity set, read by its family's ``labels`` hook), matched to the release's items by their sentences.
    A bare path is accepted for ``{path: PATH}``."""

    path: str
    reviewer: str = ""  # names review/labels-<reviewer>.jsonl in the build; default: the file's stem
    by: str = ""  # who labelled, and how (the card says it)
    criteria: str = ""  # where the labelling criteria are written (the card links it)

    @property
    def name(self) -> str:
        return self.reviewer or Path(self.path).stem


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseReview:
    """``review:``: labels made outside the build that its "Human validation" section reports."""

    labels: tuple[ReviewLabels, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseSpec:
    """A versioned release: what to generate, from which corpora, and how to label it."""

    name: str
    version: str
    repo_id: str
    families: tuple[FamilySpec, ...]
    pretty_name: str = ""
    description: str = ""
    license: str = "cc-by-4.0"
    language: tuple[str, ...] = ("en",)
    tags: tuple[str, ...] = ()
    seed: int = 0
    corpora: dict[str, ReleaseCorpus] = field(default_factory=dict)
    llm: ReleaseLLM | None = None
    limitations: tuple[str, ...] = ()
    review: ReleaseReview | None = None
    source: Path | None = field(default=None, compare=False)  # the YAML file; not part of the spec

    @property
    def tag(self) -> str:
        return f"v{self.version}"

    @property
    def base_dir(self) -> Path:
        """Relative paths in the spec resolve against the spec file's folder (or the cwd)."""
        return self.source.parent if self.source else Path.cwd()

    def resolve_path(self, value: str) -> Path:
        p = Path(value).expanduser()
        return p if p.is_absolute() else self.base_dir / p

    def corpus_licences(self, keys: Any = None) -> dict[str, str]:
        """Declared licences of the corpora ``keys`` (default: all), by corpus key."""
        keys = self.corpora if keys is None else keys
        return {k: self.corpora[k].license for k in keys if k in self.corpora and self.corpora[k].license}

    def generator_corpora(self, gen: FamilySpec) -> list[str]:
        """The corpora a generator reads: its ``corpus`` and any param value (or list item) naming a
        corpus key (``train: en-train``, ``corpora: [en, fr]``)."""
        keys = [gen.corpus] if gen.corpus else []
        for v in gen.params.values():
            for item in v if isinstance(v, list) else [v]:
                if isinstance(item, str) and item in self.corpora:
                    keys.append(item)
        return list(dict.fromkeys(keys))

    def resolved(self) -> dict[str, Any]:
        """The spec as plain data (defaults filled in), as saved in ``provenance.json``."""
        data = _to_plain(self)
        data.pop("source", None)
        if data.get("review") is None:  # no review key: the spec (and its fingerprint) as before it existed
            data.pop("review", None)
        return data

    @classmethod
    def load(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> ReleaseSpec:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"{path}: release spec not found")
        if _is_binary(path):
            raise ConfigError(f"{path}: a binary file (NUL bytes), not a YAML release spec")
        text = read_utf8(path, hint="a release spec is a YAML file", error=ConfigError)
        raw = load_yaml(text, str(path), error=ConfigError)
        return cls.from_dict(raw, source=path, overrides=overrides)

    @classmethod
    def from_dict(
        cls, raw: Any, *, source: Path | None = None, overrides: dict[str, Any] | None = None
    ) -> ReleaseSpec:
        where = str(source) if source else "<spec>"
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: a release spec must be a mapping, got {type(raw).__name__}")
        if "generators" in raw and "families" not in raw:  # refused, with the new name (CHANGELOG, #40)
            raise ConfigError(f"{where}: unknown key generators; the list of benchmarks is now `families:`")
        raw = apply_overrides(raw, overrides or {}, where)
        spec = _build(cls, {**raw, "source": source}, where, "")
        spec._validate(where)
        return spec

    def _validate(self, where: str) -> None:
        def bad(fieldname: str, msg: str) -> ConfigError:
            return ConfigError(f"{where}: {fieldname} {msg}")

        if not SLUG.match(self.name):
            raise bad("name", f"{self.name!r} must be lowercase letters, digits and '-' (a slug)")
        if not SEMVER.match(self.version):
            raise bad(
                "version", f"{self.version!r} is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.0.0)"
            )
        if not REPO_ID.match(self.repo_id):
            raise bad("repo_id", f"{self.repo_id!r} must be 'namespace/name'")
        if not LICENSE.match(self.license):
            raise bad(
                "license", f"{self.license!r} is not a Hub licence id (e.g. cc-by-4.0, apache-2.0, other)"
            )
        for key, corpus in self.corpora.items():
            if not CORPUS_KEY.match(key):
                raise bad(
                    "corpora",
                    f"key {key!r} is not a plain name (letters, digits, '_', '-' and '.', starting with a "
                    "letter or digit): a corpus key names folders and columns, never a path; put the "
                    "path under `path:`",
                )
            if corpus.license is not None and not LICENSE.match(corpus.license):
                raise bad(
                    f"corpora.{key}.license",
                    f"{corpus.license!r} is not a licence id (e.g. public-domain, cc-by-nc-sa-3.0, mit)",
                )
        from corpusbench.publish.licences import check_release

        try:
            check_release(self.license, self.corpus_licences())
        except ConfigError as e:
            raise ConfigError(f"{where}: {e}") from None
        for i, lang in enumerate(self.language):
            if not LANGUAGE.match(lang):
                raise bad(f"language[{i}]", f"{lang!r} is not an ISO 639 code (e.g. en, fr, de)")
        if self.seed < 0:
            raise bad("seed", "must be >= 0")
        if not self.families:
            raise bad("families", "must list at least one family")
        seen: set[str] = set()
        for i, gen in enumerate(self.families):
            if gen.id in seen:
                raise bad(f"families[{i}].id", f"{gen.id!r} is used twice; give each family run a unique id")
            if not SLUG.match(gen.id):
                raise bad(f"families[{i}].id", f"{gen.id!r} must be a slug")
            seen.add(gen.id)
            if gen.corpus is not None and gen.corpus not in self.corpora:
                known = ", ".join(sorted(self.corpora)) or "none defined"
                raise bad(f"families[{i}].corpus", f"{gen.corpus!r} is not a key of corpora ({known})")
        names: set[str] = set()
        for i, lab in enumerate(self.review.labels if self.review else ()):
            if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", lab.name) or lab.name in names:
                raise bad(
                    f"review.labels[{i}].reviewer",
                    f"{lab.name!r} must be unique, letters, digits, '.', '_' or '-' (it names a labels file)",
                )
            names.add(lab.name)
        for check in SPEC_CHECKS:
            check(self, where)


def parse_override_args(items: list[str]) -> dict[str, Any]:
    """CLI ``key.path=value`` pairs → overrides; values are parsed as YAML scalars (``7``, ``true``)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"override {item!r} must look like dotted.key=value")
        out[key.strip()] = load_yaml(value, f"override {item!r}", error=ConfigError) if value.strip() else ""
    return out


def apply_overrides(raw: dict[str, Any], overrides: dict[str, Any], where: str) -> dict[str, Any]:
    """Set ``a.b.c`` paths in a copy of ``raw``; list items are addressed by index or by ``id``/``name``."""
    import copy

    data = copy.deepcopy(raw)
    for dotted, value in overrides.items():
        parts = dotted.split(".")
        node: Any = data
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            here = ".".join(parts[: depth + 1])
            if isinstance(node, list):
                idx = _list_index(node, part)
                if idx is None:
                    raise ConfigError(
                        f"{where}: override {dotted!r}: no item {part!r} in {here.rpartition('.')[0]}"
                    )
                if last:
                    node[idx] = value
                else:
                    node = node[idx]
            elif isinstance(node, dict):
                if last:
                    node[part] = value
                else:
                    node = node.setdefault(part, {})
            else:
                raise ConfigError(f"{where}: override {dotted!r}: {here.rpartition('.')[0]} is not a mapping")
    return data


def _list_index(items: list[Any], part: str) -> int | None:
    if part.isdigit():
        return int(part) if int(part) < len(items) else None
    for i, item in enumerate(items):
        if isinstance(item, dict) and (item.get("id") or item.get("name")) == part:
            return i
    return None


def _build(tp: Any, value: Any, where: str, path: str) -> Any:
    """Check ``value`` against the type hint ``tp`` and build dataclasses; errors name ``path``."""
    name = path or "spec"
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        if tp is ReviewLabels and isinstance(value, str):
            value = {"path": value}
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {name} must be a mapping, got {type(value).__name__}")
        hints = typing.get_type_hints(tp)
        fields = {f.name: f for f in dataclasses.fields(tp)}
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise ConfigError(
                f"{where}: unknown key {_join(path, unknown[0])} "
                f"(allowed: {', '.join(k for k in fields if k != 'source')})"
            )
        kwargs = {}
        for fname, f in fields.items():
            if fname in value:
                kwargs[fname] = (
                    value[fname]
                    if fname == "source"
                    else _build(hints[fname], value[fname], where, _join(path, fname))
                )
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ConfigError(f"{where}: missing required key {_join(path, fname)}")
        if tp is FamilySpec and not kwargs.get("id"):
            kwargs["id"] = kwargs["name"]
        return tp(**kwargs)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _build(inner[0], value, where, path)
    if origin is tuple:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise ConfigError(f"{where}: {name} must be a list, got {type(value).__name__}")
        (item_tp, _ellipsis) = typing.get_args(tp)
        return tuple(_build(item_tp, v, where, f"{name}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {name} must be a mapping, got {type(value).__name__}")
        _key_tp, val_tp = typing.get_args(tp)
        return {str(k): _build(val_tp, v, where, _join(path, str(k))) for k, v in value.items()}
    if tp is Any:
        return value
    if tp is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{where}: {name} must be an integer, got {value!r}")
    if tp is str:
        if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
            raise ConfigError(f"{where}: {name} must be a string, got {value!r}")
        return str(value)  # YAML turns 1.0 into a float; a version or id is still meant as text
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _to_plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        return {f.name: _to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple | list):
        return [_to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _to_plain(v) for k, v in obj.items()}
    if isinstance(obj, Path):
        return str(obj)
    return obj


def _is_binary(path: Path) -> bool:
    """NUL bytes in the first 8 KiB (an unreadable file is left to ``read_utf8`` to report)."""
    try:
        with path.open("rb") as fh:
            return b"\x00" in fh.read(8192)
    except OSError:
        return False
