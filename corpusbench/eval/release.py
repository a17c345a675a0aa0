"""What a corpusbench release tells the eval runner: its configs, their task and column roles.

A release is a build folder (``provenance.json``, ``data/<config>/``, ``eval/corpusbench.yaml``), its
``eval/corpusbench.yaml`` itself, or ``ORG/NAME[@rev]`` on the Hub (whose ``eval/corpusbench.yaml``
is read at that revision). Each config's ``task`` and ``roles`` decide how it is scored
(:func:`ConfigEntry.kind`); configs the runner does not score are listed with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from corpusbench.errors import InputError
from corpusbench.io import read_json
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
        """``ltswap`` | ``fitclams`` | ``pairs`` | ``cac`` | the task name when it is not scored."""
        if self.task in PAIR_TASKS:
            if "ltswap_rule" in self.role_names:
                return "ltswap"
            if "paradigm" in self.role_names:
                return "fitclams"
            return "pairs"
        return self.task

    @property
    def ltswap_subtask(self) -> str | None:
        subs = list(self.qualified("ltswap_rule"))
        return subs[0] if subs else None

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

    def data_files(self, config: str) -> list[Path]:
        assert self.root is not None
        folder = self.root / "data" / config
        files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
        if not files:
            raise InputError(f"{self.root}: config {config!r} has no parquet files under data/{config}/")
        test = [f for f in files if f.name.startswith("test")]
        return test or files


def _entries(configs: list[dict[str, Any]], where: str) -> tuple[ConfigEntry, ...]:
    try:
        return tuple(
            ConfigEntry(name=c["name"], task=c["task"], roles=dict(c.get("roles") or {}), rows=c.get("rows"))
            for c in configs
        )
    except (KeyError, TypeError) as e:
        raise InputError(f"{where}: malformed config entry ({e})") from None


def _from_yaml(path: Path, root: Path | None, source: str, revision: str | None) -> Release:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise InputError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("configs"), list):
        raise InputError(f"{path}: not a corpusbench eval config (no `configs` list)")
    ds = doc.get("dataset") or {}
    return Release(
        source=source,
        revision=revision or ds.get("revision"),
        root=root,
        configs=_entries(doc["configs"], str(path)),
        release_fingerprint=ds.get("release_fingerprint"),
    )


def find_release(dataset: str) -> Release | None:
    """The release behind ``dataset``, or None when it is plain pairs data (a file, a BLiMP folder...)."""
    path = Path(dataset).expanduser()
    if path.is_file() and path.name == "corpusbench.yaml" and path.parent.name == "eval":
        root = path.parent.parent
        if (root / "data").is_dir():
            return find_release(str(root))
        return _from_yaml(path, None, str(path), None)
    if path.is_dir():
        if (path / "provenance.json").is_file():
            m = read_json(path / "provenance.json")
            rel = m.get("release", {})
            return Release(
                source=str(path),
                revision=rel.get("tag"),
                root=path,
                configs=_entries(m.get("configs", []), str(path / "provenance.json")),
                release_fingerprint=m.get("release_fingerprint"),
            )
        if (path / EVAL_YAML).is_file():
            return _from_yaml(path / EVAL_YAML, path, str(path), None)
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
