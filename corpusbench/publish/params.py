"""Generator parameters of a release spec, checked when the spec is loaded, before any work.

Each built-in generator names the params dataclass(es) its adapter parses (a key belongs to the first
type that has it), the mappings nested in its params (FIT-CLAMS ``selection``), and what it needs from
the rest of the spec (a corpus, an ``llm`` block, corpus keys in its params). ``check_generator``
refuses unknown keys (listing every valid one), wrong value types and the types' own validation errors
with one ``ConfigError`` naming the spec file and the key. A generator registered without a schema
(a plugin) checks its own params when it runs.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import difflib
import importlib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from corpusbench.errors import ConfigError
from corpusbench.publish.plugins import generators as registry
from corpusbench.publish.spec import SPEC_CHECKS, GeneratorSpec, ReleaseSpec

ADAPTERS = "corpusbench.publish.adapters"


@dataclass(frozen=True, slots=True, kw_only=True)
class Nested:
    """A params key whose value is a mapping of ``target``'s fields; ``typed``: check value types too."""

    target: str  # "module:Class"
    typed: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamsSchema:
    """What ``release build`` can check of one generator's params without running it."""

    types: tuple[str, ...]  # "module:Class" params dataclasses, in the adapter's parsing order
    nested: Mapping[str, Nested] = field(default_factory=dict)
    needs_corpus: bool = False
    needs_llm: bool = False  # an ``llm`` block, with no ``sampling`` (the generator sets its own)
    corpus_keys: tuple[str, ...] = ()  # params whose value (or items) must be keys of ``corpora``
    from_spec: tuple[str, ...] = ()  # params the adapter defaults from the spec: ``lang``, ``seed``
    cli_names: Mapping[str, str] = field(default_factory=dict)  # CLI spelling -> spec key, for hints

    def fields(self) -> dict[str, tuple[type, Any]]:
        """key -> (params class, type hint), over all of ``types`` (first one wins)."""
        out: dict[str, tuple[type, Any]] = {}
        for target in self.types:
            cls = _load(target)
            hints = typing.get_type_hints(cls)
            for f in dataclasses.fields(cls):
                out.setdefault(f.name, (cls, hints[f.name]))
        return out


SCHEMAS: dict[str, ParamsSchema] = {
    "minimal-pairs": ParamsSchema(types=(f"{ADAPTERS}.minimal_pairs:MinimalPairsParams",)),
    "fitclams": ParamsSchema(
        types=(f"{ADAPTERS}.fitclams:FitClamsParams",),
        nested={
            "selection": Nested(target="corpusbench.generators.fitclams.select:SelectionConfig"),
            "overrides": Nested(target="corpusbench.generators.fitclams.lexicon:Overrides", typed=False),
        },
        corpus_keys=("corpora",),
    ),
    "ltswap": ParamsSchema(
        types=(f"{ADAPTERS}.ltswap:AdapterParams", "corpusbench.generators.ltswap.pipeline:LtswapParams"),
        needs_corpus=True,
        needs_llm=True,
        from_spec=("lang", "seed"),
        cli_names={
            "threshold": "filter_threshold",
            "pos_check": "check_pos",
            "no_pos_check": "check_pos",
            "confirm": "confirm_inflections",
            "llm_backend": "llm.backend",
            "model": "llm.model",
        },
    ),
    "frames": ParamsSchema(
        types=(f"{ADAPTERS}.frames:FramesReleaseParams",), needs_corpus=True, corpus_keys=("train",)
    ),
    "cac": ParamsSchema(types=(f"{ADAPTERS}.cac:CacReleaseParams",), needs_corpus=True),
}


def register_schema(name: str, schema: ParamsSchema) -> None:
    """Let a plugin generator's params be checked at load time too."""
    SCHEMAS[name] = schema


def check_generator(spec: ReleaseSpec, gen: GeneratorSpec, where: str) -> None:
    """Check one generator's params against its schema; ``where`` is the spec file."""
    schema = SCHEMAS.get(gen.name)
    if schema is None:
        return
    at = f"generators.{gen.id}"
    if schema.needs_corpus and gen.corpus is None:
        raise ConfigError(f"{where}: {at}.corpus: {gen.name} needs a corpus (a key of corpora)")
    if schema.needs_llm:
        if spec.llm is None:
            raise ConfigError(
                f"{where}: llm: {gen.name} prompts an LLM; add an `llm:` block (model, backend)"
            )
        if spec.llm.sampling:
            raise ConfigError(
                f"{where}: llm.sampling: {gen.name} sets its own sampling per prompt; remove it"
            )
    fields = schema.fields()
    params = dict(gen.params)
    _refuse_unknown(params, fields, where, f"{at}.params", schema.cli_names)
    for key, value in params.items():
        _check_type(fields[key][1], value, where, f"{at}.params.{key}")
        if key in schema.nested and value is not None:
            _check_nested(schema.nested[key], value, where, f"{at}.params.{key}")
        if key in schema.corpus_keys:
            for item in value if isinstance(value, list) else [value]:
                if item is not None and item not in spec.corpora:
                    known = ", ".join(sorted(spec.corpora)) or "none defined"
                    raise ConfigError(
                        f"{where}: {at}.params.{key}: {item!r} is not a key of corpora ({known})"
                    )
    defaults = _spec_defaults(spec, gen, schema.from_spec)
    for target in schema.types:
        cls = _load(target)
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in defaults.items() if k in names}
        values.update({k: _tupled(fields[k][1], v) for k, v in params.items() if fields[k][0] is cls})
        _instantiate(cls, values, where, f"{at}.params")


