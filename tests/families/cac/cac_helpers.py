"""Helpers shared by the CAC tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

from corpusbench.families.cac.records import Site

HEADER = (
    "@UTF8\n@Begin\n@Languages:\teng\n@Participants:\tCHI Target_Child, MOT Mother, FAT Father\n"
    "@ID:\teng|test|CHI|2;00.00|female|||Target_Child|||\n@ID:\teng|test|MOT|||||Mother|||\n"
)


def chat(*tiers: str) -> str:
    """A small hand-written CHAT transcript: ``chat("MOT: the dog .", "CHI: a dog .")``."""
    body = "".join(f"*{t.split(':', 1)[0]}:\t{t.split(':', 1)[1].strip()}\n" for t in tiers)
    return HEADER + body + "@End\n"


def make_site(i: int, role: str, choice: str, key: str, pos: int | None = None, dyad: str = "d") -> Site:
    """A site at utterance ``i`` of file ``f`` (position = i unless given)."""
    spk = {"child": "CHI", "caretaker": "MOT", "other": "INV"}[role]
    return Site(
        id=f"f:{i}:0",
        file="f",
        dyad=dyad,
        utterance_index=i,
        position=i if pos is None else pos,
        speaker=spk,
        role=role,
        text=f"{choice} {key}",
        choice=choice,
        form=choice,
        key=key,
        head_text=key,
        char_start=0,
        char_end=len(choice),
        token=0,
        head_token=1,
    )
