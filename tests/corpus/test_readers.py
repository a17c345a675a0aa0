"""Every reader type streams the same documents; bad input gives one clear InputError."""

import gzip
import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from corpusbench.corpus.readers import CorpusSpec, corpus_fingerprint, iter_files, read_corpus, resolve_reader
from corpusbench.errors import ConfigError, InputError


@pytest.fixture()
def verses(data_dir):
    return [line.strip() for line in (data_dir / "genesis_40.txt").read_text().splitlines() if line.strip()]


def texts(spec):
    return [d.text for d in read_corpus(spec)]


def test_text_file_lines(data_dir, verses):
    docs = list(read_corpus(CorpusSpec(path=str(data_dir / "genesis_40.txt"))))
    assert [d.text for d in docs] == verses
    assert docs[0].id == "genesis_40.txt:1" and docs[0].source == "genesis_40.txt"


def test_directory_recursive_sorted_and_compressed(tmp_path, data_dir, verses):
    (tmp_path / "b" / "c").mkdir(parents=True)
    shutil.copy(data_dir / "genesis_40.txt", tmp_path / "a.txt")
    with gzip.open(tmp_path / "b" / "x.txt.gz", "wt") as fh:
        fh.write("\n".join(verses[:5]) + "\n")
    (tmp_path / "b" / "c" / "y.txt.zst").write_bytes(
        zstandard.ZstdCompressor().compress(b"Last line here.\n")
    )
    (tmp_path / ".hidden.txt").write_text("never read\n")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\x00\x00")
    files = [p.relative_to(tmp_path).as_posix() for p in iter_files(tmp_path)]
    assert files == ["a.txt", "b/c/y.txt.zst", "b/x.txt.gz"]
    got = texts(CorpusSpec(path=str(tmp_path)))
    assert got == [*verses, "Last line here.", *verses[:5]]


def test_jsonl_with_text_field(tmp_path, verses):
    p = tmp_path / "c.jsonl"
    p.write_text("".join(json.dumps({"content": v, "n": i}) + "\n" for i, v in enumerate(verses)))
    assert texts(CorpusSpec(path=str(p), text_field="content")) == verses
    with pytest.raises(InputError, match=r"c\.jsonl:1: no field 'text'"):
        texts(CorpusSpec(path=str(p)))


def test_parquet_and_saved_hf_dataset(tmp_path, verses):
    import datasets

    pq.write_table(pa.table({"text": verses}), tmp_path / "c.parquet")
    assert texts(CorpusSpec(path=str(tmp_path / "c.parquet"))) == verses
    datasets.Dataset.from_dict({"text": verses}).save_to_disk(str(tmp_path / "saved"))
    assert resolve_reader(CorpusSpec(path=str(tmp_path / "saved"))) == "hf-disk"
    assert texts(CorpusSpec(path=str(tmp_path / "saved"))) == verses
    dd = datasets.DatasetDict({"train": datasets.Dataset.from_dict({"text": verses[:3]})})
    dd.save_to_disk(str(tmp_path / "saved_dict"))
    assert texts(CorpusSpec(path=str(tmp_path / "saved_dict"))) == verses[:3]
    with pytest.raises(InputError, match="no split 'test'"):
        texts(CorpusSpec(path=str(tmp_path / "saved_dict"), split="test"))


def test_paragraph_unit_joins_wrapped_lines(tmp_path):
    p = tmp_path / "p.txt"
    p.write_text("First sentence\ncontinues here.\n\nSecond paragraph.\n")
    assert texts(CorpusSpec(path=str(p), doc_unit="paragraph")) == [
        "First sentence continues here.",
        "Second paragraph.",
    ]


def test_fingerprint_changes_with_content(tmp_path, data_dir):
    a = corpus_fingerprint(CorpusSpec(path=str(data_dir / "genesis_40.txt")))
    assert a == corpus_fingerprint(CorpusSpec(path=str(data_dir / "genesis_40.txt")))
    p = tmp_path / "genesis_40.txt"
    p.write_text((data_dir / "genesis_40.txt").read_text().replace("God", "god", 1))
    b = corpus_fingerprint(CorpusSpec(path=str(p)))
    assert a.sha256 != b.sha256 and a.n_documents == b.n_documents == 40


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\x01\x02binary", "looks like a binary file"),
        (b"ok line\ncaf\xe9 au lait\n", r":2: bytes not valid utf-8 at column 4"),
    ],
)
def test_bad_files(tmp_path, content, message):
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(InputError, match=message) as e:
        texts(CorpusSpec(path=str(p)))
    assert str(p) in str(e.value)


def test_huge_line_is_refused(tmp_path):
    p = tmp_path / "huge.txt"
    p.write_bytes(b"word " * 300_000)  # 1.5 MB, no newline
    with pytest.raises(InputError, match=r"huge\.txt:1: line longer than 1,000,000 bytes"):
        texts(CorpusSpec(path=str(p)))


def test_missing_path_and_bad_options(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        texts(CorpusSpec(path=str(tmp_path / "nope.txt")))
    with pytest.raises(ConfigError, match="unknown reader"):
        CorpusSpec(path="x", reader="pdf")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no corpus files found"):
        texts(CorpusSpec(path=str(tmp_path / "empty")))


def test_chat_transcript_is_read_as_utterances(root):
    eve = root / "data" / "childes" / "eve.cha"
    assert eve.exists(), "run `make childes`"
    docs = list(read_corpus(CorpusSpec(path=str(eve))))
    assert resolve_reader(CorpusSpec(path=str(eve))) == "chat"
    assert len(docs) > 1400
    assert all(d.source == "eve.cha" and d.id.startswith("eve.cha:") for d in docs)
    assert not any("[" in d.text or "&=" in d.text or "\x15" in d.text for d in docs)  # CHAT codes cleaned


def test_a_symlink_loop_in_a_corpus_folder_is_one_error(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("In the beginning.\n")
    (corpus / "b.txt").symlink_to(corpus / "c.txt")
    (corpus / "c.txt").symlink_to(corpus / "b.txt")
    with pytest.raises(InputError, match=r"corpus/b\.txt: cannot read \(Too many levels of symbolic links\)"):
        iter_files(corpus)
    (corpus / "c.txt").unlink()
    with pytest.raises(InputError, match=r"b\.txt: cannot read \(No such file or directory\)"):
        texts(CorpusSpec(path=str(corpus)))


def test_chat_files_get_the_line_limit(tmp_path):
    p = tmp_path / "x.cha"
    head = "@UTF8\n@Begin\n@Participants:\tCHI Target_Child\n"
    p.write_text(head + "*CHI:\t" + "ba " * 400 + ".\n@End\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"x\.cha:4: line longer than 1,000 bytes"):
        texts(CorpusSpec(path=str(p), max_line_bytes=1000))
