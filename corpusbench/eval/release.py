"""What a corpusbench release tells the eval runner: its configs, their task and column roles.

A release is a build folder (``provenance.json``, ``data/<config>/``, ``eval/corpusbench.yaml``), its
``eval/corpusbench.yaml`` itself, or ``ORG/NAME[@rev]`` on the Hub (whose ``eval/corpusbench.yaml``
is read at that revision). Each config's ``task`` and ``roles`` decide how it is scored
(:func:`ConfigEntry.kind`: the registered family that claims it); configs the runner does not score
are listed with the reason.

A local release is verified before it is scored (``Release.data_files``): the data files of each
config read must be the ones ``provenance.json`` lists, with its sha256, and hold the rows of the
config's content fingerprint, and the release fingerprint must be the one of those content
fingerprints; a mismatch is one ``InputError``. ``verify=False`` (``eval run --no-verify``) skips it, and
``Release.verification`` (recorded in ``results.json``) says which check was made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError
from corpusbench.family import families
from corpusbench.io import load_yaml, read_json
from corpusbench.provenance import file_sha256, fingerprint
from corpusbench.publish.plugins import split_role

EVAL_YAML = "eval/corpusbench.yaml"
PAIR_TASKS = ("minimal_pairs", "prefix_pairs")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigEntry:
    """One config of a release as the runner sees it."""

    name: str
    task: str
    roles: dict[str, str] = field(default_factory=dict)
    rows: int | None = None
    content_fingerprint: str | None = None  # as built (provenance.json / eval/corpusbench.yaml)
    files: dict[str, str] = field(default_factory=dict)  # data file (relative path) -> sha256, as built

    @property
    def role_names(self) -> set[str]:
        return {split_role(k)[0] for k in self.roles}

    def qualified(self, role: str) -> dict[str, str]:
        """qualifier -> column for a qualified role (``noun_bin:<corpus>``)."""
        out = {}
        for k, col in self.roles.items():
            name, qual = split_role(k)
            if name == role and qual is not None:
                out[qual] = col
        return out

    @property
    def kind(self) -> str:
        """The name of the family that claims this config (:meth:`corpusbench.family.Family.claims`:
        its name), else ``pairs`` for a pair task, else the task name."""
        for family in families.with_eval():
            if family.claims(self.task, self.role_names, PAIR_TASKS):
                return family.name
        return "pairs" if self.task in PAIR_TASKS else self.task

    @property
    def is_prefix_variant(self) -> bool:
        return "prefix_good" in self.roles


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """A release's configs; ``root`` is the local build folder (None on the Hub)."""

    source: str
    revision: str | None
    root: Path | None
    configs: tuple[ConfigEntry, ...]
    release_fingerprint: str | None = None
    verify: bool = True
    manifest: str | None = None  # the file the fingerprints come from (provenance.json or the eval YAML)
    _verified: set[str] = field(default_factory=set, init=False, compare=False, repr=False)

    @property
    def verification(self) -> str:
        """How the scored data was checked against the release, as recorded in ``results.json``."""
        if self.root is None:
            return f"Hub revision {self.revision or 'main'} (files as served, not re-hashed)"
        if not self.verify:
            return "not verified (--no-verify)"
        what = (
            "sha256 and content fingerprint" if self.manifest == "provenance.json" else "content fingerprint"
        )
        return f"{what} of every scored config match {self.manifest}"

    def data_files(self, config: str) -> list[Path]:
        """The parquet files of ``config`` (the ``test`` split), checked against the release first."""
        assert self.root is not None
        folder = self.root / "data" / config
        files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
        if not files:
            raise InputError(f"{self.root}: config {config!r} has no parquet files under data/{config}/")
        test = [f for f in files if f.name.startswith("test")]
        if self.verify and config not in self._verified:
            self._check(config, files)
            self._verified.add(config)
        return test or files

    def _check(self, config: str, files: list[Path]) -> None:
        assert self.root is not None
        hint = "re-download or rebuild the release (or pass --no-verify to score it as it is, recorded)"
        entry = next((c for c in self.configs if c.name == config), None)
        if entry is None or entry.content_fingerprint is None:
            raise InputError(f"{self.root}: config {config!r} has no content fingerprint to verify; {hint}")
        expected = fingerprint({c.name: c.content_fingerprint for c in self.configs})
        if self.release_fingerprint != expected:
            raise InputError(
                f"{self.root / str(self.manifest)}: the release fingerprint does not match its configs' "
                f"content fingerprints (edited?); {hint}"
            )
        if self.manifest == "provenance.json":
            listed = {p for p in entry.files if p.endswith(".parquet")}
            for f in files:
                rel = f.relative_to(self.root).as_posix()
                if rel not in listed:
                    raise InputError(f"{f}: not a file of the release (not in provenance.json); {hint}")
                if file_sha256(f) != entry.files[rel]:
                    raise InputError(
                        f"{f}: sha256 differs from provenance.json (changed since the build); {hint}"
                    )
            if missing := sorted(listed - {f.relative_to(self.root).as_posix() for f in files}):
                raise InputError(f"{self.root / missing[0]}: listed in provenance.json but missing; {hint}")
        from corpusbench.publish import tables

        try:
            table = _concat([tables.read_parquet(f) for f in files])
        except Exception as e:  # pyarrow raises several types for corrupt files
            raise InputError(
                f"{files[0].parent}: not readable parquet ({str(e).splitlines()[0]}); {hint}"
            ) from None
        if tables.content_fingerprint(table) != entry.content_fingerprint:
            raise InputError(
                f"{files[0].parent}: rows differ from the content fingerprint in {self.manifest}; {hint}"
            )


