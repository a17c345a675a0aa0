"""Dialogue readers: CHAT transcripts (via ``pylangacq``) and dialogue tables (jsonl/csv/parquet).

Both yield :class:`~corpusbench.corpus.records.Utterance` records in transcript order, one per
main-tier utterance that still has words after cleaning. ``index`` counts *every* main-tier
utterance of the file (0-based), so it is stable whatever the cleaning drops.

CHAT parsing is pylangacq's (``CHAT.from_strs``, rustling backend). pylangacq is lenient (a line
without a tab is glued to the previous utterance, a missing ``@Begin`` passes), so a line-level
structure check runs first and turns malformed input into one :class:`InputError` naming file
and line. Cleaning starts from pylangacq's word list, which already applies retracings
(``[/]``, ``[//]``), replacements (``de [: the]`` -> ``the``), omitted-sound completion
(``wan(t)`` -> ``want``) and drops fragments, fillers, events, ``xxx``/``yyy``/``www`` and
``0word``; :func:`clean_words` then fixes what it leaves and what the reference cleaner misses:
prolongation colons (``mi:lk``), underscore and ``+`` compounds, ``‡``/``„`` separators, CHAT
terminators (``+...``, ``+//.``), empty clitic slots and punctuation-only utterances.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from corpusbench.corpus.lines import MAX_LINE_BYTES
from corpusbench.corpus.records import Utterance
from corpusbench.errors import InputError
from corpusbench.io import read_utf8

CHILD, CARETAKER, OTHER = "child", "caretaker", "other"

_HEADER = re.compile(r"^@[A-Za-z][^:\t]*(?::\t.*|:?\s*)$")
_MAIN = re.compile(r"^\*([A-Za-z0-9_]{2,8}):\t(.*)$")
_DEP = re.compile(r"^%[A-Za-z][A-Za-z0-9]*:\t")
_CODE = re.compile(r"^\S{2,}")
_MARKS = dict.fromkeys(map(ord, "ˈˌ↑↓≠↫^⇗↗→↘⇘∞≋∙⌈⌉⌊⌋“”"), None)
_TERMINATOR = re.compile(r"^\+[.\"/!?,<^+]*$|^[.?!]+$")
_SEPARATORS = {"‡", "„", ",", ";", ":", "..", ".‡", "‡.", ".„"}
_WORD_JUNK = re.compile(r"@[a-z:$]*$")  # special-form markers pylangacq may leave (word@l, word@wp)


@dataclass(frozen=True, slots=True, kw_only=True)
class SpeakerRoles:
    """Who is who in a dialogue: the target ("child") speakers and their interlocutors ("caretaker")."""

    child: tuple[str, ...] = ("CHI",)
    caretakers: tuple[str, ...] = ("MOT",)

    def __post_init__(self) -> None:
        both = set(self.child) & set(self.caretakers)
        if both:
            raise InputError(f"speaker(s) {', '.join(sorted(both))} given as both child and caretaker")
        if not self.child or not self.caretakers:
            raise InputError("need at least one child and one caretaker speaker code")

    def role(self, speaker: str) -> str:
        if speaker in self.child:
            return CHILD
        return CARETAKER if speaker in self.caretakers else OTHER


# --- cleaning ---------------------------------------------------------------------------------


def _clean_word(word: str) -> str:
    word = unicodedata.normalize("NFC", word).translate(_MARKS)
    word = _WORD_JUNK.sub("", word)
    if word.startswith(("&", "0")) or word in {"xxx", "yyy", "www"}:
        return ""
    word = word.replace("(", "").replace(")", "")  # any omitted-sound marks pylangacq left
    word = word.replace(":", "")  # prolongation: mi:lk -> milk
    return word.replace("_", " ").replace("+", " ").strip()


def clean_words(words: Iterable[str]) -> str:
    """Turn pylangacq's word list for one utterance into plain text ("" if no words remain).

    Separators (``‡``, ``„``) become commas, CHAT terminators become ``.``/``?``/``!``/``...``,
    punctuation is attached to the preceding word.
    """
    out: list[str] = []
    has_word = False
    for raw in words:
        if not raw:
            continue  # empty clitic slot (what's -> what's + "")
        if raw in _SEPARATORS:
            if out and out[-1] not in {",", "."}:
                out.append(",")
            continue
        if _TERMINATOR.match(raw):
            term = "..." if raw.endswith("...") else "?" if "?" in raw else "!" if raw.endswith("!") else "."
            while out and out[-1] == ",":
                out.pop()
            if out:
                out.append(term)
            continue
        word = _clean_word(raw)
        if word:
            out.append(word)
            has_word = True
    if not has_word:
        return ""
    while out and out[-1] == ",":
        out.pop()
    text = " ".join(out)
    return re.sub(r" (?=[,.?!])", "", text).strip(" ,")


# --- structure check --------------------------------------------------------------------------


_LONG = "longer than {:,} bytes; not a transcript? (--max-line-bytes raises the limit)"


def _fail(name: str, lineno: int, msg: str) -> InputError:
    return InputError(f"{name}:{lineno}: malformed CHAT: {msg}")


def _too_long(text: str, limit: int) -> bool:
    return len(text) > limit // 4 and len(text.encode("utf-8")) > limit


def check_chat_structure(text: str, name: str, max_line_bytes: int = MAX_LINE_BYTES) -> None:
    """Raise one :class:`InputError` ("file:line: ...") for the first structural CHAT error, or for a
    line or utterance (a main tier with its continuation lines) longer than ``max_line_bytes``."""
    if "\x00" in text:
        raise InputError(f"{name}: binary data (NUL bytes), not a CHAT transcript")
    lines = text.splitlines()
    if not any(ln.strip() for ln in lines):
        raise InputError(f"{name}: empty file, not a CHAT transcript")
    participants: set[str] | None = None
    begin = end = False
    prev = ""  # kind of the previous line: "header", "main", "dep"
    pending: tuple[int, str] | None = None  # main tier (with continuations) awaiting the bracket check
    for i, line in enumerate(lines, 1):
        if _too_long(line, max_line_bytes):
            raise InputError(f"{name}:{i}: line {_LONG.format(max_line_bytes)}")
        if not line.strip():
            continue
        if line.startswith("\t"):
            if not prev:
                raise _fail(name, i, "continuation line without a tier")
            if pending and prev == "main":
                pending = (pending[0], pending[1] + " " + line.strip())
                if _too_long(pending[1], max_line_bytes):
                    raise InputError(f"{name}:{pending[0]}: utterance {_LONG.format(max_line_bytes)}")
            continue
        if pending:
            _check_brackets(name, *pending)
            pending = None
        if end:
            raise _fail(name, i, "content after @End")
        if line.startswith("@"):
            if not _HEADER.match(line):
                raise _fail(name, i, f"header line needs '@Name:<TAB>value': {line[:60]!r}")
            head = line.split(":", 1)[0].split("\t", 1)[0].strip()
            begin |= head == "@Begin"
            end |= head == "@End"
            if head == "@Participants" and "\t" in line:
                entries = [e.strip() for e in line.split("\t", 1)[1].split(",") if e.strip()]
                participants = {m.group(0) for e in entries if (m := _CODE.match(e))}
            prev = "header"
            continue
        if not begin:
            raise _fail(name, i, "missing @Begin before the first tier")
        if line.startswith("*"):
            m = _MAIN.match(line)
            if not m:
                raise _fail(name, i, f"main tier needs '*SPK:<TAB>text': {line[:60]!r}")
            if participants is not None and m.group(1) not in participants:
                raise _fail(name, i, f"speaker {m.group(1)} is not declared in @Participants")
            pending, prev = (i, m.group(2)), "main"
        elif line.startswith("%"):
            if not _DEP.match(line):
                raise _fail(name, i, f"dependent tier needs '%tier:<TAB>text': {line[:60]!r}")
            if prev not in {"main", "dep"}:
                raise _fail(name, i, "dependent tier before any main tier")
            prev = "dep"
        else:
            raise _fail(
                name,
                i,
                f"broken tier (expected '*SPK:', '%tier:', '@Header' or a TAB continuation): {line[:60]!r}",
            )
    if pending:
        _check_brackets(name, *pending)
    if not begin:
        raise _fail(name, 1, "missing @Begin")
    if not end:
        raise _fail(name, len(lines), "missing @End (truncated transcript?)")


def _check_brackets(name: str, lineno: int, tier: str) -> None:
    tier = re.sub(r"\x15[^\x15]*\x15", "", tier)  # media bullets
    for open_, close in (("[", "]"), ("<", ">")):
        if open_ == "<":  # scoped codes ([<], [>]) and linkers (+<) hold angle brackets too
            tier = re.sub(r"\[[^\]]*\]|(?<!\S)\+\S*", " ", tier)
        depth = 0
        for ch in tier:
            depth += (ch == open_) - (ch == close)
            if depth < 0 or depth > 1:
                break
        if depth != 0:
            raise _fail(name, lineno, f"unbalanced '{open_}{close}' in main tier: {tier[:60]!r}")


# --- CHAT reading -----------------------------------------------------------------------------


def read_chat_text(
    text: str,
    name: str,
    *,
    roles: SpeakerRoles | None = None,
    keep_empty: bool = False,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[Utterance]:
    """Parse one CHAT transcript given as a string; ``name`` labels the file in ids and errors."""
    import pylangacq

    check_chat_structure(text, name, max_line_bytes)
    try:
        reader = pylangacq.CHAT.from_strs(
            [text], ids=[name], parallel=False, strict=False, mor_tier=None, gra_tier=None
        )
        utterances = reader.utterances()
    except (ValueError, RuntimeError) as e:  # rustling reports parse errors as ValueError
        raise InputError(f"{name}: CHAT parse error: {str(e).splitlines()[0]}") from None
    index = -1
    for u in utterances:
        if u.participant is None:
            continue  # changeable header (@Comment, @New Episode, ...)
        index += 1
        words = [t.word for t in (u.tokens or [])]
        clean = clean_words(words)
        if not clean and not keep_empty:
            continue
        raw = (u.tiers or {}).get(u.participant, u.annotated or "")
        yield Utterance(
            id=f"{name}:{index}",
            file=name,
            index=index,
            speaker=u.participant,
            text=clean,
            raw=raw,
            role=roles.role(u.participant) if roles else None,
        )


def _decode(path: Path) -> str:
    return read_utf8(path, hint="CHAT files are UTF-8")


def chat_inputs(paths: Sequence[str | Path]) -> list[tuple[str, Path]]:
    """Expand files and folders (``*.cha``, recursive, sorted) into ``(label, path)`` pairs.

    Labels are machine-independent: a file's name, or its path relative to a given folder's parent.
    """
    out: list[tuple[str, Path]] = []
    for p in map(Path, paths):
        if p.is_dir():
            files = sorted(p.rglob("*.cha"))
            if not files:
                raise InputError(f"{p}: folder has no .cha files")
            out += [(f.relative_to(p.parent).as_posix(), f) for f in files]
        elif p.is_file():
            out.append((p.name, p))
        else:
            raise InputError(f"{p}: no such file or folder")
    seen: dict[str, Path] = {}
    for label, p in out:
        if label in seen:
            raise InputError(f"{p}: same transcript name as {seen[label]} ({label}); rename one")
        seen[label] = p
    return out


def read_chat_file(
    path: str | Path,
    *,
    name: str | None = None,
    roles: SpeakerRoles | None = None,
    keep_empty: bool = False,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[Utterance]:
    """Read one CHAT file; ``name`` (default: the file name) labels it in ids and errors."""
    path = Path(path)
    yield from read_chat_text(
        _decode(path), name or path.name, roles=roles, keep_empty=keep_empty, max_line_bytes=max_line_bytes
    )


def read_chat(
    paths: Sequence[str | Path],
    *,
    roles: SpeakerRoles | None = None,
    keep_empty: bool = False,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[Utterance]:
    """Read CHAT files/folders in a fixed (sorted) order."""
    for label, path in chat_inputs(paths):
        yield from read_chat_text(
            _decode(path), label, roles=roles, keep_empty=keep_empty, max_line_bytes=max_line_bytes
        )


# --- dialogue tables --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TableColumns:
    """Column names of a dialogue table; ``order`` (optional) sorts utterances within a session."""

    session: str = "session"
    speaker: str = "speaker"
    text: str = "utterance"
    order: str | None = None


def _load_table(path: Path):  # -> pandas.DataFrame
    import pandas as pd

    suffix = "".join(path.suffixes[-2:]) if path.suffix in {".gz", ".zst"} else path.suffix
    try:
        if suffix.startswith(".jsonl") or suffix == ".json":
            return pd.read_json(path, lines=suffix.startswith(".jsonl"), dtype=False)
        if suffix.startswith(".csv"):
            return pd.read_csv(path, dtype=str, keep_default_na=False)
        if suffix.startswith(".tsv"):
            return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
        if suffix == ".parquet":
            return pd.read_parquet(path)
    except (ValueError, OSError) as e:
        raise InputError(f"{path}: cannot read dialogue table ({str(e).splitlines()[0]})") from None
    raise InputError(f"{path}: unknown dialogue table format {suffix!r} (use .jsonl, .csv, .tsv or .parquet)")


def read_dialogue_table(
    path: str | Path,
    *,
    columns: TableColumns = TableColumns(),
    roles: SpeakerRoles | None = None,
    clean: Callable[[str], str] | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[Utterance]:
    """Read a dialogue table: one row per utterance with session, speaker and text columns.

    Sessions are emitted sorted by name; rows keep file order within a session unless
    ``columns.order`` names a sort column. The ``file`` of each utterance is the session value.
    An utterance longer than ``max_line_bytes`` is one ``InputError`` naming its row.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    df = _load_table(path)
    need = [c for c in (columns.session, columns.speaker, columns.text, columns.order) if c]
    missing = [c for c in need if c not in df.columns]
    if missing:
        have = ", ".join(map(str, df.columns))
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; the table has {have}")
    if df.empty:
        raise InputError(f"{path}: dialogue table has no rows")
    df = df.reset_index(drop=True).assign(_row=lambda d: range(len(d)))
    for col in (columns.session, columns.speaker):
        bad = df[df[col].isna() | (df[col].astype(str).str.strip() == "")]
        if len(bad):
            raise InputError(f"{path}: row {int(bad['_row'].iloc[0]) + 1}: empty {col!r}")
    clean = clean or _plain_text
    for session, group in sorted(df.groupby(df[columns.session].astype(str)), key=lambda kv: kv[0]):
        if columns.order:
            group = group.sort_values([columns.order, "_row"], kind="stable")
        for index, row in enumerate(group.itertuples(index=False)):
            rec = row._asdict()
            raw = "" if rec[columns.text] is None else str(rec[columns.text])
            if _too_long(raw, max_line_bytes):
                where = f"{path}: session {session!r}, utterance {index + 1}"
                raise InputError(f"{where}: {_LONG.format(max_line_bytes)}")
            text = clean(raw)
            if not text:
                continue
            speaker = str(rec[columns.speaker]).strip()
            yield Utterance(
                id=f"{session}:{index}",
                file=session,
                index=index,
                speaker=speaker,
                text=text,
                raw=raw,
                role=roles.role(speaker) if roles else None,
            )


def _plain_text(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    return re.sub(r"\s+", " ", text).strip()


def speakers_by_file(utterances: Iterable[Utterance]) -> Mapping[str, set[str]]:
    """Speaker codes seen per file (for "no child tier" messages)."""
    seen: dict[str, set[str]] = {}
    for u in utterances:
        seen.setdefault(u.file, set()).add(u.speaker)
    return seen
