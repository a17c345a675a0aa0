"""CHAT reader (pylangacq) and dialogue tables: real eve.cha plus hand-written malformed input."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from corpusbench.corpus.chat import (
    SpeakerRoles,
    TableColumns,
    chat_inputs,
    clean_words,
    read_chat,
    read_chat_file,
    read_chat_text,
    read_dialogue_table,
)
from corpusbench.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
HEAD = "@UTF8\n@Begin\n@Languages:\teng\n@Participants:\tCHI Target_Child, MOT Mother\n"


@pytest.fixture(scope="module")
def eve_utts():
    path = ROOT / "data" / "childes" / "eve.cha"
    assert path.exists(), "CHILDES fixture missing: run `make childes`"
    return list(read_chat([path], roles=SpeakerRoles()))


def test_eve_counts_ids_and_roles(eve_utts):
    # The reference notes count 1,588 main-tier utterances (741 CHI, 804 MOT, 43 investigators);
    # utterances left without words (xxx ., 0 .) are not emitted but keep their index slot.
    assert eve_utts[-1].index == 1587
    assert len({u.index for u in eve_utts}) == len(eve_utts)
    counts = Counter(u.speaker for u in eve_utts)
    assert counts["CHI"] <= 741 and counts["MOT"] <= 804 and counts["COL"] + counts["RIC"] <= 43
    assert counts["CHI"] > 650 and counts["MOT"] > 780
    assert {u.role for u in eve_utts} == {"child", "caretaker", "other"}
    assert all(u.id == f"eve.cha:{u.index}" and u.file == "eve.cha" for u in eve_utts)
    assert [u.index for u in eve_utts] == sorted(u.index for u in eve_utts)


def test_eve_cleaning_leaves_no_chat_codes(eve_utts):
    leftovers = re.compile(r"[\[\]<>&@_+‡„()]|\bxxx\b|\byyy\b|\bwww\b|\w:\w|^\W*$|\s[,.?!]")
    bad = [(u.raw, u.text) for u in eve_utts if leftovers.search(u.text)]
    assert not bad, bad[:5]


def test_eve_specific_cleanings(eve_utts):
    by_raw = {u.raw: u.text for u in eve_utts}
    assert by_raw["de [: the] paper ."] == "the paper."  # replacement target kept, not the error form
    assert by_raw["you wan(t) a cookie ?"] == "you want a cookie?"
    assert by_raw["yes (.) ‡ a fly ."] == "yes, a fly."
    assert by_raw["how_about another graham_cracker ?"] == "how about another graham cracker?"
    assert by_raw["juice [/] &-um juice [/] juice ."] == "juice."
    assert by_raw["&~ss that ?"] == "that?"
    assert by_raw["m:hm [?] ."] == "mhm."
    assert (
        "the table with the rest"
        in by_raw[
            "there's a cookie <on the table in the room> [//] (.) "
            "on the table with the rest of your crackers ."
        ]
    )


def test_clean_words_terminators_and_separators():
    assert clean_words(["the", "dog's", "+//."]) == "the dog's."
    assert clean_words(["a", "dog", "+/?"]) == "a dog?"
    assert clean_words(["and", "then", "+..."]) == "and then..."
    assert clean_words(["the", "cat", "„", "isn't", "it", "?"]) == "the cat, isn't it?"
    assert clean_words(["ice+cream", "Winnie_the_Pooh", "."]) == "ice cream Winnie the Pooh."
    assert clean_words(["", ".", "‡"]) == ""
    assert clean_words(["0", "."]) == ""


def test_codes_on_handwritten_chat():
    text = HEAD + (
        "*MOT:\t0is the ice+cream here &=laughs www yyy ah@wp the dog@f [* s:r] \x15100_200\x15 ?\n"
        "*CHI:\txxx .\n*CHI:\t+< the big\n\tdog „ isn't it ?\n@End\n"
    )
    utts = list(read_chat_text(text, "t.cha", roles=SpeakerRoles()))
    assert [(u.index, u.speaker, u.text) for u in utts] == [
        (0, "MOT", "the ice cream here ah the dog?"),
        (2, "CHI", "the big dog, isn't it?"),  # continuation joined; index 1 ('xxx .') has no words
    ]
    assert utts[1].role == "child" and utts[0].role == "caretaker"


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("@UTF8\n@Languages:\teng\n*MOT:\tthe dog .\n@End\n", 3, "missing @Begin"),
        (HEAD + "*MOT:\tthe dog .\n", 5, "missing @End"),
        (HEAD + "*MOT: the dog .\n@End\n", 5, "main tier"),
        (HEAD + "*MOT:\tthe dog .\nhello world\n@End\n", 6, "broken tier"),
        (HEAD + "%mor:\tn|dog .\n*MOT:\tthe dog .\n@End\n", 5, "dependent tier before"),
        (HEAD + "*MOT:\tthe dog [: cat .\n@End\n", 5, "unbalanced"),
        (HEAD + "*MOT:\t<the dog [/] the dog .\n@End\n", 5, "unbalanced"),
        (HEAD + "*FAT:\tthe dog .\n@End\n", 5, "not declared"),
        (HEAD + "*MOT:\tthe dog .\n@End\n*CHI:\ta dog .\n", 7, "after @End"),
    ],
)
def test_malformed_chat_is_one_clear_error(text, line, what):
    with pytest.raises(InputError) as e:
        list(read_chat_text(text, "bad.cha"))
    msg = str(e.value)
    assert msg.startswith(f"bad.cha:{line}: malformed CHAT") and what in msg and "\n" not in msg


def test_brackets_across_continuation_lines_are_fine():
    text = HEAD + "*MOT:\t<the dog\n\tthe dog> [/] the dog .\n*CHI:\t<I want> [>] a cookie .\n@End\n"
    assert [u.text for u in read_chat_text(text, "ok.cha")] == ["the dog.", "I want a cookie."]


def test_bad_files(tmp_path):
    (tmp_path / "latin1.cha").write_bytes((HEAD + "*MOT:\tcaf\xe9 .\n@End\n").encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1.cha:5: not UTF-8"):
        list(read_chat_file(tmp_path / "latin1.cha"))
    (tmp_path / "empty.cha").write_text("")
    with pytest.raises(InputError, match="empty file"):
        list(read_chat([tmp_path / "empty.cha"]))
    with pytest.raises(InputError, match="no such file"):
        list(read_chat([tmp_path / "missing.cha"]))


def test_chat_inputs_labels_are_sorted_and_machine_independent(tmp_path):
    for name in ("b/020806.cha", "a/010203.cha", "a/010101.cha"):
        (tmp_path / "corpus" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "corpus" / name).write_text(HEAD + "*MOT:\thi .\n@End\n")
    labels = [label for label, _ in chat_inputs([tmp_path / "corpus"])]
    assert labels == ["corpus/a/010101.cha", "corpus/a/010203.cha", "corpus/b/020806.cha"]
    with pytest.raises(InputError, match="same transcript name"):
        chat_inputs([tmp_path / "corpus" / "a" / "010101.cha", tmp_path / "corpus" / "a" / "010101.cha"])


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_dialogue_table(tmp_path, suffix):
    df = pd.DataFrame(
        {
            "conv": ["s2", "s1", "s1", "s2", "s1"],
            "who": ["A", "A", "B", "B", "A"],
            "line": ["hello  there", "the dog", "a dog", "", "the cat"],
            "t": [1, 3, 1, 2, 2],
        }
    )
    path = tmp_path / f"d{suffix}"
    {
        ".jsonl": lambda: df.to_json(path, orient="records", lines=True),
        ".csv": lambda: df.to_csv(path, index=False),
        ".parquet": lambda: df.to_parquet(path),
    }[suffix]()
    cols = TableColumns(session="conv", speaker="who", text="line", order="t")
    utts = list(read_dialogue_table(path, columns=cols, roles=SpeakerRoles(child=("A",), caretakers=("B",))))
    assert [(u.id, u.speaker, u.role, u.text) for u in utts] == [
        ("s1:0", "B", "caretaker", "a dog"),
        ("s1:1", "A", "child", "the cat"),
        ("s1:2", "A", "child", "the dog"),
        ("s2:0", "A", "child", "hello there"),
    ]
    with pytest.raises(InputError, match="missing column"):
        list(read_dialogue_table(path, columns=TableColumns(session="nope")))


def test_roles_validation():
    with pytest.raises(InputError, match="both child and caretaker"):
        SpeakerRoles(child=("CHI",), caretakers=("CHI", "MOT"))


def _long_chat(tmp_path, *, continuation: bool = False) -> Path:
    """A valid transcript whose one MOT utterance is ~1.5 MB: on one line, or over 3 TAB continuations."""
    words = "the dog " * 62_500  # 500 kB
    body = f"*MOT:\t{words}\n\t{words}\n\t{words} .\n" if continuation else f"*MOT:\t{words * 3}.\n"
    path = tmp_path / "long.cha"
    path.write_text(HEAD + "*CHI:\tdoggie .\n" + body + "@End\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("continuation", "what"), [(False, "line"), (True, "utterance")])
def test_a_huge_utterance_is_refused_before_parsing(tmp_path, continuation, what):
    """One 1.5 MB utterance (a 30 MB one took 5.3 GB and a spaCy traceback): one line naming file and
    line, with the readers' default limit; a higher --max-line-bytes lets it through."""
    path = _long_chat(tmp_path, continuation=continuation)
    with pytest.raises(InputError) as e:
        list(read_chat([path]))
    text = str(e.value)
    assert re.match(rf"long\.cha:6: {what} longer than 1,000,000 bytes", text), text
    assert "--max-line-bytes" in text and "\n" not in text
    assert len(list(read_chat([path], max_line_bytes=2_000_000))) == 2


def test_a_huge_table_utterance_is_refused(tmp_path):
    path = tmp_path / "d.csv"
    pd.DataFrame({"session": ["s", "s"], "speaker": ["CHI", "MOT"], "utterance": ["hi", "x" * 2000]}).to_csv(
        path, index=False
    )
    with pytest.raises(InputError, match=r"d\.csv: session 's', utterance 2: longer than 1,000 bytes"):
        list(read_dialogue_table(path, max_line_bytes=1000))


def test_cac_build_has_the_line_limit(tmp_path):
    """`cac build` with a long utterance: one line, exit 2, nothing written; the limit is an option."""
    from typer.testing import CliRunner

    from corpusbench.cli import app

    path = _long_chat(tmp_path)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["cac", "build", str(path), "--out", str(out), "--max-line-bytes", "1000"])
    assert res.exit_code == 2, res.output
    assert "long.cha:6: line longer than 1,000 bytes" in res.output and not out.exists()
