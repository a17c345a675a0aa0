"""Each family's ``<family> build`` options against its release params (#30).

A spec param ``snake_case`` is the option ``--snake-case`` of the family's ``build`` command, and
the other way round; what does not follow that rule is in the family's table below, with its reason.
A param added to one side only (the adapter's params type or the CLI) fails here with its name; so
does a table entry that no longer matches anything. Where both sides have a default, they agree,
unless the table says why not.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import typer

from corpusbench.cli import app
from corpusbench.family import families, load

NO_DEFAULT = object()
OUT = "the build's folder: the release writes into its work dir"
SPEC_CORPUS = "the spec names it as the generator's `corpus` (a key of `corpora`)"
LLM_BLOCK = "the spec's `llm` block (llm.backend / llm.model)"


@dataclass(frozen=True)
class Known:
    """A family's known differences between its spec params and its ``build`` options."""

    renamed: dict[str, str] = field(default_factory=dict)  # spec key -> CLI option
    spec_only: dict[str, str] = field(default_factory=dict)  # spec key -> why it has no option
    cli_only: dict[str, str] = field(default_factory=dict)  # CLI option (or ARGUMENT) -> why no key
    flattened: tuple[str, ...] = ()  # nested params whose keys are options (``selection.n_nouns``)
    defaults: dict[str, str] = field(default_factory=dict)  # spec key -> why the defaults differ


KNOWN: dict[str, Known] = {
    "ltswap": Known(
        cli_only={
            "CORPUS": SPEC_CORPUS,
            "--out": OUT,
            "--llm-cache": "the release caches the LLM answers under its work dir",
            "--workers": "the release computes stats with one worker",
            "--llm-backend": LLM_BLOCK,
            "--llm-model": LLM_BLOCK,
            "--llm-api-key": "a secret: never in a spec; the release reads OPENAI_API_KEY",
            "--trust-remote-code": "runs a model folder's own code: asked for on the command line only",
        },
    ),
    # ltswap, fitclams, cac and frames declare their params once (corpusbench.params): whether each is
    # an option, a spec key or both, and its option's spelling, is said by the declaration's fields
    # (known_() reads them); only the commands' run arguments are here
    "fitclams": Known(
        cli_only={
            "--corpus": "NAME=PATH: the spec names its corpora (`corpora`, keys of the spec's corpora)",
            "--out": OUT,
            "--stats": "spec corpora give their own `stats` folder (else computed under the work dir)",
            "--workers": "stats of a raw corpus; the release computes them with one worker",
            "--tagger": "stats of a raw corpus; the release uses the language's default tagger",
            "--config": "a YAML file of the lexicon overrides; the spec gives the mapping (`overrides`)",
            "--llm-backend": "the LLM of --llm-check",
            "--llm-model": "the LLM of --llm-check",
            "--llm-base-url": "the LLM of --llm-check",
            "--llm-api-key": "the LLM of --llm-check",
        },
    ),
    "cac": Known(
        cli_only={
            "INPUTS": SPEC_CORPUS,
            "--out": OUT,
        },
    ),
    "frames": Known(
        cli_only={
            "CORPUS": SPEC_CORPUS,
            "--out": OUT,
            "--stats": "the training corpus's stats folder; the spec names that corpus (`train`)",
            "--occurrences": "token positions for `eval clusters`; the release ships the S-clusters only",
        },
    ),
}


def known_(name: str) -> Known:
    """``KNOWN[name]``, plus what a family declared with :mod:`corpusbench.params` says of each field: a
    spec-only field (``cli=False``) and an option-only one (``spec=False``), its help as the reason; an
    option spelled otherwise than ``--key`` (``renamed``); a nested field's keys as options
    (``flattened``)."""
    table = KNOWN[name]
    schema = families.get(name).params
    declared_by = getattr(load(schema.types[0]), "declared_by", None) if schema else None
    if declared_by is None:
        return table
    from corpusbench.params import declared, long_option

    spec_only: dict[str, str] = {}
    cli_only: dict[str, str] = {}
    renamed: dict[str, str] = {}
    flattened: list[str] = []
    for f, hint in declared(declared_by):
        meta = f.metadata
        if meta.get("nested"):
            flattened.append(f.name)
            for g, _ in declared(hint):
                if "--" + g.name.replace("_", "-") != long_option(g):
                    renamed[f"{f.name}.{g.name}"] = long_option(g)
            continue
        if meta["spec"] and not meta["cli"] and meta.get("option"):  # the command's own option
            if "--" + f.name.replace("_", "-") != long_option(f):
                renamed[f.name] = long_option(f)
        elif meta["spec"] and not meta["cli"]:
            spec_only[f.name] = meta["help"]
        elif meta["cli"] and not meta["spec"]:
            cli_only[long_option(f)] = meta["help"]
        elif "--" + f.name.replace("_", "-") != long_option(f):
            renamed[f.name] = long_option(f)
    return dataclasses.replace(
        table,
        spec_only={**table.spec_only, **spec_only},
        cli_only={**table.cli_only, **cli_only},
        renamed={**table.renamed, **renamed},
        flattened=(*table.flattened, *flattened),
    )


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return NO_DEFAULT


