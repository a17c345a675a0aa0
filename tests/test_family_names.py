"""No module outside ``corpusbench/families/<family>/`` names a built-in family (#40).

A family's name (``ltswap``/``LT-Swap``, ``fitclams``/``FIT-CLAMS``, ``cac``/``CAC``, ``frames``) is matched
case-insensitively as a word (``_``, ``-``, ``.`` and ``/`` separate words, so ``ltswap_rule``,
``families.cac.score`` and ``cac-the-a`` count) in every ``corpusbench/**/*.py`` file outside the family's
own folder. ``frames`` is also an ordinary word (LT-Swap's sentence frames, FIT-CLAMS's verb frames), so
it is looked for outside ``corpusbench/families/`` only. None is allowed: what a framework module needs
to know of a family comes from the family's record (``corpusbench/family.py``). Docs, tests and the
entry points in ``pyproject.toml`` name the families freely.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "corpusbench"
PATTERNS = {"ltswap": r"lt-?swap", "fitclams": r"fit-?clams", "cac": r"cac", "frames": r"frames"}


def mentions() -> dict[str, dict[str, int]]:
    """file -> {family: mentions} outside each family's folder."""
    found: dict[str, dict[str, int]] = {}
    for family, pattern in PATTERNS.items():
        word = re.compile(rf"(?<![a-z0-9]){pattern}(?![a-z0-9])", re.IGNORECASE)
        for path in sorted(PACKAGE.rglob("*.py")):
            rel = path.relative_to(PACKAGE)
            if rel.parts[0] == "families" and len(rel.parts) > 2 and family in (rel.parts[1], "frames"):
                continue  # the family's own folder (frames: any family's folder)
            if n := len(word.findall(path.read_text(encoding="utf-8"))):
                found.setdefault(rel.as_posix(), {})[family] = n
    return found


def test_the_pattern_finds_a_family_name() -> None:
    word = re.compile(rf"(?<![a-z0-9]){PATTERNS['ltswap']}(?![a-z0-9])", re.IGNORECASE)
    assert len(word.findall("LT-Swap ltswap_rule families.ltswap.score")) == 3
    assert not word.findall("ltswapper")


def test_no_module_outside_a_familys_folder_names_it() -> None:
    found = sorted(mentions().items())
    where = [f"{f}: {fam} named {n} time(s)" for f, by in found for fam, n in sorted(by.items())]
    assert not where, "a family named outside its folder (give its record a hook):\n" + "\n".join(where)
