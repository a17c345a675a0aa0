"""``--doc-unit auto``: hard-wrapped books are read by paragraph, line-per-document corpora by line."""

import json
import textwrap

import pandas as pd
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.corpus.docunit import looks_hard_wrapped
from corpusbench.corpus.readers import CorpusSpec, choose_doc_unit, read_corpus
from corpusbench.corpus.stats import compute_stats

runner = CliRunner()


def _book(tmp_path, data_dir):
    """Genesis 1-2 as a Gutenberg-style book (paragraphs of 4 verses wrapped at 70 columns) and the
    same paragraphs unwrapped, one per line."""
    verses = (data_dir / "genesis_40.txt").read_text().splitlines()
    paras = [" ".join(verses[i : i + 4]) for i in range(0, len(verses), 4)]
    book = tmp_path / "book" / "genesis.txt"
    flat = tmp_path / "flat" / "genesis.txt"
    book.parent.mkdir()
    flat.parent.mkdir()
    book.write_text("\n\n".join(textwrap.fill(p, 70) for p in paras) + "\n")
    flat.write_text("\n".join(paras) + "\n")
    return book, flat


def test_a_hard_wrapped_book_gives_sentences_not_line_fragments(tmp_path, data_dir):
    book, flat = _book(tmp_path, data_dir)
    assert choose_doc_unit(CorpusSpec(path=str(book))).unit == "paragraph"
    assert choose_doc_unit(CorpusSpec(path=str(flat))).unit == "line"
    auto = compute_stats(CorpusSpec(path=str(book)), tmp_path / "auto")
    ref = compute_stats(CorpusSpec(path=str(flat)), tmp_path / "ref")
    lines = compute_stats(CorpusSpec(path=str(book), doc_unit="line"), tmp_path / "lines")
    # read by paragraph, the book gives exactly the sentences of the unwrapped text ...
    assert (auto.sentences, auto.tokens) == (ref.sentences, ref.tokens)
    for name in ("counts", "contexts"):
        a = pd.read_parquet(tmp_path / "auto" / f"{name}.parquet")
        assert a.equals(pd.read_parquet(tmp_path / "ref" / f"{name}.parquet")), name
    # ... line by line it gives fragments
    assert lines.sentences > 1.5 * auto.sentences
    m = json.loads((tmp_path / "auto" / "manifest.json").read_text())
    assert m["corpus"]["doc_unit"]["unit"] == "paragraph" and m["corpus"]["doc_unit"]["chosen_by"] == "auto"
    assert "hard-wrapped" in m["corpus"]["doc_unit"]["reason"]
    assert m["corpus"]["spec"]["doc_unit"] == "paragraph"


def test_the_cli_says_which_unit_it_chose(tmp_path, data_dir):
    book, _ = _book(tmp_path, data_dir)
    res = runner.invoke(app, ["stats", str(book), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "one document per paragraph" in res.output.replace("\n", " ")
    res = runner.invoke(app, ["stats", str(book), "--out", str(tmp_path / "o2"), "--doc-unit", "line"])
    assert res.exit_code == 0, res.output
    m = json.loads((tmp_path / "o2" / "manifest.json").read_text())
    assert m["corpus"]["doc_unit"] == {"unit": "line", "chosen_by": "user", "reason": "--doc-unit"}


def test_line_per_document_corpora_stay_line(default_corpus, data_dir):
    for path in (default_corpus, default_corpus / "kjv", data_dir / "genesis_40.txt"):
        assert choose_doc_unit(CorpusSpec(path=str(path))).unit == "line", path
    # the embedded corpus: one document per verse / speech, as before
    docs = list(read_corpus(CorpusSpec(path=str(default_corpus / "kjv" / "01-genesis.txt"))))
    assert docs[0].text == "In the beginning God created the heaven and the earth."
    # short unpunctuated lines (utterances, verse) are not a wrapped page
    utterances = [["you want the ball", "no", "where is the doggie", "look at that"] * 10]
    assert not looks_hard_wrapped(utterances)[0]
    wrapped = [textwrap.fill(" ".join(["the cat sat on the mat and then"] * 80), 70).splitlines()]
    assert looks_hard_wrapped(wrapped)[0]
