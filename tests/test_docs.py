"""The docs are checked: links resolve, every page is reachable, the commands they name exist (old
spellings only under an "## Old spellings" heading or on a line that says "deprecated" / "old spelling"),
and blocks fenced as ```python test / ```bash test run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from corpusbench.cli import app

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.M | re.S)
CLI = typer.main.get_command(app)


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m) for m in re.findall(r"^#+\s+(.*)$", text, re.M)}


def _links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def test_readme_is_a_front_door() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_links_resolve(page: Path) -> None:
    broken = []
    for link in _links(page):
        if re.match(r"[a-z]+:", link):  # http(s), mailto: not checked offline
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(
                f"{link} (no {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target})"
            )
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{link} (no heading #{anchor})")
    assert not broken, f"{_rel(page)}: broken links: {broken}"


def test_every_doc_page_is_linked_from_readme_or_index() -> None:
    linked = set()
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        linked |= {(page.parent / link.partition("#")[0]).resolve() for link in _links(page)}
    orphans = [_rel(p) for p in PAGES if p.name != "README.md" and p.resolve() not in linked]
    assert not orphans, f"not linked from README.md or docs/index.md: {orphans}"


def _command_mentions(page: Path) -> list[tuple[list[str], str]]:
    """(words after `corpusbench`, the next token) in code: fenced shell blocks (comments dropped) and
    inline code."""
    text = page.read_text(encoding="utf-8").split("\n## Old spellings")[0]
    text = "\n".join(ln for ln in text.splitlines() if not re.search(r"deprecat|old spelling", ln, re.I))
    code = [
        re.sub(r"(^|\s)#.*$", "", body, flags=re.M)
        for lang, _, body in FENCE.findall(text)
        if lang in ("bash", "sh", "console")
    ]
    code += re.findall(r"`(corpusbench [^`]+)`", FENCE.sub("", text))
    mentions = []
    for block in code:
        for m in re.finditer(r"(?:^|[\s;(|&])corpusbench((?: +[a-z][a-z0-9-]*)*)(?: +(\S+))?", block, re.M):
            mentions.append((m.group(1).split(), m.group(2) or ""))
    return mentions


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_commands_named_in_docs_exist(page: Path) -> None:
    bad = []
    for words, after in _command_mentions(page):
        cmd = CLI
        path = ["corpusbench"]
        for w in words:
            if not hasattr(cmd, "commands"):
                break  # an argument of a leaf command (typer vendors click: no isinstance check)
            sub = cmd.commands.get(w)
            if sub is None or sub.hidden or getattr(sub, "deprecated", False):
                why = "an old spelling" if sub else "no such command"
                bad.append(f"`{' '.join([*path, w])}` ({why})")
                break
            cmd, path = sub, [*path, w]
        else:
            if hasattr(cmd, "commands") and after and after not in ("--help", "--version", "|", "...", "\\"):
                bad.append(f"`{' '.join(path)} {after}`: a group needs a subcommand")
    assert not bad, f"{_rel(page)}: {sorted(set(bad))}"


def _blocks(lang: str) -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        for block_lang, info, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if block_lang == lang and "test" in info.split():
                out.append((_rel(page), body))
    return out


def test_bash_blocks_run() -> None:
    blocks = _blocks("bash")
    assert blocks, "no ```bash test block found"
    runner = CliRunner()
    for page, body in blocks:
        for line in body.strip().splitlines():
            args = shlex.split(line, comments=True)
            assert args[0] == "corpusbench", f"{page}: only corpusbench commands run here: {line}"
            res = runner.invoke(app, args[1:])
            assert res.exit_code == 0, f"{page}: `{line}` → {res.exit_code}\n{res.output}"


@pytest.mark.slow
def test_python_blocks_run(tmp_path: Path) -> None:
    """The Python API example, run as a user would: in a fresh folder next to data/ and models/."""
    blocks = _blocks("python")
    assert blocks, "no ```python test block found"
    for name in ("data", "models"):
        (tmp_path / name).symlink_to(ROOT / name)
    for i, (page, body) in enumerate(blocks):
        script = tmp_path / f"block{i}.py"
        script.write_text(body, encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        res = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
        )
        assert res.returncode == 0, f"{page} block {i}:\n{res.stdout}\n{res.stderr[-3000:]}"
    results = tmp_path / "out" / "api" / "eval" / "results.json"
    assert results.is_file() and "accuracy" in res.stdout


@pytest.mark.slow
def test_tutorial_runs(tmp_path: Path) -> None:
    """docs/tutorial.md as a user runs it: every ```bash tutorial block, in order, in an empty folder with
    links to data/ and models/, `corpusbench` and `python` from this venv first on PATH."""
    page = ROOT / "docs" / "tutorial.md"
    blocks = [
        b for lang, info, b in FENCE.findall(page.read_text(encoding="utf-8")) if "tutorial" in info.split()
    ]
    assert len(blocks) >= 6, "docs/tutorial.md: expected the 6 steps as ```bash tutorial blocks"
    for name in ("data", "models"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    said = []
    for i, body in enumerate(blocks):
        res = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", body],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert res.returncode == 0, f"tutorial block {i}:\n{body}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
        said.append(res.stdout + res.stderr)
    assert "LT-Swap funnel" in said[2] and "fitclams-mine-simple_agrmt" in said[3]
    assert "num_rows: 200" in said[-1]  # simple_agrmt: 10 nouns x 10 verbs x 2 numbers
    assert (tmp_path / "out" / "my" / "compare" / "compare-full.md").is_file()
