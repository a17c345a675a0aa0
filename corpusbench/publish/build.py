"""``release build``: run the spec's generators and write ``<out>/<name>/<version>/`` atomically.

Layout of a build folder (also the layout of the Hub repo at the release tag)::

    README.md                              dataset card (YAML header + sections)
    provenance.json                        everything needed to reproduce and re-render the release
    data/<config>/test-00000-of-00001.parquet
    eval/corpusbench.yaml                  `corpusbench eval` config pinned to the tag
    lm_eval/<family>/                      lm-eval-harness tasks: _template_yaml, one YAML per config, group
    babylm/<config>.jsonl                  BLiMP-shaped JSONL for the BabyLM pipeline

The folder is built in a temporary sibling and renamed at the end, so a failed generator leaves
nothing behind. An existing build of the same version is never replaced silently: ``force=True`` is
needed, and then its ``audit.json`` (and the card's audit section) is kept when the data is unchanged
(same release fingerprint) and otherwise removed, which the build reports.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpusbench.errors import ConfigError, CorpusbenchError, InputError
from corpusbench.io import atomic_dir, check_folder_path, ensure_dir, read_json, write_json
from corpusbench.provenance import code_version, file_sha256, fingerprint
from corpusbench.publish import tables
from corpusbench.publish.licences import most_restrictive
from corpusbench.publish.plugins import (
    CONFIG_NAME,
    GeneratorContext,
    ReleaseConfig,
    ResolvedCorpus,
    generators,
    tasks,
)
from corpusbench.publish.render import AUDIT_FILE, write_release_files
from corpusbench.publish.spec import FamilySpec, ReleaseSpec
from corpusbench.review import imported as review_imported

log = logging.getLogger(__name__)
FORMAT = "corpusbench-release/1"
SPLIT = "test"
SPEC_KEYS = ("families.", "corpora.", "llm:", "llm.", "review.")  # how errors about a spec field start


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildResult:
    path: Path
    manifest: dict[str, Any]
    notes: tuple[str, ...] = ()  # what a forced rebuild did with the previous build's audit

    @property
    def configs(self) -> list[dict[str, Any]]:
        return list(self.manifest["configs"])


def data_file(config: str) -> str:
    return f"data/{config}/{SPLIT}-00000-of-00001.parquet"


def build_release(
    spec: ReleaseSpec,
    out_root: Path,
    *,
    work_root: Path | None = None,
    on_event: Callable[[str], None] | None = None,
    force: bool = False,
) -> BuildResult:
    """Run every generator of ``spec`` and write the release folder; returns its path and manifest.

    Refuses (``InputError``, nothing written) when the version folder exists, unless ``force``.
    Errors about the spec name its file; a failed build removes the folders it created and left
    empty (a generator's non-empty work folder stays: its cache lets the next build resume).
    """
    say = on_event or (lambda msg: log.info("%s", msg))
    out = Path(out_root) / spec.name / spec.version
    if out.exists() and not force:
        raise InputError(
            f"{out} exists: release {spec.name} {spec.tag} was built before; bump version in the spec, "
            "or rebuild it with --force (its audit is kept only if the data is unchanged)"
        )
    work_root = Path(work_root) if work_root else Path(out_root) / ".work" / spec.name
    for folder in (out, work_root):
        check_folder_path(folder)
    old_audit = _previous_audit(out)
    created = [p for p in (out.parent, *out.parent.parents, work_root, *work_root.parents) if not p.exists()]
    try:
        return _build(spec, out, work_root, old_audit, say, created)
    except BaseException as e:
        _remove_if_empty(created)
        if isinstance(e, CorpusbenchError):
            raise _naming_spec(spec, e) from None
        raise


def _build(
    spec: ReleaseSpec,
    out: Path,
    work_root: Path,
    old_audit: dict[str, Any] | None,
    say: Callable[[str], None],
    created: list[Path],
) -> BuildResult:
    corpora = {key: _resolve_corpus(spec, key) for key in sorted(spec.corpora)}
    say(f"fingerprinted {len(corpora)} corpus/corpora")
    label_sets = _review_labels(spec)  # read before any generator runs: a bad file stops the build here

    produced: list[tuple[str, ReleaseConfig]] = []
    for gen in spec.families:
        fn = generators.get(gen.name)
        ctx = GeneratorContext(
            spec=spec,
            generator=gen,
            corpora=corpora,
            corpus=corpora[gen.corpus] if gen.corpus else None,
            work_dir=work_root / gen.id,
            seed=spec.seed,
            llm=spec.llm,
            base_dir=spec.base_dir,
            log=say,
        )
        created.extend(p for p in (ctx.work_dir, *ctx.work_dir.parents) if not p.exists())
        ensure_dir(ctx.work_dir)
        say(f"running generator {gen.id} ({gen.name})")
        try:
            configs = list(fn(ctx))
        except CorpusbenchError:
            raise
        except Exception as e:  # a generator bug: keep the traceback, but say which generator
            raise RuntimeError(f"generator {gen.id!r} ({gen.name}) failed: {e}") from e
        if not configs:
            raise InputError(f"generator {gen.id!r} ({gen.name}) produced no configs")
        produced.extend((gen.id, c) for c in configs)

    names = [c.name for _, c in produced]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(
            f"config name(s) {', '.join(dupes)} produced twice; give generators a config prefix"
        )

    licences = {g.id: _config_licence(spec, g) for g in spec.families}
    notes: list[str] = []
    with atomic_dir(out) as tmp:
        entries = [_write_config(tmp, gen_id, cfg, licences[gen_id]) for gen_id, cfg in produced]
        say(f"wrote {len(entries)} parquet config(s)")
        manifest = _manifest(spec, corpora, entries)
        if old_audit is not None:
            if old_audit.get("release_fingerprint") == manifest["release_fingerprint"]:
                write_json(tmp / AUDIT_FILE, old_audit)
                notes.append(f"kept {AUDIT_FILE} of the previous build (same release fingerprint)")
            else:
                notes.append(
                    f"removed {AUDIT_FILE} and the card's audit section: the data changed since the audit; "
                    f"run `corpusbench audit {out}` again"
                )
        notes += review_imported.bring(tmp, manifest, label_sets)  # before the card is rendered
        write_release_files(tmp, manifest)
    for note in notes:
        say(note)
    say(f"release {spec.name} {spec.tag} built in {out}")
    return BuildResult(path=out, manifest=manifest, notes=tuple(notes))


def _review_labels(spec: ReleaseSpec) -> list[review_imported.LabelSet]:
    """The label files of ``review.labels``, read (``review.imported``)."""
    return [
        review_imported.read_set(
            spec.resolve_path(lab.path),
            shown=_shown_path(spec.resolve_path(lab.path), lab.path),
            reviewer=lab.name,
            by=lab.by,
            criteria=lab.criteria,
            where=f"review.labels[{i}].path",
        )
        for i, lab in enumerate(spec.review.labels if spec.review else ())
    ]


def _shown_path(path: Path, written: str) -> str:
    """A label file's path as the card names it: relative to the repository when it is in it (the
    spec's ``../benchmarks/...`` is ``benchmarks/...``), else as the spec writes it (an absolute path:
    its last part)."""
    root = Path(__file__).resolve().parents[2]
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return written if not Path(written).is_absolute() else path.name


def _naming_spec(spec: ReleaseSpec, error: CorpusbenchError) -> CorpusbenchError:
    """An error about a spec field (``families.ID.params...``, ``corpora.KEY...``, ``llm...``) with
    the spec file in front, as the errors of loading the spec have it."""
    text = str(error)
    where = str(spec.source) if spec.source else None
    if type(error) not in (ConfigError, InputError) or where is None or not text.startswith(SPEC_KEYS):
        return error
    return type(error)(f"{where}: {text}")


def _remove_if_empty(folders: list[Path]) -> None:
    """After a failure: remove the folders this build created that are still empty, deepest first
    (a generator's work folder with a cache in it stays, so the next build resumes)."""
    for folder in sorted(set(folders), key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _previous_audit(out: Path) -> dict[str, Any] | None:
    path = out / AUDIT_FILE
    return read_json(path) if path.is_file() else None


def _config_licence(spec: ReleaseSpec, gen: FamilySpec) -> dict[str, Any]:
    """The licence note of a generator's configs: the most restrictive of the corpora it reads."""
    keys = spec.generator_corpora(gen)
    declared = spec.corpus_licences(keys)
    return {
        "license": most_restrictive(declared.values()) or spec.license,
        "release_license": spec.license,
        "sources": [
            {
                "corpus": k,
                "license": spec.corpora[k].license,
                "attribution": spec.corpora[k].attribution.strip(),
            }
            for k in keys
        ],
        "undeclared": [k for k in keys if k not in declared],
    }


def _write_config(root: Path, gen_id: str, cfg: ReleaseConfig, licence: dict[str, Any]) -> dict[str, Any]:
    where = f"generator {gen_id!r}, config {cfg.name!r}"
    if not CONFIG_NAME.match(cfg.name):
        raise ConfigError(f"{where}: config names must be lowercase letters, digits, '_' and '-'")
    kinds = tasks()
    if cfg.task not in kinds:
        raise ConfigError(f"{where}: unknown task {cfg.task!r} (one of {', '.join(kinds)})")
    table = tables.to_arrow(cfg.table, where)
    if table.num_rows == 0:
        raise InputError(f"{where}: the table is empty")
    tables.check_columns(table, kinds[cfg.task].columns, where)
    rel = data_file(cfg.name)
    tables.write_parquet(table, root / rel)
    files = [{"path": rel, "sha256": file_sha256(root / rel), "size": (root / rel).stat().st_size}]
    for name, obj in sorted(cfg.extra_files.items()):
        if not CONFIG_NAME.match(name.removesuffix(".json")) or not name.endswith(".json"):
            raise ConfigError(f"{where}: extra file {name!r} must be a plain '<name>.json'")
        extra = f"data/{cfg.name}/{name}"
        write_json(root / extra, obj)
        files.append(
            {"path": extra, "sha256": file_sha256(root / extra), "size": (root / extra).stat().st_size}
        )
    return {
        "name": cfg.name,
        "generator": gen_id,
        "task": cfg.task,
        "description": cfg.description.strip(),
        "rows": table.num_rows,
        "columns": [[f.name, tables.type_name(f.type)] for f in table.schema],
        "content_fingerprint": tables.content_fingerprint(table),
        "files": files,
        "funnel": [[str(k), int(v)] for k, v in cfg.funnel.items()],  # ordered stages (JSON keys get sorted)
        "bins": [[str(k), int(v)] for k, v in cfg.bins.items()],
        "parameters": dict(cfg.parameters),
        "prompt_hashes": dict(sorted(cfg.prompt_hashes.items())),
        "model": dict(cfg.model) if cfg.model else None,
        "citations": list(cfg.citations),
        "limitations": list(cfg.limitations),
        "roles": _roles(cfg, table.column_names, where),
        "licence": licence,
        "notes": list(cfg.notes),
        "card_section": cfg.card_section.strip(),
    }


def _roles(cfg: ReleaseConfig, columns: list[str], where: str) -> dict[str, str]:
    roles = dict(tasks()[cfg.task].roles)
    roles.update({k: v for k, v in (("id", "pair_id"), ("group", "UID")) if v in columns})
    roles.update(cfg.roles)
    missing = sorted(c for c in roles.values() if c not in columns)
    if missing:
        raise ConfigError(f"{where}: roles name missing column(s) {', '.join(missing)}")
    return dict(sorted(roles.items()))


def _manifest(
    spec: ReleaseSpec, corpora: Mapping[str, ResolvedCorpus], entries: list[dict[str, Any]]
) -> dict[str, Any]:
    resolved = spec.resolved()
    prompts: dict[str, str] = {}
    for e in entries:
        prompts.update(e["prompt_hashes"])
    content = {e["name"]: e["content_fingerprint"] for e in entries}
    return {
        "format": FORMAT,
        "release": {
            "name": spec.name,
            "version": spec.version,
            "tag": spec.tag,
            "repo_id": spec.repo_id,
            "pretty_name": spec.pretty_name or spec.name,
            "description": spec.description.strip(),
            "license": spec.license,
            "language": list(spec.language),
            "tags": list(spec.tags),
            "limitations": list(spec.limitations),
            "split": SPLIT,
        },
        "spec": resolved,
        "spec_fingerprint": fingerprint(resolved),
        "code_version": code_version(),
        "seed": spec.seed,
        "corpora": {
            k: {
                "path": spec.corpora[k].path,
                "stats": spec.corpora[k].stats,
                "language": c.language,
                "fingerprint": dict(c.fingerprint),
            }
            for k, c in corpora.items()
        },
        "llm": resolved.get("llm"),
        "prompt_hashes": dict(sorted(prompts.items())),
        "generators": [
            {
                "id": g.id,
                "name": g.name,
                "corpus": g.corpus,
                "params": dict(g.params),
                "configs": [e["name"] for e in entries if e["generator"] == g.id],
            }
            for g in spec.families  # provenance.json keeps its key "generators" (format unchanged)
        ],
        "configs": entries,
        "release_fingerprint": fingerprint(content),
    }


def _resolve_corpus(spec: ReleaseSpec, key: str) -> ResolvedCorpus:
    """Absolute path and fingerprint of a corpus: sha256 over (relative path, file sha256) of its files."""
    c = spec.corpora[key]
    path = spec.resolve_path(c.path)
    if not path.exists():
        raise InputError(f"corpora.{key}.path: {c.path!r} does not exist (paths are relative to the spec)")
    files = (
        [path]
        if path.is_file()
        else sorted(
            p
            for p in path.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
    )
    if not files:
        raise InputError(f"corpora.{key}.path: {c.path!r} holds no files")
    listing = [[p.name if p == path else p.relative_to(path).as_posix(), file_sha256(p)] for p in files]
    fp: dict[str, Any] = {
        "sha256": fingerprint(listing),
        "n_files": len(files),
        "n_bytes": sum(p.stat().st_size for p in files),
    }
    stats = spec.resolve_path(c.stats) if c.stats else None
    if stats is not None and not (stats / "manifest.json").is_file():
        raise InputError(
            f"corpora.{key}.stats: {c.stats!r} is not a corpusbench stats folder; "
            f"run `corpusbench stats {c.path} --out {c.stats}` first (paths relative to the spec)"
        )
    if stats is not None:
        fp["stats_corpus_fingerprint"] = (
            read_json(stats / "manifest.json").get("corpus", {}).get("fingerprint")
        )
    return ResolvedCorpus(key=key, path=path, stats=stats, language=c.language, fingerprint=fp)


def load_manifest(build_dir: Path) -> dict[str, Any]:
    """Read and sanity-check ``provenance.json`` of a build folder."""
    path = Path(build_dir) / "provenance.json"
    if not path.is_file():
        raise InputError(
            f"{build_dir}: not a release build folder (no provenance.json); "
            "run `corpusbench release build SPEC` first"
        )
    manifest = read_json(path)
    if manifest.get("format") != FORMAT:
        raise InputError(f"{path}: unknown release format {manifest.get('format')!r} (expected {FORMAT})")
    return manifest


def verify_build(build_dir: Path) -> dict[str, Any]:
    """Re-hash every data file and re-fingerprint every config against ``provenance.json``."""
    manifest = load_manifest(build_dir)
    for cfg in manifest["configs"]:
        for f in cfg["files"]:
            p = Path(build_dir) / f["path"]
            if not p.is_file() or file_sha256(p) != f["sha256"]:
                raise InputError(
                    f"{p}: missing or changed since the build (sha256 mismatch); rebuild the release"
                )
        table = tables.read_parquet(Path(build_dir) / cfg["files"][0]["path"])
        if tables.content_fingerprint(table) != cfg["content_fingerprint"]:
            raise InputError(f"{build_dir}: config {cfg['name']!r} content fingerprint mismatch; rebuild")
    return manifest
