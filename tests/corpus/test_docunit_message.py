"""``stats`` says in plain words what one document per line means when it chooses it."""

from __future__ import annotations

from corpusbench.corpus.docunit import detect_doc_unit


def test_choosing_line_says_what_it_means(tmp_path):
    f = tmp_path / "short.txt"
    f.write_text("A title\n\nOne paragraph.\n\nAnother one.\n", encoding="utf-8")
    choice = detect_doc_unit([f])
    assert choice.unit == "line"
    assert "too few pairs of consecutive non-blank lines (0)" in choice.reason
    assert "each line is read as a document of its own" in choice.reason
    assert "--doc-unit paragraph" in choice.reason
