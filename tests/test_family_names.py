"""No module outside ``corpusbench/families/<family>/`` names a built-in family (#40).

A family's name (``ltswap``/``LT-Swap``, ``fitclams``/``FIT-CLAMS``, ``cac``/``CAC``, ``frames``) is matched
case-insensitively as a word (``_``, ``-``, ``.`` and ``/`` separate words, so ``ltswap_rule``,
``families.cac.score`` and ``cac-the-a`` count) in every ``corpusbench/**/*.py`` file outside the family's
own folder. ``frames`` is also an ordinary word (LT-Swap's sentence frames, FIT-CLAMS's verb frames), so
it is looked for outside ``corpusbench/families/`` only. What still names a family is listed in
:data:`ALLOWED` with its count: the list may only shrink (a count above its allowance fails, and so does
an allowance above the count, so that it is lowered when a mention goes).
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "corpusbench"
PATTERNS = {"ltswap": r"lt-?swap", "fitclams": r"fit-?clams", "cac": r"cac", "frames": r"frames"}

#: file (relative to corpusbench/) -> {family: mentions still allowed}: examples in docstrings and help
#: texts, the demo's and the review's own lists, and the switches still to turn into family hooks.
ALLOWED: dict[str, dict[str, int]] = {
    "demo.py": {"cac": 6, "fitclams": 12, "frames": 8, "ltswap": 2},
    "eval/cli.py": {"cac": 9, "fitclams": 4, "frames": 1, "ltswap": 2},
    "eval/metrics.py": {"fitclams": 1, "ltswap": 1},
    "eval/runner.py": {"frames": 1},
    "eval/spec.py": {"cac": 4, "fitclams": 1},
    "review/card.py": {"ltswap": 1},
    "review/cli.py": {"ltswap": 3},
    "review/imported.py": {"ltswap": 3},
    "review/items.py": {"fitclams": 9, "ltswap": 26},
}


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


def test_no_new_family_names_outside_their_folders() -> None:
    over = [
        f"{f}: {fam} named {n} time(s), allowed {ALLOWED.get(f, {}).get(fam, 0)}"
        for f, by in mentions().items()
        for fam, n in by.items()
        if n > ALLOWED.get(f, {}).get(fam, 0)
    ]
    assert not over, "a family named outside its folder (use a hook on its Family record):\n" + "\n".join(
        over
    )


def test_the_allowlist_only_shrinks() -> None:
    found = mentions()
    stale = [
        f"{f}: {fam} allowed {n}, found {found.get(f, {}).get(fam, 0)}"
        for f, by in ALLOWED.items()
        for fam, n in by.items()
        if n > found.get(f, {}).get(fam, 0)
    ]
    assert not stale, "lower these allowances in ALLOWED:\n" + "\n".join(stale)