def spec_params(name: str) -> dict[str, Any]:
    """The family's spec params (``flattened`` ones as ``key.field``) -> their defaults."""
    schema = families.get(name).params
    assert schema is not None
    flat = known_(name).flattened
    out: dict[str, Any] = {}
    for key, (cls, _) in schema.fields().items():
        fld = next(f for f in dataclasses.fields(cls) if f.name == key)
        if key in flat:
            nested = load(schema.nested[key].target)
            out.update({f"{key}.{f.name}": _default(f) for f in dataclasses.fields(nested)})
        else:
            out[key] = _default(fld)
    return out


def build_options(name: str) -> dict[str, Any]:
    """``corpusbench <name> build``'s options (first long flag) and arguments (upper case) -> defaults.

    Hidden options are skipped: they are old spellings (``--stats-dir``) kept for compatibility."""
    group = typer.main.get_command(app)  # typer's own (vendored) click: test by param_type_name
    out: dict[str, Any] = {}
    for p in group.commands[name].commands["build"].params:  # type: ignore[attr-defined]
        if p.param_type_name == "argument":
            out[(p.name or "").upper()] = NO_DEFAULT
        elif p.param_type_name == "option" and not p.hidden:
            flag = next(o for o in p.opts if o.startswith("--"))
            out[flag] = NO_DEFAULT if p.required or p.default is None else p.default
    return out


def option_of(name: str, key: str) -> str:
    """The option a spec key is expected to have: its renamed spelling, else ``--kebab-case``."""
    return known_(name).renamed.get(key, "--" + key.rsplit(".", 1)[-1].replace("_", "-"))


def same(cli: Any, spec: Any) -> bool:
    """A CLI default and a params default agree (the CLI spells lists "a,b" and numbers as text)."""
    if isinstance(cli, str) and isinstance(spec, tuple | list):
        return cli == ",".join(map(str, spec))
    if isinstance(cli, str) and not isinstance(spec, str):
        return cli == str(spec)
    return bool(cli == spec)


NAMES = sorted(KNOWN)


def test_every_builtin_family_has_a_table() -> None:
    builtin = {f.name for f in families.all() if f.params is not None and f.cli is not None}
    assert builtin <= set(NAMES), f"add a Known(...) entry for {sorted(builtin - set(NAMES))}"


def missing_options(name: str, spec: dict[str, Any], cli: dict[str, Any]) -> list[str]:
    """Spec keys with no option (and no table entry)."""
    known = known_(name)
    return [k for k in spec if k not in known.spec_only and option_of(name, k) not in cli]


def extra_options(name: str, spec: dict[str, Any], cli: dict[str, Any]) -> list[str]:
    """Options (and arguments) with no spec key (and no table entry)."""
    matched = {option_of(name, k) for k in spec}
    return [o for o in cli if o not in matched and o not in known_(name).cli_only]


