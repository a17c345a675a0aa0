"""Release spec validation: every bad field is one ConfigError naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import ROOT, spec_dict, write_spec

from corpusbench.errors import ConfigError
from corpusbench.publish.spec import ReleaseSpec, apply_overrides, parse_override_args


def load(tmp_path: Path, overrides: dict | None = None, **changes) -> ReleaseSpec:
    return ReleaseSpec.load(write_spec(tmp_path, **changes), overrides=overrides)


def test_valid_spec_fills_defaults_and_resolves(tmp_path: Path) -> None:
    spec = load(tmp_path)
    assert spec.tag == "v0.1.0"
    assert spec.generators[0].id == "fixture" and spec.generators[0].params["group_column"] == "UID"
    assert spec.llm is None and spec.limitations == ()
    resolved = spec.resolved()
    assert "source" not in resolved and resolved["corpora"]["genesis"]["reader"] == "auto"


def test_example_specs_in_releases_load() -> None:
    specs = sorted((ROOT / "releases").glob("*.yaml"))
    assert specs, "releases/ should hold at least one example spec"
    for path in specs:
        assert ReleaseSpec.load(path).name == path.stem


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"version": "1.0"}, "version '1.0' is not a semantic version"),
        ({"version": "v1.0.0"}, "is not a semantic version"),
        ({"version": 1.0}, "version '1.0' is not a semantic version"),
        ({"name": "Bad Name"}, "name 'Bad Name' must be lowercase"),
        ({"repo_id": "no-namespace"}, "repo_id 'no-namespace' must be 'namespace/name'"),
        ({"license": "CC BY"}, "license 'CC BY' is not a Hub licence id"),
        ({"language": ["english"]}, "language[0] 'english' is not an ISO 639 code"),
        ({"seed": "seven"}, "seed must be an integer"),
        ({"generators": []}, "generators must list at least one generator"),
        ({"colour": "blue"}, "unknown key colour"),
        ({"corpora": {"genesis": {"path": str(ROOT), "size": 3}}}, "unknown key corpora.genesis.size"),
        ({"corpora": {"genesis": {"language": "en"}}}, "missing required key corpora.genesis.path"),
        (
            {"generators": [{"name": "minimal-pair"}]},
            "generators[0].name unknown release generator 'minimal-pair'. Did you mean: minimal-pairs?",
        ),
        (
            {"generators": [{"name": "minimal-pairs", "corpus": "brown"}]},
            "generators[0].corpus 'brown' is not a key",
        ),
        (
            {"generators": [{"name": "minimal-pairs"}, {"name": "minimal-pairs"}]},
            "generators[1].id 'minimal-pairs' is used twice",
        ),
        ({"generators": [{"name": "minimal-pairs", "parms": {}}]}, "unknown key generators[0].parms"),
        ({"llm": {"backend": "vllm-server"}}, "missing required key llm.model"),
    ],
)
def test_invalid_specs_name_the_field(tmp_path: Path, changes: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, **changes)
    text = str(info.value)
    assert message in text
    assert text.startswith(str(tmp_path / "spec.yaml")) and "\n" not in text


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="release spec not found"):
        ReleaseSpec.load(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nversion: [1,\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.yaml:\d+: not valid YAML"):
        ReleaseSpec.load(bad)
    listed = tmp_path / "list.yaml"
    listed.write_text(yaml.safe_dump([1, 2]), encoding="utf-8")
    with pytest.raises(ConfigError, match="must be a mapping"):
        ReleaseSpec.load(listed)


def test_dotted_overrides_by_key_index_and_generator_id(tmp_path: Path) -> None:
    overrides = parse_override_args(
        [
            "seed=7",
            "version=0.2.0-rc.1",
            "generators.fixture.params.max_pairs=2",
            "generators.0.params.config_prefix=x-",
            "tags=[a, b]",
        ]
    )
    spec = load(tmp_path, overrides=overrides)
    assert spec.seed == 7 and spec.version == "0.2.0-rc.1" and spec.tags == ("a", "b")
    assert spec.generators[0].params["max_pairs"] == 2
    assert spec.generators[0].params["config_prefix"] == "x-"


def test_bad_overrides(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"must look like dotted\.key=value"):
        parse_override_args(["seed"])
    with pytest.raises(ConfigError, match="seed must be an integer"):
        load(tmp_path, overrides={"seed": "many"})
    with pytest.raises(ConfigError, match="no item 'nope' in generators"):
        apply_overrides(spec_dict(), {"generators.nope.params.x": 1}, "spec.yaml")
    with pytest.raises(ConfigError, match="unknown key releases"):
        load(tmp_path, overrides={"releases.x": 1})


def test_relative_paths_resolve_against_the_spec_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    corpus = tmp_path / "sub" / "corpus.txt"
    corpus.write_text("In the beginning.\n", encoding="utf-8")
    spec = ReleaseSpec.load(write_spec(tmp_path / "sub", corpora={"genesis": {"path": "corpus.txt"}}))
    assert spec.resolve_path(spec.corpora["genesis"].path) == corpus