def all_keys(name: str) -> list[str]:
    """Every params key of generator ``name``, and the keys of its nested mappings (for the docs)."""
    schema = SCHEMAS[name]
    keys = set(schema.fields())
    for nested in schema.nested.values():
        keys |= {f.name for f in dataclasses.fields(_load(nested.target))}
    return sorted(keys)


def _load(target: str) -> type:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


def _refuse_unknown(
    values: Mapping[str, Any], allowed: Mapping[str, Any], where: str, at: str, cli: Mapping[str, str]
) -> None:
    unknown = sorted(set(values) - set(allowed))
    if not unknown:
        return
    key = unknown[0]
    if key in cli:
        hint = f"; the spec spells that option {cli[key]}"
    else:
        near = difflib.get_close_matches(key, list(allowed), n=1)
        hint = f"; did you mean {near[0]}?" if near else ""
    raise ConfigError(f"{where}: unknown key {at}.{key}{hint} (allowed: {', '.join(sorted(allowed))})")


def _check_nested(nested: Nested, value: Any, where: str, at: str) -> None:
    cls = _load(nested.target)
    hints = typing.get_type_hints(cls)
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {at} must be a mapping, got {type(value).__name__}")
    _refuse_unknown(value, hints, where, at, {})
    if nested.typed:
        for key, item in value.items():
            _check_type(hints[key], item, where, f"{at}.{key}")
        _instantiate(cls, {k: _tupled(hints[k], v) for k, v in value.items()}, where, at)


def _instantiate(cls: type, values: dict[str, Any], where: str, at: str) -> None:
    """Build ``cls`` once so its own checks (``__post_init__``) run; their errors name the spec."""
    try:
        cls(**values)
    except ConfigError as e:
        raise ConfigError(f"{where}: {at}: {e}") from None
    except TypeError as e:  # a missing required field
        missing = [
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in values
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        ]
        what = f"missing required key {at}.{missing[0]}" if missing else f"{at}: {e}"
        raise ConfigError(f"{where}: {what}") from None


def _spec_defaults(spec: ReleaseSpec, gen: GeneratorSpec, names: tuple[str, ...]) -> dict[str, Any]:
    corpus = spec.corpora.get(gen.corpus) if gen.corpus else None
    known = {
        "lang": (corpus.language if corpus else None) or spec.language[0],
        "seed": spec.seed,
    }
    return {k: known[k] for k in names}


def _tupled(tp: Any, value: Any) -> Any:
    """A YAML list where the params type wants a tuple (as the adapters pass it)."""
    if isinstance(value, list) and any(typing.get_origin(t) is tuple for t in (tp, *typing.get_args(tp))):
        return tuple(value)
    return value


def _check_type(tp: Any, value: Any, where: str, at: str) -> None:
    expected = _mismatch(tp, value)
    if expected:
        raise ConfigError(f"{where}: {at} must be {expected}, got {value!r:.60}")


def _mismatch(tp: Any, value: Any) -> str | None:
    """None when ``value`` (plain YAML data) fits the type hint ``tp``, else what was expected."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return None
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if all(_mismatch(t, value) for t in options):
            return " or ".join(_describe(t) for t in options)
        return None
    if tp is type(None):
        return None if value is None else "null"
    if origin is typing.Literal:
        return None if value in typing.get_args(tp) else _describe(tp)
    if origin in (tuple, list, collections.abc.Sequence):
        if not isinstance(value, list | tuple):
            return _describe(tp)
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        item_tp = args[0] if len(args) == 1 or Ellipsis in typing.get_args(tp) else Any
        return _describe(tp) if any(_mismatch(item_tp, v) for v in value) else None
    if origin in (dict, collections.abc.Mapping) or tp in (dict, Mapping):
        if not isinstance(value, dict):
            return _describe(tp)
        args = typing.get_args(tp)
        val_tp = args[1] if len(args) == 2 else Any
        return _describe(tp) if any(_mismatch(val_tp, v) for v in value.values()) else None
    checks: dict[Any, Any] = {
        bool: lambda v: isinstance(v, bool),
        int: lambda v: isinstance(v, int) and not isinstance(v, bool),
        float: lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        str: lambda v: isinstance(v, str),
    }
    if tp in checks:
        return None if checks[tp](value) else _describe(tp)
    return None  # a type the spec cannot spell (a path, a class): the adapter checks it


def _describe(tp: Any) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    if tp in names:
        return names[tp]
    if tp is type(None):
        return "null"
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return "one of " + ", ".join(map(str, typing.get_args(tp)))
    if origin in (tuple, list, collections.abc.Sequence):
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        return f"a list of {_plural(args[0])}" if len(args) == 1 else "a list"
    if origin in (dict, collections.abc.Mapping) or tp in (dict, Mapping):
        args = typing.get_args(tp)
        return f"a mapping of {_plural(args[1])}" if len(args) == 2 and args[1] is not Any else "a mapping"
    return getattr(tp, "__name__", str(tp))


def _plural(tp: Any) -> str:
    return {bool: "booleans", int: "integers", float: "numbers", str: "strings"}.get(tp, "values")


def check_generators(spec: ReleaseSpec, where: str) -> None:
    """Every generator of ``spec``: a registered name, then its params, before any of them runs."""
    for i, gen in enumerate(spec.generators):
        if gen.name not in registry:
            try:
                registry.get(gen.name)
            except ConfigError as e:
                raise ConfigError(f"{where}: generators[{i}].name {e}") from None
    for gen in spec.generators:
        check_generator(spec, gen, where)


if check_generators not in SPEC_CHECKS:
    SPEC_CHECKS.append(check_generators)
