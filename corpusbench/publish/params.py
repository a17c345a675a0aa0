"""Generator parameters of a release spec, checked when the spec is loaded, before any work.

Each family's :class:`~corpusbench.family.ParamsSchema` names the params dataclass(es) its adapter
parses (a key belongs to the first type that has it), the mappings nested in its params (a
``selection`` mapping), and what it needs from the rest of the spec (a corpus, an ``llm`` block, corpus keys
in its params). ``check_generator``
refuses unknown keys (listing every valid one), wrong value types and the types' own validation errors
with one ``ConfigError`` naming the spec file and the key. A family registered without a schema checks its own
params when it runs.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import difflib
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any

from corpusbench.errors import ConfigError, ParamError
from corpusbench.family import Nested, ParamsSchema, families, load
from corpusbench.publish.plugins import generators as registry
from corpusbench.publish.spec import SPEC_CHECKS, FamilySpec, ReleaseSpec

__all__ = ["SCHEMAS", "Nested", "ParamsSchema", "all_keys", "check_generator", "check_generators"]


class Schemas(Mapping[str, ParamsSchema]):
    """Generator name -> params schema, over the registered families that declare one."""

    def _all(self) -> dict[str, ParamsSchema]:
        return {f.name: f.params for f in families.all() if f.release is not None and f.params is not None}

    def __getitem__(self, name: str) -> ParamsSchema:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


SCHEMAS = Schemas()


def check_generator(spec: ReleaseSpec, gen: FamilySpec, where: str) -> None:
    """Check one generator's params against its schema; ``where`` is the spec file."""
    schema = families.get(gen.name).params if gen.name in families else None
    if schema is None:
        return
    at = f"families.{gen.id}"
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
        cls = load(target)
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in defaults.items() if k in names}
        values.update({k: _tupled(fields[k][1], v) for k, v in params.items() if fields[k][0] is cls})
        _instantiate(cls, values, where, f"{at}.params")


def all_keys(name: str) -> list[str]:
    """Every params key of generator ``name``, and the keys of its nested mappings (for the docs)."""
    schema = SCHEMAS[name]
    keys = set(schema.fields())
    for nested in schema.nested.values():
        keys |= {f.name for f in dataclasses.fields(load(nested.target))}
    return sorted(keys)


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
    cls = load(nested.target)
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
    except ParamError as e:  # named by its spec key
        raise e.named(f"{where}: {at}.{e.param}") from None
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


def _spec_defaults(spec: ReleaseSpec, gen: FamilySpec, names: tuple[str, ...]) -> dict[str, Any]:
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
    for i, gen in enumerate(spec.families):
        if gen.name not in registry:
            try:
                registry.get(gen.name)
            except ConfigError as e:
                raise ConfigError(f"{where}: families[{i}].name {e}") from None
    for gen in spec.families:
        check_generator(spec, gen, where)


if check_generators not in SPEC_CHECKS:
    SPEC_CHECKS.append(check_generators)
