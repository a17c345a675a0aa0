"""Benchmark families: one :class:`Family` record per family, registered once.

A family (a built-in one in ``corpusbench/families/<family>/``, or one of yours) tells corpusbench what
it contributes: its commands (``<family> build``), its release adapter and the params it accepts
(``release build``), its task kinds and roles, how ``eval run`` recognises, scores and summarises its
configs (:class:`EvalKind`: a marker role, a benchmark function, its headline metric, Markdown and
console lines, figures, ``compare`` columns, notes and figures; its own scoring for a task that is not
pairs), its lines and steps in ``demo summary`` (:class:`DemoLine`, :class:`DemoStep`, :class:`DemoNext`)
and how ``review`` reads its items (:class:`ReviewKind`). The release builder, the eval runner,
``compare``, ``demo summary`` and ``review`` ask this registry.

Families are found through the entry-point group ``corpusbench.families`` (each entry point names a
module attribute holding a ``Family``; the built-ins are listed in ``pyproject.toml``), as spaCy finds
its registered functions; :func:`register` adds one in-process (tests, notebooks). Every hook is a
``"module:attr"`` target loaded on first use, or the object itself, so registering a family imports
nothing heavy. See ``docs/extending.md``.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from corpusbench.errors import ConfigError

GROUP = "corpusbench.families"
#: A hook: ``"module:attr"`` (imported when first called) or the callable itself.
Target = str | Callable[..., Any]


def load(target: Target) -> Any:
    """The object a target names (a callable is its own target)."""
    if not isinstance(target, str):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True, slots=True, kw_only=True)
class Nested:
    """A params key whose value is a mapping of ``target``'s fields; ``typed``: check value types too."""

    target: Target  # the class, or "module:Class"
    typed: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ParamsSchema:
    """A family's release params: what ``release build`` checks when the spec is loaded, before any work."""

    types: tuple[Target, ...]  # params dataclasses ("module:Class"), in the adapter's parsing order
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
            cls = load(target)
            hints = typing.get_type_hints(cls)
            for f in dataclasses.fields(cls):
                out.setdefault(f.name, (cls, hints[f.name]))
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskKind:
    """A release task kind a family adds (``ReleaseConfig.task``): the columns its configs must have
    (string, non-null), their default eval roles (merged under a config's own ``roles``) and, optionally,
    how the release's lm-eval-harness folder scores them."""

    columns: tuple[str, ...]
    roles: Mapping[str, str] = field(default_factory=dict)
    #: (rel, config, task, note) -> {file name: text}: a config's files of the release's lm-eval-harness
    #: task folder (``rel``: the manifest's release block; ``note``: the generated-file header line)
    lm_eval: Target | None = None
    lm_eval_note: str = ""  # the card's paragraph on those tasks (a Markdown list item's continuation)


