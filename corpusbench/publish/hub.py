"""``release push`` and ``release check``: one commit, verified, then an immutable ``v<version>`` tag.

Push order: check the build locally → create the dataset repo if needed → refuse if the tag exists
→ one ``create_commit`` with the whole folder (and deletions of files a previous release had) → load
every config at the new commit with ``datasets.load_dataset`` and compare content fingerprints → tag
that commit. A push that fails before the tag leaves no tag. The token comes from the environment or
the HF login through ``huggingface_hub``; it is never printed, logged or written, and is scrubbed from
error messages.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpusbench.errors import (
    BackendError,
    ConfigError,
    CorpusbenchError,
    ReleaseExistsError,
    redact,
    register_secret,
)
from corpusbench.publish import tables
from corpusbench.publish.build import load_manifest, verify_build
from corpusbench.publish.render import write_release_files
from corpusbench.publish.spec import REPO_ID

log = logging.getLogger(__name__)
REPO_TYPE = "dataset"
KEEP_REMOTE = {".gitattributes"}


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigCheck:
    name: str
    expected_rows: int
    rows: int
    expected_fingerprint: str
    fingerprint: str

    @property
    def ok(self) -> bool:
        return self.rows == self.expected_rows and self.fingerprint == self.expected_fingerprint


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    repo_id: str
    revision: str
    commit: str | None
    configs: tuple[ConfigCheck, ...]
    missing_files: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.missing_files and all(c.ok for c in self.configs)


@dataclass(frozen=True, slots=True, kw_only=True)
class PushResult:
    repo_id: str
    tag: str
    files: tuple[str, ...]
    n_bytes: int
    dry_run: bool
    deleted: tuple[str, ...] = ()
    commit: str | None = None
    check: CheckResult | None = None
    endpoint: str = field(default="")


def release_files(folder: Path) -> list[str]:
    """Every file of a build folder as a repo path (sorted; dotfiles skipped)."""
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def push_release(
    build_dir: Path,
    *,
    repo_id: str | None = None,
    private: bool = False,
    dry_run: bool = False,
    token: str | None = None,
    on_event: Callable[[str], None] | None = None,
) -> PushResult:
    say = on_event or (lambda msg: log.info("%s", msg))
    build_dir = Path(build_dir)
    manifest = verify_build(build_dir)
    rel = manifest["release"]
    repo_id = repo_id or rel["repo_id"]
    if not REPO_ID.match(repo_id):
        raise ConfigError(f"--repo-id {repo_id!r} must be 'namespace/name'")
    tag = rel["tag"]
    with _staged(build_dir, manifest, repo_id) as folder:
        files = release_files(folder)
        n_bytes = sum((folder / f).stat().st_size for f in files)
        if dry_run:
            say(f"dry run: would push {len(files)} files ({n_bytes} bytes) to {repo_id} and tag {tag}")
            return PushResult(repo_id=repo_id, tag=tag, files=tuple(files), n_bytes=n_bytes, dry_run=True)
        api = _api(token)
        with _hub_errors(repo_id, api.endpoint, token):
            api.create_repo(repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
            refs = api.list_repo_refs(repo_id, repo_type=REPO_TYPE)
            if any(t.name == tag for t in refs.tags):
                raise ReleaseExistsError(
                    f"{repo_id}: tag {tag} already exists; released versions are immutable, "
                    "so bump `version` in the spec and rebuild"
                )
            head = next((b.target_commit for b in refs.branches if b.name == "main"), None)
            remote = (
                set(api.list_repo_files(repo_id, repo_type=REPO_TYPE, revision="main")) if head else set()
            )
            deleted = sorted(remote - set(files) - KEEP_REMOTE)
            ops = _operations(folder, files, deleted)
            say(
                f"committing {len(files)} files ({n_bytes} bytes) to {repo_id}"
                + (f", deleting {len(deleted)} stale file(s)" if deleted else "")
            )
            info = api.create_commit(
                repo_id,
                operations=ops,
                repo_type=REPO_TYPE,
                parent_commit=head,
                commit_message=f"Release {rel['name']} {tag}",
                commit_description=f"release fingerprint {manifest['release_fingerprint']}",
            )
            commit = info.oid
            say(f"verifying commit {commit[:12]} by loading every config back")
            check = check_remote(repo_id, commit, manifest, files, token=token, api=api)
            if not check.ok:
                bad = [c.name for c in check.configs if not c.ok] + list(check.missing_files)
                raise BackendError(
                    f"{repo_id}@{commit[:12]}: pushed data does not round-trip ({', '.join(bad)}); "
                    f"no tag was created"
                )
            _create_tag(api, repo_id, tag, commit, manifest)
            say(f"tagged {commit[:12]} as {tag}")
        return PushResult(
            repo_id=repo_id,
            tag=tag,
            files=tuple(files),
            n_bytes=n_bytes,
            dry_run=False,
            deleted=tuple(deleted),
            commit=commit,
            check=check,
            endpoint=api.endpoint,
        )


def check_release(
    repo_id: str, revision: str, *, build_dir: Path | None = None, token: str | None = None
) -> CheckResult:
    """Load every config of a published release at ``revision`` and compare it with its provenance.

    The expected fingerprints come from ``build_dir`` when given, else from the repo's own
    ``provenance.json`` at that revision.
    """
    api = _api(token)
    with _hub_errors(repo_id, api.endpoint, token):
        if build_dir is not None:
            manifest = load_manifest(Path(build_dir))
            files: list[str] | None = release_files(Path(build_dir))
            if manifest["release"]["repo_id"] != repo_id:  # a re-targeted push re-renders repo-specific files
                files = [f for f in files if f.startswith("data/")]
        else:
            from huggingface_hub import hf_hub_download

            path = hf_hub_download(
                repo_id, "provenance.json", repo_type=REPO_TYPE, revision=revision, token=token
            )
            manifest = load_manifest(Path(path).parent)
            files = None
        return check_remote(repo_id, revision, manifest, files, token=token, api=api)


def check_remote(
    repo_id: str,
    revision: str,
    manifest: dict[str, Any],
    files: list[str] | None,
    *,
    token: str | None,
    api: Any,
) -> CheckResult:
    import datasets

    commit = api.dataset_info(repo_id, revision=revision).sha
    missing: tuple[str, ...] = ()
    if files is not None:
        remote = set(api.list_repo_files(repo_id, repo_type=REPO_TYPE, revision=commit))
        missing = tuple(sorted(set(files) - remote))
    checks = []
    split = manifest["release"]["split"]
    with tempfile.TemporaryDirectory(prefix="corpusbench-check-") as cache:
        for cfg in manifest["configs"]:
            ds = datasets.load_dataset(
                repo_id,
                cfg["name"],
                revision=commit,
                split=split,
                token=token,
                cache_dir=cache,
                download_mode="force_redownload",
            )
            table = ds.data.table
            checks.append(
                ConfigCheck(
                    name=cfg["name"],
                    expected_rows=cfg["rows"],
                    rows=table.num_rows,
                    expected_fingerprint=cfg["content_fingerprint"],
                    fingerprint=tables.content_fingerprint(table),
                )
            )
    return CheckResult(
        repo_id=repo_id, revision=revision, commit=commit, configs=tuple(checks), missing_files=missing
    )


def _create_tag(api: Any, repo_id: str, tag: str, commit: str, manifest: dict[str, Any]) -> None:
    from huggingface_hub.errors import HfHubHTTPError

    try:
        api.create_tag(
            repo_id,
            tag=tag,
            revision=commit,
            repo_type=REPO_TYPE,
            exist_ok=False,
            tag_message=f"{manifest['release']['name']} {tag} ({manifest['release_fingerprint'][:16]})",
        )
    except HfHubHTTPError as e:
        if e.response is not None and e.response.status_code == 409:
            raise ReleaseExistsError(
                f"{repo_id}: tag {tag} was created by someone else during this push; "
                f"commit {commit[:12]} is on main but untagged"
            ) from None
        raise
    refs = api.list_repo_refs(repo_id, repo_type=REPO_TYPE)
    target = next((t.target_commit for t in refs.tags if t.name == tag), None)
    if target != commit:
        raise BackendError(f"{repo_id}: tag {tag} points to {target}, not to the pushed commit {commit}")


def _operations(folder: Path, files: list[str], deleted: list[str]) -> list[Any]:
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    ops: list[Any] = [CommitOperationAdd(path_in_repo=f, path_or_fileobj=str(folder / f)) for f in files]
    ops += [CommitOperationDelete(path_in_repo=f) for f in deleted]
    return ops


@contextlib.contextmanager
def _staged(build_dir: Path, manifest: dict[str, Any], repo_id: str) -> Iterator[Path]:
    """The folder to upload: the build itself, or a copy re-rendered for another repo id."""
    if repo_id == manifest["release"]["repo_id"]:
        yield build_dir
        return
    with tempfile.TemporaryDirectory(prefix="corpusbench-push-") as tmp:
        staged = Path(tmp) / "release"
        shutil.copytree(build_dir, staged, ignore=shutil.ignore_patterns(".*"))
        retargeted = {**manifest, "release": {**manifest["release"], "repo_id": repo_id}}
        write_release_files(staged, retargeted)
        yield staged


def _api(token: str | None) -> Any:
    try:
        from huggingface_hub import HfApi
    except ImportError as e:  # pragma: no cover - a core dependency
        raise ConfigError("huggingface_hub is not installed: pip install 'corpusbench'") from e
    return HfApi(token=token)


@contextlib.contextmanager
def _hub_errors(repo_id: str, endpoint: str, token: str | None) -> Iterator[None]:
    """Turn client errors into one-line ``BackendError``s that never contain the token."""
    from huggingface_hub import get_token
    from huggingface_hub.errors import (
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    register_secret(token or get_token())

    def clean(msg: object) -> str:
        return redact(str(msg).splitlines()[0] if str(msg) else type(msg).__name__)

    try:
        yield
    except CorpusbenchError:
        raise
    except (KeyError, TypeError, ValueError) as e:
        if not _raised_in_client(e):
            raise
        raise BackendError(
            f"{repo_id}: the Hub at {endpoint} sent a malformed answer ({type(e).__name__}: {clean(e)}); "
            "is HF_ENDPOINT a Hugging Face Hub?"
        ) from None
    except OfflineModeIsEnabled:
        raise BackendError(f"HF_HUB_OFFLINE is set; unset it to reach the Hub at {endpoint}") from None
    except RepositoryNotFoundError:
        raise BackendError(
            f"{repo_id}: dataset repo not found at {endpoint} (or the token has no access)"
        ) from None
    except RevisionNotFoundError as e:
        raise BackendError(f"{repo_id}: revision not found ({clean(e)})") from None
    except HfHubHTTPError as e:
        status = e.response.status_code if e.response is not None else "?"
        raise BackendError(f"{repo_id}: Hub request failed (HTTP {status}): {clean(e)}") from None
    except (OSError, ConnectionError) as e:
        raise BackendError(f"cannot reach the Hub at {endpoint}: {clean(e)}") from None
    except Exception as e:
        kinds = {c.__name__ for c in type(e).__mro__}
        if kinds & {"TransportError", "ConnectError", "TimeoutException", "NetworkError"}:
            raise BackendError(f"cannot reach the Hub at {endpoint}: {clean(e)}") from None
        if type(e).__module__.split(".")[0] in (
            "httpx",
            "httpx2",
            "httpcore",
            "httpcore2",
            "datasets",
            "fsspec",
        ):
            raise BackendError(f"{repo_id} at {endpoint}: {type(e).__name__}: {clean(e)}") from None
        raise


#: Packages whose stack entries in a traceback mean the Hub client choked on what the server sent.
CLIENT_PACKAGES = ("huggingface_hub", "requests", "httpx", "json")


def _raised_in_client(error: BaseException) -> bool:
    """The error was raised inside the Hub client (a reply it could not read), not in corpusbench."""
    tb = error.__traceback__
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        if module.split(".")[0] in CLIENT_PACKAGES:
            return True
        tb = tb.tb_next
    return False


__all__ = ["CheckResult", "ConfigCheck", "PushResult", "check_release", "push_release"]
