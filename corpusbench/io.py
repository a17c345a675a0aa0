"""All file writes go through here: atomic files and atomic output directories.

Nothing is ever half-written: files land under a temporary name in the same
directory and are moved into place with ``os.replace``; whole output folders are
built in a sibling temporary folder and renamed at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from corpusbench.errors import CorpusbenchError, InputError

#: Most nodes a YAML document may expand to (aliases counted at their full size): a release spec or an
#: eval config has a few hundred; a "billion laughs" bomb has billions.
YAML_MAX_NODES = 100_000


def cache_dir(name: str) -> Path:
    """corpusbench's cache folder ``name`` (not created): under ``$CORPUSBENCH_CACHE``, else
    ``$XDG_CACHE_HOME/corpusbench`` (``~/.cache/corpusbench``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("CORPUSBENCH_CACHE", str(Path(base) / "corpusbench"))) / name


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish_mode(path: str | os.PathLike[str], *, directory: bool = False) -> None:
    """mkstemp/mkdtemp create 0600/0700 entries; give the final ones the usual umask-based mode."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


def check_folder_path(path: str | os.PathLike[str]) -> Path:
    """Refuse (one ``InputError``) a folder path that a file blocks: ``path`` or one of its parents."""
    path = Path(path)
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                what = "output folder" if p == path else f"folder of {path}"
                raise InputError(f"{p}: is a file, not a folder (wanted as the {what})")
            break
    return path


def ensure_dir(path: str | os.PathLike[str]) -> Path:
    """Create folder ``path`` (and its parents); a file in the way is one ``InputError`` naming it."""
    path = check_folder_path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{path}: cannot create folder ({e.strerror or e})") from None
    return path


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path`` for writers that want a filename; rename it on success."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder, not a file")
    ensure_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        _publish_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8"
) -> Iterator[Any]:
    """Open a temporary file next to ``path``; on success fsync it and rename it into place."""
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if "b" in mode else encoding) as fh:
        yield fh
        fh.flush()
        os.fsync(fh.fileno())


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike[str], *, overwrite: bool = True) -> Iterator[Path]:
    """Build an output folder in a temporary sibling and rename it to ``path`` at the end.

    If the body raises, the temporary folder is removed and ``path`` is untouched. An existing ``path``
    is replaced only when it is empty or an earlier output of the same kind (:func:`check_replaceable`).
    Siblings that a killed run left behind (``.NAME.PID-*.tmp``, ``.NAME.old-PID`` of a PID no longer
    running) are removed first.
    """
    path = check_folder_path(path)
    ensure_dir(path.parent)
    remove_stale_siblings(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        _publish_mode(tmp, directory=True)
        if path.exists():
            if not overwrite:
                raise InputError(f"{path}: output folder already exists")
            check_replaceable(path, tmp)
            old = path.with_name(f".{path.name}.old-{os.getpid()}")
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def check_replaceable(path: Path, new: Path) -> None:
    """Refuse (``InputError``) to replace ``path`` by ``new`` unless ``path`` is empty or shares a
    top-level file name with ``new`` (its manifest, results...): a folder that corpusbench did not
    write, such as one a spec named by mistake, is never replaced."""
    old = [p for p in path.iterdir() if not p.name.startswith(".")]
    ours = {p.name for p in new.iterdir() if p.is_file()}
    if old and not any(p.name in ours and p.is_file() for p in old):
        held = ", ".join(sorted(p.name for p in old)[:3]) + (", ..." if len(old) > 3 else "")
        raise InputError(
            f"{path}: exists and is not an earlier output of this kind (it holds {held}); nothing was "
            "replaced: remove it or choose another output folder"
        )


def remove_stale_siblings(path: Path) -> list[Path]:
    """Remove the temporary siblings of ``path`` that :func:`atomic_dir` runs left when they were killed
    (their PID is no longer running); returns what was removed."""
    name = re.escape(path.name)
    stale = re.compile(rf"^\.{name}\.(?:(\d+)-[a-z0-9_]+\.tmp|old-(\d+))$")
    removed = []
    for sibling in path.parent.iterdir() if path.parent.is_dir() else ():
        m = stale.match(sibling.name)
        if m and sibling.is_dir() and not sibling.is_symlink() and not _running(int(m[1] or m[2])):
            shutil.rmtree(sibling, ignore_errors=True)
            removed.append(sibling)
    return removed


def _running(pid: int) -> bool:
    """A process with this id runs on this machine (ours included)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        return True
    return True


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as pretty, key-sorted JSON, atomically."""
    with atomic_write(path) as fh:
        json.dump(obj, fh, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        fh.write("\n")


def read_utf8(path: str | os.PathLike[str], *, hint: str, error: type[CorpusbenchError] = InputError) -> str:
    """A UTF-8 text file (a BOM is dropped); unreadable or not UTF-8: one ``error`` naming the file,
    the line of the first bad byte and ``hint`` (what the file should be)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise error(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        bad = f"byte 0x{data[e.start]:02x} at offset {e.start}"
        raise error(f"{path}:{line}: not UTF-8 text ({bad}); {hint}") from None


def read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file; a corrupt or non-UTF-8 file is one ``InputError`` naming it."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}:{e.lineno}: not valid JSON ({e.msg}); a damaged file?") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte offset {e.start}); a damaged file?") from None


def load_yaml(
    text: str, where: str, *, error: type[CorpusbenchError] = InputError, max_nodes: int = YAML_MAX_NODES
) -> Any:
    """``yaml.safe_load`` that refuses documents whose aliases expand beyond ``max_nodes`` nodes
    (or refer to themselves) before building them; every problem is one ``error`` naming ``where``."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, where, error, max_nodes)
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f"{where}:{mark.line + 1}" if mark and "\n" in text.strip() else where
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise error(f"{at}: not valid YAML ({problem})") from None
    except RecursionError:
        raise error(f"{where}: YAML nested too deeply") from None
    finally:
        loader.dispose()


def _check_expansion(root: Any, where: str, error: type[CorpusbenchError], max_nodes: int) -> None:
    """Count the nodes of a composed YAML graph as if every alias were written out (memoised, so a
    bomb costs as little as its text); refuse more than ``max_nodes`` or an alias inside itself."""
    import yaml

    size: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children: list[Any] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        if done:
            open_.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            if size[key] > max_nodes:
                raise error(
                    f"{where}: YAML aliases expand to more than {max_nodes:,} values "
                    "(a 'billion laughs' document?); write the values out"
                )
            continue
        if key in size:
            continue
        if key in open_:
            raise error(f"{where}:{node.start_mark.line + 1}: a YAML alias refers to itself")
        open_.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write rows as JSON lines, atomically; returns the row count."""
    n = 0
    with atomic_write(path) as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True, default=str))
            fh.write("\n")
            n += 1
    return n


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{lineno}: not valid JSON ({e.msg})") from None