@dataclass(frozen=True, slots=True, kw_only=True)
class Metric:
    """One ``compare`` column of a run: its value, its 95% interval, and whether it is a headline."""

    column: str
    value: float | None
    ci: list[float] | None = None
    headline: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreRun:
    """What a family's ``score`` hook gets besides its configs: the run's spec, the release, the open
    scorer and the model's provenance, the progress factory and the stage clock (eval's own types)."""

    spec: Any
    release: Any
    scorer: Any
    model_provenance: dict[str, Any]
    progress: Any = None
    clock: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskScores:
    """What a family's ``score`` hook returns: its block of ``benchmarks`` (None: nothing scored) and
    ``figures(folder)``, which draws its figures of the run into the run's output folder."""

    block: dict[str, Any] | None
    figures: Callable[[Any], None] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalHelp:
    """A family's words in the help of ``eval`` and ``compare`` (joined with the other families')."""

    score: str = ""  # the ``eval`` group: how its benchmark scores ("determiner choice")
    region: str = ""  # ``eval run --scoring auto``: its critical region ("verb")
    limit: str = ""  # ``eval run --limit``: what it limits ("sites per dyad and role")
    boot: bool = False  # ``compare --boot``: its compare figure draws bootstrap intervals


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalKind:
    """How ``eval run`` recognises a family's release configs and what it reports for them.

    A config is the family's when its ``task`` is ``task`` (default: a pair task) and, if ``role`` is
    set, its roles have that role (a marker role such as ``paradigm``). ``benchmark(entries, scored,
    **options)`` returns the family's block of ``results.json`` ``benchmarks`` (None when none of its
    configs was scored); ``options`` names the run options it takes (``train_corpus``), declared by
    ``run_options``, the dataclass of its ``eval run`` options. Without ``markdown`` / ``columns`` hooks,
    the block's ``headline`` key is shown under the family's title.

    A task that is not pairs (a determiner choice per site, say) brings its own scoring: ``score(entries,
    run: ScoreRun) -> TaskScores`` scores the family's configs of that task with the run's scorer (its
    block is merged into the family's block of pair configs, if it has one), and ``refuses(scorer)``
    says why a scorer cannot take them (they are then skipped). ``folder(spec, progress, clock)`` scores a
    folder of the family's own generator output given as the dataset (None: not such a folder).
    """

    role: str | None = None
    task: str | None = None
    benchmark: Target | None = None  # (entries, scored, **options) -> dict | None
    score: Target | None = None  # (entries, run: ScoreRun) -> TaskScores: configs scored by the family
    refuses: Target | None = None  # (scorer) -> str | None: why ``score`` cannot use this scorer
    folder: Target | None = None  # (spec, progress, clock) -> eval report | None: its output folder scored
    options: tuple[str, ...] = ()
    headline: str = "score"  # the block's headline metric
    markdown: Target | None = None  # (block) -> list[str]: lines of summary.md
    console: Target | None = None  # (block) -> list[str]: the lines ``eval run`` prints (default: headline)
    columns: Target | None = None  # (block) -> list[Metric]: the run's compare columns
    covers: Target | None = None  # (config, block) -> bool: the config is in the block (default: "configs")
    notes: Target | None = None  # (runs) -> list[str]: notes under the compare table
    settings: Target | None = None  # (runs) -> list[str]: how each run was made (after the scoring mode)
    run_figures: tuple[Target, ...] = ()  # (results, out) -> file name | None: figures of one eval run
    figures: tuple[Target, ...] = ()  # (runs, out, n_boot, seed) -> file name | None: compare figures
    #: its options of ``eval run``: a dataclass ("module:Class") of ``corpusbench.params.param`` fields (help,
    #: default, option spelling); the run's ``EvalSpec.options`` carries their values by field name
    run_options: Target | None = None
    help: EvalHelp = field(default_factory=EvalHelp)
    averaged: tuple[str, ...] = ()  # its block's scores that average cells (MOVER intervals): "score", "bin"
    rows: Target | None = (
        None  # (block) -> {config: score | None}: ``eval run``'s table rows of its own scoring
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputFolder:
    """A family's generator output folder given to ``eval run`` as the dataset: ``label`` (how messages
    name it), ``recognises(manifest) -> bool`` (its ``manifest.json``) and, for a pair task,
    ``configs(path) -> (release configs, files read)``: its configs as its release adapter makes them."""

    label: str
    recognises: Target
    configs: Target | None = None
    help: str = ""  # how ``eval run --dataset``'s help names it, where "pairs file, folder" does not


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoLine:
    """``demo summary``: a folder whose ``file`` (JSON) is recognised gets the line ``line`` makes."""

    file: str  # manifest.json, results.json, split.json ...
    recognises: Target  # (doc) -> bool
    line: Target  # (doc, folder) -> (what was made, its key numbers)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoredBy:
    """A family's configs of task ``task`` that ``eval run`` does not score, and its own command that does
    (one of its ``eval_cli`` commands): the skip reason and the ``eval`` group's help say so."""

    task: str  # "other"
    what: str  # what those configs are, as the help names them
    command: str  # the command after ``corpusbench``: "eval clusters"


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoStep:
    """``demo summary``: an output ``make demo`` makes, listed (built or not) under ``title``; ``path`` is its
    folder relative to the demo's, ``order`` its place among all the demo's steps (lowest first)."""

    title: str
    path: str
    order: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoNext:
    """``demo summary``: a command to try next, ``(command, what)``, once the step at ``after`` (its path) is
    built; ``order``: its place among the families' next lines (lowest first)."""

    after: str
    command: str
    what: str
    order: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewKind:
    """How ``review`` reads a family's minimal pairs as items to label, and words them for the reviewer.

    A row of a release config becomes an item: ``subtask(config, row, roles)`` names its subtask (default:
    the config's name) and ``bin(row, roles)`` labels its bin (default: ``bin <value>`` of its ``bin`` role,
    ``all`` without one). ``titles`` (subtask -> title, in the order reports list them) and ``claims``
    (subtask -> the claim the reviewer checks) are what the page shows; ``claim`` is the claim of the
    family's other subtasks. ``judged``: its release items are the ones an LLM judge kept (the report gives
    the judge's precision). A family whose generator output folder can be reviewed too gives
    ``recognises(manifest) -> bool`` (its ``manifest.json``), ``run(folder, configs) -> (name, items)``
    and ``run_label`` (how messages name such a folder: "an X run"); ``rejected(folder, configs) -> items``
    reads the judge's rejected drafts in a folder (none there: ``[]``).
    """

    titles: Mapping[str, str] = field(default_factory=dict)
    claims: Mapping[str, str] = field(default_factory=dict)
    claim: str = ""
    subtask: Target | None = None  # (config name, row, roles) -> str
    bin: Target | None = None  # (row, roles) -> str
    judged: bool = False
    recognises: Target | None = None  # (manifest) -> bool
    run: Target | None = None  # (folder, configs) -> (name, items)
    run_label: str = ""
    rejected: Target | None = None  # (folder, configs) -> items


@dataclass(frozen=True, slots=True, kw_only=True)
class Family:
    """One benchmark family. ``rank`` orders the families wherever they are listed (lowest first)."""

    name: str  # its name under ``families:`` in a release spec and its ``benchmarks`` key
    title: str  # as shown in summaries and compare columns
    release: Target | None = None  # build_configs(ctx: GeneratorContext) -> list[ReleaseConfig]
    params: ParamsSchema | None = None
    eval: EvalKind | None = None
    demo: tuple[DemoLine, ...] = ()
    output: OutputFolder | None = None  # its output folder as an ``eval run`` dataset
    #: (paths) -> rows: reads a file of labelled items made outside a release (a spec's ``review.labels``):
    #: one row per item with ``labels`` (one per minimal pair) and ``s<k>_good``/``s<k>_bad``; ``_where``
    labels: Target | None = None
    cli: Target | None = None  # register(app: typer.Typer): adds the family's commands (``<family> build``)
    eval_cli: Target | None = None  # register(eval_app: typer.Typer): adds its ``eval`` subcommands
    tasks: Mapping[str, TaskKind] = field(default_factory=dict)  # task kinds it adds (beyond pairs)
    roles: Mapping[str, str] = field(
        default_factory=dict
    )  # eval roles it adds: role -> what its column holds
    rank: int = 100
    scored_by: ScoredBy | None = None  # its configs that ``eval run`` skips: the command that scores them
    review: ReviewKind | None = None  # how ``review`` reads and words its items
    demo_steps: tuple[DemoStep, ...] = ()  # its outputs of ``make demo`` (``demo summary``'s rows)
    demo_next: tuple[DemoNext, ...] = ()  # ``demo summary``'s commands to try next, once they are built
    #: (stats folder) -> a Rich renderable | None: what ``corpusbench stats`` prints for the family after
    #: its summary (the corpus's candidates as the family bins them, say)
    stats_view: Target | None = None

    def claims(self, task: str, roles: set[str], pair_tasks: tuple[str, ...]) -> bool:
        """Whether a release config (its task, its role names) is this family's, for eval: its ``task`` (else
        a pair task or one of the family's own ``tasks``) with its marker ``role``."""
        kind = self.eval
        if kind is None or (kind.role is None and kind.task is None):
            return False
        task_ok = task == kind.task if kind.task else task in pair_tasks or task in self.tasks
        return task_ok and (kind.role is None or kind.role in roles)


class Registry:
    """Families by name: the entry points of :data:`GROUP`, read once, plus :meth:`register`."""

    def __init__(self, group: str = GROUP) -> None:
        self.group = group
        self._items: dict[str, Family] | None = None

    def _loaded(self) -> dict[str, Family]:
        if self._items is None:
            items: dict[str, Family] = {}
            for ep in entry_points(group=self.group):
                if ep.name in items:
                    continue  # the same distribution seen twice on sys.path
                family = ep.load()
                if not isinstance(family, Family) or family.name != ep.name:
                    raise ConfigError(f"entry point {ep.name} = {ep.value}: not a Family named {ep.name!r}")
                items[ep.name] = family
            self._items = items
        return self._items

    def register(self, family: Family, *, replace: bool = False) -> Family:
        """Add ``family`` (``replace``: over one of the same name); returns it."""
        items = self._loaded()
        if family.name in items and items[family.name] != family and not replace:
            raise ValueError(f"family {family.name!r} is already registered")
        items[family.name] = family
        return family

    def unregister(self, name: str) -> None:
        self._loaded().pop(name, None)

    def reload(self) -> None:
        """Forget every family; the entry points are read again on next use."""
        self._items = None

    def names(self) -> list[str]:
        return sorted(self._loaded())

    def __contains__(self, name: object) -> bool:
        return name in self._loaded()

    def all(self) -> list[Family]:
        """Every family, by rank then name."""
        return sorted(self._loaded().values(), key=lambda f: (f.rank, f.name))

    def get(self, name: str) -> Family:
        items = self._loaded()
        if name not in items:
            near = difflib.get_close_matches(name, list(items), n=3)
            hint = f" Did you mean: {', '.join(near)}?" if near else f" Known: {', '.join(sorted(items))}."
            raise ConfigError(f"unknown family {name!r}.{hint}")
        return items[name]

    def with_eval(self) -> list[Family]:
        return [f for f in self.all() if f.eval is not None]


families = Registry()


def register(family: Family, *, replace: bool = False) -> Family:
    """Register ``family`` in-process (entry points are the way for an installed package)."""
    return families.register(family, replace=replace)


def number(x: Any) -> str:
    """An integer with thousands separators (demo lines); anything else as text."""
    return f"{x:,}" if isinstance(x, int) else str(x)
