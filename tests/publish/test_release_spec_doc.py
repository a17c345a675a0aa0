"""docs/release-spec.md: its complete example builds, and its field table names every spec field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import DOC, ROOT, doc_example

from corpusbench.errors import ConfigError
from corpusbench.publish.params import SCHEMAS, all_keys
from corpusbench.publish.spec import FamilySpec, ReleaseCorpus, ReleaseLLM, ReleaseSpec


def test_the_documented_example_builds(doc_release: Path) -> None:
    manifest = json.loads((doc_release / "provenance.json").read_text())
    names = [c["name"] for c in manifest["configs"]]
    assert "cac-the-a" in names and any(c["generator"] == "demo" for c in manifest["configs"])
    assert manifest["release"]["license"] == "cc-by-nc-sa-3.0"
    licences = {c["name"]: c["licence"]["license"] for c in manifest["configs"]}
    assert licences["cac-the-a"] == "cc-by-nc-sa-3.0"
    assert {v for k, v in licences.items() if k != "cac-the-a"} == {"public-domain"}


def test_the_example_refuses_a_more_permissive_licence() -> None:
    with pytest.raises(ConfigError, match="more permissive than corpus 'eve' allows"):
        ReleaseSpec.from_dict(
            {**doc_example(), "license": "cc-by-4.0"}, source=ROOT / "releases" / "my-corpus.yaml"
        )


def test_every_spec_field_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    skip = {"source", "corpora", "families", "llm"}  # documented by their sub-fields
    fields = [f.name for f in dataclasses.fields(ReleaseSpec) if f.name not in skip]
    fields += [f"corpora.KEY.{f.name}" for f in dataclasses.fields(ReleaseCorpus)]
    fields += [f"families[].{f.name}" for f in dataclasses.fields(FamilySpec)]
    fields += [f"llm.{f.name}" for f in dataclasses.fields(ReleaseLLM)]
    missing = [f for f in fields if f"`{f}`" not in text]
    assert missing == []


def _section(text: str, generator: str) -> str:
    """The doc's paragraph and table of one generator's params (up to the next generator's)."""
    start = text.index(f"`{generator}` (", text.index("## Family parameters"))
    nxt = [text.find(f"`{g}` (", start + 1) for g in SCHEMAS if g != generator]
    ends = [i for i in nxt if i > start] + [text.index("## Licences")]
    return text[start : min(ends)]


@pytest.mark.parametrize("generator", sorted(SCHEMAS))
def test_every_generator_param_is_documented(generator: str) -> None:
    """Every key a generator's params accept (its adapter's params types and nested mappings, e.g.
    ltswap's `reuse_run`, fitclams' `selection.top_k`) is named in its section of the doc."""
    section = _section(DOC.read_text(encoding="utf-8"), generator)
    missing = [k for k in all_keys(generator) if f"`{k}`" not in section]
    assert missing == []
