"""The Makefile's setup steps run side by side (``SETUP_JOBS``): the steps that must not overlap are ordered.

Read from make's own database (``make -pn``), so the check follows the Makefile as make reads it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def make_rules(goal: str) -> dict[str, tuple[list[str], str]]:
    """target -> (prerequisites, recipe text) for every file target make knows after reading ``goal``."""
    if shutil.which("make") is None:
        pytest.fail("GNU make is needed: `make test` runs the suite")
    out = subprocess.run(
        ["make", "--no-print-directory", "-pn", goal], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout
    rules: dict[str, tuple[list[str], str]] = {}
    current: str | None = None
    for line in out.splitlines():
        if line.startswith("\t") and current is not None:
            prereqs, recipe = rules[current]
            rules[current] = (prereqs, recipe + line + "\n")
            continue
        m = re.match(r"^([^\s#:=][^:=]*?):(?!=)\s*(.*)$", line)
        if m and not line.startswith(("#", ".PHONY")):
            current = m.group(1).strip()
            prereqs = m.group(2).split("|")[0].split()
            old = rules.get(current, ([], ""))
            rules[current] = (old[0] + prereqs, old[1])
        elif not line.startswith("#"):
            current = None
    return rules


def depends_on(rules: dict[str, tuple[list[str], str]], target: str, other: str) -> bool:
    seen, todo = set(), [target]
    while todo:
        t = todo.pop()
        for p in rules.get(t, ([], ""))[0]:
            if p == other:
                return True
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return False


@pytest.mark.parametrize("goal", ["needs-setup", "needs-demo", "needs-test"])
def test_steps_that_share_a_lock_are_ordered(goal: str) -> None:
    """apt-get (dpkg's lock) and pip installs into the main venv never run side by side."""
    rules = make_rules(goal)
    assert goal in rules and rules[goal][0], f"{goal}: not in make's database"
    apt = sorted(t for t, (_, recipe) in rules.items() if "apt-get install" in recipe)
    # recipes as written: $(PIP) is the main venv's pip
    venv_pip = sorted(t for t, (_, recipe) in rules.items() if "$(PIP) install" in recipe)
    assert apt, "no apt-get step found: the parser no longer reads the Makefile"
    assert len(venv_pip) >= 2, venv_pip
    for group in (apt, venv_pip):
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                assert depends_on(rules, a, b) or depends_on(rules, b, a), f"{a} and {b} may run at once"


def test_setup_runs_side_by_side() -> None:
    """`make demo` and `make test` build their setup in one parallel sub-make."""
    out = subprocess.run(
        ["make", "--no-print-directory", "-n", "demo", "test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    prepares = [line for line in out.splitlines() if "--output-sync" in line]
    assert len(prepares) == 2 and all(re.search(r"-j[2-9]", line) for line in prepares), prepares
    assert "needs-demo" in prepares[0] and "needs-test" in prepares[1]
