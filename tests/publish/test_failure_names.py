"""A spec cannot make a build write outside its folders, and no output replaces a folder corpusbench did
not write (issue 42, item 1); killed builds' temporary folders are removed later, group labels are not
merged silently, and the card shows no absolute path (item 7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, PAIRS, run_cli, write_spec

from corpusbench.errors import ConfigError, InputError
from corpusbench.io import atomic_dir, remove_stale_siblings
from corpusbench.publish.build import build_release
from corpusbench.publish.spec import ReleaseSpec

FITCLAMS = {"selection": {"n_nouns": 3, "n_verbs": 3, "n_bins": 3, "n_objects": 1, "fill_empty": True}}


@pytest.mark.parametrize("key", ["ABS", "../victim", "..", "a/b", ".hidden"])
def test_a_corpus_key_that_is_a_path_is_refused_before_any_work(tmp_path: Path, key: str) -> None:
    """The issue's case: a fitclams generator on a corpus keyed by a folder's path (absolute, or
    escaping the work folder with ``..``) used to write its stats into that folder, replacing it."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "important.txt").write_text("keep me", encoding="utf-8")
    key = str(victim) if key == "ABS" else key
    corpora = {key: {"path": str(CORPUS), "language": "en", "license": "public-domain"}}
    gens = [{"name": "fitclams", "id": "fc", "corpus": key, "params": FITCLAMS}]
    spec = write_spec(tmp_path / "spec", corpora=corpora, families=gens)
    proc = run_cli("release", "build", str(spec), "--out", str(tmp_path / "spec" / "build"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"corpora key {key!r} is not a plain name" in lines[0], proc.stderr
    assert [p.name for p in victim.iterdir()] == ["important.txt"]
    assert (victim / "important.txt").read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in (tmp_path / "spec").iterdir()) == ["spec.yaml"]  # no build, no .work


def test_an_output_never_replaces_a_folder_it_did_not_write(tmp_path: Path) -> None:
    """`stats --out` an existing folder of the user's: refused after the work, nothing replaced; an
    earlier stats folder (same top-level files) is replaced as before."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "important.txt").write_text("keep me", encoding="utf-8")
    proc = run_cli("stats", str(CORPUS), "--out", str(mine))
    assert proc.returncode == 2, proc.stderr
    assert "is not an earlier output of this kind (it holds important.txt)" in proc.stderr
    assert [p.name for p in mine.iterdir()] == ["important.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["mine"]  # its temporary sibling is gone too
    stats = tmp_path / "stats"
    for _ in range(2):
        again = run_cli("stats", str(CORPUS), "--out", str(stats))
        assert again.returncode == 0, again.stderr
    assert (stats / "manifest.json").is_file()


def test_atomic_dir_refuses_a_foreign_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.md").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="not an earlier output"), atomic_dir(out) as tmp:
        (tmp / "manifest.json").write_text("{}", encoding="utf-8")
    assert [p.name for p in out.iterdir()] == ["notes.md"]
    with atomic_dir(out) as tmp:  # an output that writes notes.md too: an earlier run of it
        (tmp / "notes.md").write_text("new", encoding="utf-8")
    assert (out / "notes.md").read_text(encoding="utf-8") == "new"


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    return int(child.stdout)


def test_stale_siblings_of_killed_builds_are_removed(tmp_path: Path) -> None:
    """What a killed `release build` leaves (``.0.1.0.PID-*.tmp``, ``.0.1.0.old-PID``) is removed by the
    next build when PID no longer runs; a running build's folders and other names are kept."""
    spec = write_spec(tmp_path)
    parent = tmp_path / "build" / "test-pairs"
    dead, alive = _dead_pid(), os.getpid()
    names = {
        f".0.1.0.{dead}-abcd_123.tmp": False,
        f".0.1.0.old-{dead}": False,
        f".0.1.0.{alive}-zz9_zz9z.tmp": True,
        f".0.1.0.old-{alive}": True,
        ".0.1.0.abcd_123.tmp": True,  # no PID in its name (before PIDs were named): not ours to judge
        ".0.2.0.old-1": True,  # another version's
    }
    for name in names:
        (parent / name).mkdir(parents=True)
        (parent / name / "part.parquet").write_bytes(b"x" * 100)
    proc = run_cli("release", "build", str(spec), "--out", str(tmp_path / "build"))
    assert proc.returncode == 0, proc.stderr
    left = {p.name for p in parent.iterdir()}
    assert left == {"0.1.0"} | {n for n, kept in names.items() if kept}
    assert remove_stale_siblings(parent / "0.1.0") == []


def test_group_labels_that_become_one_config_are_refused(tmp_path: Path) -> None:
    """``a/b``, ``a b`` and ``A_B`` all slug to ``a_b``: one line naming them, not one merged config."""
    pairs = tmp_path / "pairs.jsonl"
    rows = [("a/b", "The cat sleeps.", "The cat sleep."), ("a b", "Dogs bark.", "Dogs barks.")]
    rows += [("A_B", "It is.", "It are."), ("c", "We go.", "We goes.")]
    pairs.write_text(
        "".join(json.dumps({"UID": u, "sentence_good": g, "sentence_bad": b}) + "\n" for u, g, b in rows),
        encoding="utf-8",
    )
    gens = [{"name": "minimal-pairs", "id": "mp", "params": {"path": str(pairs)}}]
    spec = write_spec(tmp_path / "spec", families=gens)
    with pytest.raises(ConfigError) as info:
        build_release(ReleaseSpec.load(spec), tmp_path / "build")
    assert str(info.value) == (
        f"{spec}: families.mp.params: groups 'A_B', 'a b', 'a/b' would all become config 'a_b' (config "
        "names are lowercase letters, digits, '_' and '-'); give them distinct names in the data"
    )
    assert not (tmp_path / "build" / "test-pairs").exists()


def test_the_card_shows_no_absolute_path(built: Path) -> None:
    """The fixture spec names its corpus and pairs by absolute paths: the card shows their file names."""
    card = (built / "README.md").read_text(encoding="utf-8")
    assert str(CORPUS.parent) not in card and str(PAIRS.parent) not in card
    assert f"| genesis | `{CORPUS.name}` |" in card and f"path: {PAIRS.name}" in card