@pytest.mark.parametrize("name", NAMES)
def test_every_spec_param_has_its_option(name: str) -> None:
    missing = missing_options(name, spec_params(name), build_options(name))
    expected = ", ".join(option_of(name, k) for k in missing)
    assert missing == [], (
        f"{name}: spec params with no `{name} build` option ({expected} expected); add the option, or "
        f"list the param in KNOWN[{name!r}] (renamed / spec_only) with its reason: {missing}"
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_option_has_its_spec_param(name: str) -> None:
    extra = extra_options(name, spec_params(name), build_options(name))
    assert extra == [], (
        f"{name}: `{name} build` options with no spec param; add the param to the adapter's params, or "
        f"list the option in KNOWN[{name!r}].cli_only with its reason: {extra}"
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_exception_table_is_current(name: str) -> None:
    spec, cli, known = spec_params(name), build_options(name), known_(name)
    stale = [f"renamed {k}" for k, o in known.renamed.items() if k not in spec or o not in cli]
    stale += [f"spec_only {k}" for k in known.spec_only if k not in spec]
    stale += [
        f"spec_only {k} (it has {option_of(name, k)})" for k in known.spec_only if option_of(name, k) in cli
    ]
    stale += [f"cli_only {o}" for o in known.cli_only if o not in cli]
    stale += [f"defaults {k}" for k in known.defaults if k not in spec]
    assert stale == [], f"{name}: KNOWN[{name!r}] names what no longer differs: {stale}"


@pytest.mark.parametrize("name", NAMES)
def test_defaults_agree(name: str) -> None:
    spec, cli, known = spec_params(name), build_options(name), known_(name)
    differ = [
        f"{key}: spec {spec[key]!r}, {option_of(name, key)} {cli[option_of(name, key)]!r}"
        for key in spec
        if key not in known.defaults
        and option_of(name, key) in cli
        and spec[key] is not NO_DEFAULT
        and cli[option_of(name, key)] is not NO_DEFAULT
        and not same(cli[option_of(name, key)], spec[key])
    ]
    assert differ == [], (
        f"{name}: defaults differ (align them, or say why in KNOWN[{name!r}].defaults): {differ}"
    )


def test_a_param_on_one_side_only_is_named() -> None:
    """The check itself: a spec key with no option and an option with no key are named."""
    spec = {**spec_params("frames"), "new_knob": 1}
    cli = {**build_options("frames"), "--other-knob": 2}
    assert missing_options("frames", spec, cli) == ["new_knob"]
    assert extra_options("frames", spec, cli) == ["--other-knob"]


def test_the_cac_release_reads_a_dialogue_tables_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The params closed from the CLI (``--session-col`` ...) reach the CAC run's config."""
    from corpusbench.families.cac import pipeline
    from corpusbench.families.cac.release import build_configs
    from corpusbench.publish.plugins import GeneratorContext, ResolvedCorpus
    from corpusbench.publish.spec import ReleaseSpec

    seen: list[Any] = []

    def fake_run(inputs: Any, out: Any, config: Any) -> None:
        seen.append(config)
        raise RuntimeError("stop after the config")

    monkeypatch.setattr(pipeline, "run_cac", fake_run)
    cols = {"session_col": "s", "speaker_col": "who", "text_col": "line", "order_col": "n"}
    params = {**cols, "max_line_bytes": 5000}
    table = tmp_path / "dialogue.jsonl"
    table.write_text('{"s": "a", "who": "CHI", "line": "the dog", "n": 1}\n', encoding="utf-8")
    spec = ReleaseSpec.from_dict(
        {
            "name": "t",
            "version": "0.1.0",
            "repo_id": "t/t",
            "corpora": {"d": {"path": str(table), "language": "en"}},
            "families": [{"name": "cac", "corpus": "d", "params": params}],
        }
    )
    corpus = ResolvedCorpus(key="d", path=table, stats=None, language="en", fingerprint={})
    ctx = GeneratorContext(
        spec=spec,
        generator=spec.families[0],
        corpora={"d": corpus},
        corpus=corpus,
        work_dir=tmp_path / "work",
        seed=0,
        llm=None,
        base_dir=tmp_path,
    )
    with pytest.raises(RuntimeError, match="stop after the config"):
        build_configs(ctx)
    table_columns = seen[0].as_dict()["table_columns"]
    assert table_columns == {"session": "s", "speaker": "who", "text": "line", "order": "n"}
    assert seen[0].max_line_bytes == 5000


# docs/release-spec.md's params tables of the families declared with corpusbench.params, generated from
# the declarations (markdown_table).
# `python tests/test_family_params.py` rewrites them.
DOC = Path(__file__).resolve().parents[1] / "docs" / "release-spec.md"
DOC_TABLES = ("ltswap", "fitclams", "frames", "cac")


def _declaration(name: str) -> type:
    schema = families.get(name).params
    assert schema is not None
    return load(schema.types[0]).declared_by  # type: ignore[no-any-return]


def synced_doc(text: str) -> str:
    """``text`` with each generated table (between its ``<!-- params:NAME -->`` markers) made anew."""
    from corpusbench.params import markdown_table

    for name in DOC_TABLES:
        cls = _declaration(name)
        start = f"<!-- params:{name}: generated from {cls.__name__} (tests/test_family_params.py) -->\n"
        end = f"<!-- /params:{name} -->"
        i, j = text.index(start) + len(start), text.index(end)
        text = text[:i] + "\n" + markdown_table(cls, f"corpusbench {name} build") + "\n" + text[j:]
    return text


def test_the_release_spec_doc_tables_are_the_declarations() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert synced_doc(text) == text, (
        "docs/release-spec.md's params tables differ from the declarations: run "
        "`python tests/test_family_params.py` to write them anew"
    )


if __name__ == "__main__":
    DOC.write_text(synced_doc(DOC.read_text(encoding="utf-8")), encoding="utf-8")
