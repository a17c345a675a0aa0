import os

import pytest

from corpusbench.errors import InputError
from corpusbench.io import atomic_dir, atomic_write, read_json, read_jsonl, write_json, write_jsonl


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(target) as fh:
        fh.write("new")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["a.txt"]


def test_atomic_dir_replaces_only_on_success(tmp_path):
    out = tmp_path / "out"
    with atomic_dir(out) as tmp:
        (tmp / "x").write_text("1")
    assert (out / "x").read_text() == "1"
    with pytest.raises(ValueError), atomic_dir(out) as tmp:
        (tmp / "x").write_text("2")
        raise ValueError
    assert (out / "x").read_text() == "1"
    assert sorted(os.listdir(tmp_path)) == ["out"]
    assert oct(out.stat().st_mode & 0o777) != oct(0o700)  # not left with mkdtemp's private mode


def test_json_round_trips_and_bad_jsonl_names_the_line(tmp_path):
    write_json(tmp_path / "m.json", {"b": 2, "a": [1, 2]})
    assert read_json(tmp_path / "m.json") == {"a": [1, 2], "b": 2}
    assert write_jsonl(tmp_path / "r.jsonl", [{"x": 1}, {"x": 2}]) == 2
    assert [r["x"] for r in read_jsonl(tmp_path / "r.jsonl")] == [1, 2]
    (tmp_path / "bad.jsonl").write_text('{"x": 1}\n{oops\n')
    with pytest.raises(InputError, match=r"bad\.jsonl:2: not valid JSON"):
        list(read_jsonl(tmp_path / "bad.jsonl"))
