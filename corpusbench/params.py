"""A family's parameters, declared once (#40): one dataclass whose fields carry their help, default and
command-line spelling; the family's command options and its release-spec params are generated from it.

    @dataclass(frozen=True, slots=True, kw_only=True)
    class ToyParams:
        min_count: int = param(2, help="Keep words seen at least this often.")
        lang: str = param("en", help="...", spec=False)          # an option only
        train: str | None = param(None, help="...", cli=False, required=True)  # a spec key only

    ToySpec = spec_view(ToyParams)                                # what a release spec may say

    @app.command("build")
    @cli_params(ToyParams)                                        # --min-count, --lang
    def build(corpus: str, params: ToyParams) -> None: ...

:func:`spec_view` is the dataclass of the spec keys (a ``ParamsSchema`` type: unknown keys, types and
required keys are checked by it when the spec loads); :func:`cli_params` adds one typer option per CLI
field (``--kebab-case`` unless ``option`` says otherwise) and hands the command one params object;
:func:`markdown_table` writes the spec keys' table of docs/release-spec.md. Every built-in family
declares its parameters this way, in its folder (``params.py`` or ``records.py``; a nested mapping of
params is a dataclass of its own, ``ParamsSchema.nested``); a spec view may check values too
(``spec_view(..., check=)``).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer

MISSING: Any = dataclasses.MISSING


def param(
    default: Any = MISSING,
    *,
    help: str,
    option: str | None = None,
    spec: bool = True,
    cli: bool = True,
    required: bool = False,
    cli_required: bool = False,
    cli_type: Any = MISSING,
    cli_default: Any = MISSING,
    from_cli: Callable[[Any], Any] | None = None,
    nested: bool = False,
    doc_default: str | None = None,
    default_factory: Any = MISSING,
) -> Any:
    """A params field: its ``help`` (option help, spec docs), its ``option`` (default ``--kebab-case``;
    ``--x/--no-x`` for a flag pair; on a ``cli=False`` field: the command's own option of that value),
    whether it is a release-spec key (``spec``) and a command option (``cli``); ``required``: the spec must
    give it, ``cli_required``: the command line must (the dataclass default serves the other side and the
    library). ``cli_type``: the option's type where the command line spells the value otherwise (``"a,b"``
    for a list); ``cli_default``: the option's default where it is not the field's (``None``: not given,
    the field's default applies; ``"200"``: as the option spells it); ``from_cli`` turns a given option
    value into the field's (not called on None). ``nested``: the field is a params dataclass of its own
    (default ``default_factory``): its CLI fields are options of the command, and the spec key is a mapping
    of its fields (checked against it by ``ParamsSchema.nested``). ``doc_default``: the spec default in
    words, for the docs, where the dataclass default (None) stands for one (``the corpus's language``)."""
    meta = {
        "help": help,
        "option": option,
        "spec": spec,
        "cli": cli,
        "required": required,
        "cli_required": cli_required,
        "cli_type": cli_type,
        "cli_default": cli_default,
        "from_cli": from_cli,
        "nested": nested,
        "doc_default": doc_default,
    }
    if default_factory is not MISSING:
        return dataclasses.field(default_factory=default_factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def declared(cls: type) -> list[tuple[dataclasses.Field[Any], Any]]:
    """The fields of ``cls`` declared with :func:`param`, with their resolved type hints."""
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls) if "help" in f.metadata]


def option_name(f: dataclasses.Field[Any]) -> str:
    """The option's declaration as typer takes it: ``--kebab-case``, or the field's ``option``."""
    return f.metadata.get("option") or "--" + f.name.replace("_", "-")


def long_option(f: dataclasses.Field[Any]) -> str:
    """The option's first long flag (``--fill-empty`` of ``--fill-empty/--no-fill-empty``)."""
    return option_name(f).split("/")[0]


def cli_fields(cls: type) -> list[tuple[dataclasses.Field[Any], Any, dataclasses.Field[Any] | None]]:
    """The command options of ``cls``: ``(field, hint, nested_in)``, a nested field's own CLI fields in
    its place (``nested_in`` is that field; None at the top)."""
    out: list[tuple[dataclasses.Field[Any], Any, dataclasses.Field[Any] | None]] = []
    for f, hint in declared(cls):
        if not f.metadata["cli"]:
            continue
        if f.metadata.get("nested"):
            out += [(g, h, f) for g, h in declared(_not_none(hint)) if g.metadata["cli"]]
        else:
            out.append((f, hint, None))
    return out


def spec_view(cls: type, name: str | None = None, *, check: Callable[[Any], None] | None = None) -> type:
    """The dataclass of ``cls``'s spec keys (frozen, keyword-only), named ``name`` (default
    ``<cls>Spec``) in ``cls``'s module; a required key has no default. ``check(view)`` runs when one is
    made (the spec's value checks, when the spec loads: ``ParamError`` named by the key)."""
    fields: list[tuple[str, Any, Any]] = []
    for f, hint in declared(cls):
        if not f.metadata["spec"]:
            continue
        if f.metadata["required"]:
            fields.append((f.name, _not_none(hint), dataclasses.field(metadata=f.metadata)))
        elif f.metadata.get("nested"):  # a mapping of the nested class's fields (ParamsSchema.nested)
            fields.append(
                (f.name, dict[str, Any], dataclasses.field(default_factory=dict, metadata=f.metadata))
            )
        elif f.default_factory is not MISSING:
            fields.append(
                (f.name, hint, dataclasses.field(default_factory=f.default_factory, metadata=f.metadata))
            )
        else:
            fields.append((f.name, hint, dataclasses.field(default=f.default, metadata=f.metadata)))
    view_name = name or cls.__name__.removesuffix("Params") + "Spec"
    namespace = {} if check is None else {"__post_init__": lambda self: check(self)}
    view = dataclasses.make_dataclass(
        view_name, fields, frozen=True, slots=True, kw_only=True, namespace=namespace
    )
    view.__module__ = cls.__module__  # "module:Name" targets and pickling find it where it is assigned
    view.declared_by = cls  # type: ignore[attr-defined]  # the one declaration (its CLI-only fields too)
    view.__doc__ = f"The release-spec params of :class:`{cls.__name__}` (generated by corpusbench.params)."
    return view


def _not_none(hint: Any) -> Any:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return args[0] if len(args) == 1 and type(None) in typing.get_args(hint) else hint


def cli_params(cls: type, *, name: str = "params") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a typer command ``f(..., params: cls, ...)``: the command gets one option per CLI field of
    ``cls`` (where ``params`` stands among its own parameters; a nested field's CLI fields in its place)
    and ``f`` gets ``params=cls(**those options)``."""
    cli = cli_fields(cls)

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        sig = list(inspect.signature(f, eval_str=True).parameters.values())
        at = next((i for i, p in enumerate(sig) if p.name == name), len(sig))
        own = [p for p in sig if p.name != name]
        taken = {p.name for p in own}
        names = [fld.name for fld, _, _ in cli]
        if clash := (taken & set(names)) | {n for n in names if names.count(n) > 1}:
            raise TypeError(f"{f.__name__}: {sorted(clash)} both a parameter and a field of {cls.__name__}")
        generated = [
            inspect.Parameter(
                fld.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=_cli_default(fld),
                annotation=Annotated[
                    _cli_type(fld, hint), typer.Option(option_name(fld), help=fld.metadata["help"])
                ],
            )
            for fld, hint, _ in cli
        ]

        @functools.wraps(f)
        def command(*args: Any, **kwargs: Any) -> Any:
            values: dict[str, Any] = {}
            inner: dict[str, dict[str, Any]] = {}
            for fld, _, outer in cli:
                if fld.name not in kwargs:
                    continue
                value = kwargs.pop(fld.name)
                if value is not None and fld.metadata.get("from_cli") is not None:
                    value = fld.metadata["from_cli"](value)
                if value is None and fld.metadata.get("cli_default", MISSING) is None:
                    continue  # not given: the field's default

                if outer is None:
                    values[fld.name] = value
                else:
                    inner.setdefault(outer.name, {})[fld.name] = value
            hints = typing.get_type_hints(cls)
            for key, given in inner.items():
                values[key] = _not_none(hints[key])(**given)
            return f(*args, **kwargs, **{name: cls(**values)})

        kw = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
        params = kw[:at] + generated + kw[at:]
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        del command.__wrapped__  # typer reads __signature__, not the wrapped function's
        return command

    return decorate


def _cli_default(fld: dataclasses.Field[Any]) -> Any:
    if fld.metadata.get("cli_required"):
        return ...
    if fld.metadata.get("cli_default", MISSING) is not MISSING:
        return fld.metadata["cli_default"]
    return fld.default if fld.default_factory is MISSING else fld.default_factory()


def _cli_type(fld: dataclasses.Field[Any], hint: Any) -> Any:
    given = fld.metadata.get("cli_type", MISSING)
    return hint if given is MISSING else given


def markdown_table(cls: type, command: str) -> str:
    """docs/release-spec.md's table of ``cls``'s spec keys: key, default, meaning (the help) and the
    option of ``command`` (``none`` for a spec-only key); a nested field's keys follow in a table of their
    own."""
    rows = [f"| key | default | meaning | `{command}` |", "|---|---|---|---|"]
    nested: list[str] = []
    for f, hint in declared(cls):
        if not f.metadata["spec"]:
            continue
        rows.append(_row(f))
        if f.metadata.get("nested"):
            inner = _not_none(hint)
            nested += ["", f"`{f.name}` keys ({f.name}.KEY):", ""]
            nested += [f"| key | default | meaning | `{command}` |", "|---|---|---|---|"]
            nested += [_row(g) for g, _ in declared(inner) if g.metadata["spec"]]
    return "\n".join(rows + nested) + "\n"


def _row(f: dataclasses.Field[Any]) -> str:
    meta = f.metadata
    if meta.get("doc_default"):
        default = meta["doc_default"]
    elif meta["required"]:
        default = "required"
    elif meta.get("nested") or f.default_factory is not MISSING:
        default = "`{}`" if meta.get("nested") else f"`{_yaml(f.default_factory())}`"
    else:
        default = "none" if f.default is None else f"`{_yaml(f.default)}`"
    shown = meta["cli"] or meta.get("option")  # cli=False with an option: the command declares it
    option = " / ".join(f"`{o}`" for o in option_name(f).split("/")) if shown else "none"
    if meta.get("nested"):
        option = "one option per key (below)" if meta["cli"] else "none"
    cells = [f"`{f.name}`", default, " ".join(meta["help"].split()), option]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _yaml(value: Any) -> str:
    """A default as a spec spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    return str(value)
