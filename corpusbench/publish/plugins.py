"""The generator-plugin interface of a release: what a generator hands to ``release build``.

A generator plugs in with one small adapter function, the ``release`` hook of its family
(:class:`corpusbench.family.Family`, registered by an entry point; docs/extending.md)::

    def build_configs(ctx: GeneratorContext) -> list[ReleaseConfig]: ...

The adapter reads its ``params`` from ``ctx.generator.params`` (use ``parse_params`` for a typed,
unknown-keys-are-errors view), may cache work under ``ctx.work_dir`` (kept between builds), and returns
one ``ReleaseConfig`` per Hub config: the rows plus everything the card and ``provenance.json`` show.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from corpusbench.errors import ConfigError, ParamError
from corpusbench.family import Family, TaskKind, families, load

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from corpusbench.publish.spec import FamilySpec, ReleaseLLM, ReleaseSpec

#: A config's task kind: one of :data:`TASKS`, or one a family adds (``Family.tasks``).
Task = str
#: The task kinds of the framework, each with the columns its configs must have (string, non-null) and
#: their default eval roles (merged under a config's own ``roles``).
TASKS: dict[str, TaskKind] = {
    "minimal_pairs": TaskKind(
        columns=("sentence_good", "sentence_bad"), roles={"good": "sentence_good", "bad": "sentence_bad"}
    ),
    "prefix_pairs": TaskKind(
        columns=("prefix", "critical_good", "critical_bad"),
        roles={"prefix": "prefix", "good": "critical_good", "bad": "critical_bad"},
    ),
    "other": TaskKind(columns=()),
}
#: Eval role vocabulary of the framework (``ReleaseConfig.roles`` keys): role -> what its column holds.
#: A key may carry a qualifier after ``:`` (``noun_bin:childes`` = the noun bin in corpus ``childes``). The
#: eval runner reads columns through these roles only; the roles it finds decide which family's metrics a
#: config gets. Families add their own (``Family.roles``).
ROLES: dict[str, str] = {
    "good": "acceptable sentence (or critical region after ``prefix``)",
    "bad": "unacceptable sentence (or critical region after ``prefix``)",
    "prefix": "shared context before good/bad (prefix_pairs), not scored",
    "prefix_good": "context before the good sentence, not scored (a prefix variant)",
    "prefix_bad": "context before the bad sentence, not scored",
    "id": "pair id, unique within the config",
    "group": "grouping for per-group accuracy (paradigm, rule, UID)",
    "bin": "frequency bin (int) for per-bin accuracy and stratified --limit",
    "good_start": "critical region of good: start character",
    "good_end": "critical region of good: end character (exclusive)",
    "bad_start": "critical region of bad: start character",
    "bad_end": "critical region of bad: end character (exclusive)",
}


def tasks() -> dict[str, TaskKind]:
    """Every task kind: the framework's, then each family's (family order)."""
    out = dict(TASKS)
    for family in families.all():
        out.update(family.tasks)
    return out


def roles() -> dict[str, str]:
    """The whole eval role vocabulary: the framework's roles, then each family's."""
    out = dict(ROLES)
    for family in families.all():
        out.update(family.roles)
    return out


def split_role(key: str) -> tuple[str, str | None]:
    """``"noun_bin:childes"`` -> ``("noun_bin", "childes")``; ``"good"`` -> ``("good", None)``."""
    name, sep, qual = key.partition(":")
    return name, (qual if sep else None)


CONFIG_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,95}$")


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseConfig:
    """One Hub config (one parquet table, split ``test``) produced by a generator.

    ``funnel`` is the generator's ordered counters (``read``, ``dropped:<reason>``, ``kept``);
    ``bins`` maps a frequency-bin label to its row count; ``prompt_hashes`` maps a prompt template
    name (``generic/yes_no.v1``) to the sha256 of its text; ``model`` describes the LLM used.
    ``roles`` tells the eval runner which column plays which part (``good``, ``bad``, ``id``, ``group``,
    ``bin``, ``good_start``...); the task's required columns are filled in by default.
    """

    name: str
    table: pa.Table | pd.DataFrame
    description: str
    task: Task = "minimal_pairs"
    funnel: Mapping[str, int] = field(default_factory=dict)
    bins: Mapping[str, int] = field(default_factory=dict)
    parameters: Mapping[str, Any] = field(default_factory=dict)
    prompt_hashes: Mapping[str, str] = field(default_factory=dict)
    model: Mapping[str, Any] | None = None
    citations: tuple[str, ...] = ()  # BibTeX entries of the method papers
    limitations: tuple[str, ...] = ()
    roles: Mapping[str, str] = field(default_factory=dict)  # eval role -> column, e.g. {"group": "paradigm"}
    #: small JSON files written beside the parquet (``data/<config>/<name>``), e.g. human statistics
    extra_files: Mapping[str, Any] = field(default_factory=dict)
    card_section: str = ""  # Markdown shown under the config in the card (e.g. a statistics table)
    notes: tuple[str, ...] = ()  # how the rows were made, shown in the card (e.g. how context is stored)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolvedCorpus:
    """A corpus named in the spec, with its absolute path and content fingerprint."""

    key: str
    path: Path
    stats: Path | None
    language: str | None
    fingerprint: Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class GeneratorContext:
    """Everything an adapter may use. ``corpus`` is the generator's own corpus, if it names one."""

    spec: ReleaseSpec
    generator: FamilySpec
    corpora: Mapping[str, ResolvedCorpus]
    corpus: ResolvedCorpus | None
    work_dir: Path
    seed: int
    llm: ReleaseLLM | None
    base_dir: Path  # folder of the spec file: relative paths in params resolve against it
    log: Callable[[str], None] = lambda _msg: None

    def resolve_path(self, value: str | Path) -> Path:
        p = Path(value).expanduser()
        return p if p.is_absolute() else (self.base_dir / p)


GeneratorFn = Callable[[GeneratorContext], Sequence[ReleaseConfig]]


class Generators:
    """Release adapters by generator name: those of the registered families (:mod:`corpusbench.family`).

    ``register(name, fn)`` registers a family with only a release adapter (a quick plugin, a test).
    """

    def register(self, name: str, obj: GeneratorFn | None = None, *, target: str | None = None) -> None:
        if (obj is None) == (target is None):
            raise ValueError("give exactly one of obj or target")
        families.register(Family(name=name, title=name, release=obj if obj is not None else target))

    def names(self) -> list[str]:
        return [f.name for f in sorted(families.all(), key=lambda f: f.name) if f.release is not None]

    def __contains__(self, name: object) -> bool:
        return name in self.names()

    def get(self, name: str) -> GeneratorFn:
        family = families.get(name)
        if family.release is None:
            raise ConfigError(f"family {name!r} has no release adapter (it makes no release configs)")
        return load(family.release)  # type: ignore[no-any-return]


generators = Generators()


P = TypeVar("P")


def parse_params(cls: type[P], params: Mapping[str, Any], where: str) -> P:
    """Build a params dataclass from a spec mapping; unknown or missing keys raise ``ConfigError``."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(params) - names)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(names))})"
        )
    try:
        return cls(**params)
    except ParamError as e:  # named by its spec key
        raise e.named(f"{where}.{e.param}") from None
    except TypeError as e:
        raise ConfigError(f"{where}: {e}") from None
