"""docs/release-spec.md: its complete example builds, and its field table names every spec field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import DOC, ROOT, doc_example

from corpusbench.errors import ConfigError
from corpusbench.publish.spec import CorpusSpec, GeneratorSpec, LLMSpec, ReleaseSpec


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
    skip = {"source", "corpora", "generators", "llm"}  # documented by their sub-fields
    fields = [f.name for f in dataclasses.fields(ReleaseSpec) if f.name not in skip]
    fields += [f"corpora.KEY.{f.name}" for f in dataclasses.fields(CorpusSpec)]
    fields += [f"generators[].{f.name}" for f in dataclasses.fields(GeneratorSpec)]
    missing = [f for f in fields if f"`{f}`" not in text]
    missing += [f.name for f in dataclasses.fields(LLMSpec) if f.name not in text]
    assert missing == []