def _concat(parts: list[Any]) -> Any:
    import pyarrow as pa

    return parts[0] if len(parts) == 1 else pa.concat_tables(parts)


def _entries(configs: list[dict[str, Any]], where: str) -> tuple[ConfigEntry, ...]:
    try:
        return tuple(
            ConfigEntry(
                name=c["name"],
                task=c["task"],
                roles=dict(c.get("roles") or {}),
                rows=c.get("rows"),
                content_fingerprint=c.get("content_fingerprint"),
                files={f["path"]: f["sha256"] for f in c.get("files") or []},
            )
            for c in configs
        )
    except (KeyError, TypeError) as e:
        raise InputError(f"{where}: malformed config entry ({e})") from None


def _from_yaml(
    path: Path, root: Path | None, source: str, revision: str | None, verify: bool = True
) -> Release:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte offset {e.start})") from None
    doc = load_yaml(text, str(path)) or {}
    if not isinstance(doc, dict) or not isinstance(doc.get("configs"), list):
        raise InputError(f"{path}: not a corpusbench eval config (no `configs` list)")
    ds = doc.get("dataset") or {}
    return Release(
        source=source,
        revision=revision or ds.get("revision"),
        root=root,
        configs=_entries(doc["configs"], str(path)),
        release_fingerprint=ds.get("release_fingerprint"),
        verify=verify,
        manifest=EVAL_YAML if root is not None else None,
    )


def find_release(dataset: str, *, verify: bool = True) -> Release | None:
    """The release behind ``dataset``, or None when it is plain pairs data (a file, a BLiMP folder...).

    ``verify``: check each local config's files against the release before they are read."""
    path = Path(dataset).expanduser()
    if path.is_file() and path.name == "corpusbench.yaml" and path.parent.name == "eval":
        root = path.parent.parent
        if (root / "data").is_dir():
            return find_release(str(root), verify=verify)
        return _from_yaml(path, None, str(path), None)
    if path.is_dir():
        if (path / "provenance.json").is_file():
            m = read_json(path / "provenance.json")
            if not isinstance(m, dict):
                raise InputError(f"{path / 'provenance.json'}: not a release manifest (a JSON object)")
            rel = m.get("release", {})
            return Release(
                source=str(path),
                revision=rel.get("tag"),
                root=path,
                configs=_entries(m.get("configs", []), str(path / "provenance.json")),
                release_fingerprint=m.get("release_fingerprint"),
                verify=verify,
                manifest="provenance.json",
            )
        if (path / EVAL_YAML).is_file():
            return _from_yaml(path / EVAL_YAML, path, str(path), None, verify)
        return None
    if path.exists() or dataset.startswith((".", "/", "~")) or dataset.partition("@")[0].count("/") != 1:
        return None
    name, _, rev = dataset.partition("@")
    try:
        from huggingface_hub import hf_hub_download

        local = hf_hub_download(name, EVAL_YAML, repo_type="dataset", revision=rev or None)
    except Exception:  # not a corpusbench release (or offline): the plain Hub path handles it
        return None
    return _from_yaml(Path(local), None, name, rev or None)
