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
    assert spec.families[0].id == "fixture" and spec.families[0].params["group_column"] == "UID"
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
        ({"families": []}, "families must list at least one family"),
        ({"colour": "blue"}, "unknown key colour"),
        ({"corpora": {"genesis": {"path": str(ROOT), "size": 3}}}, "unknown key corpora.genesis.size"),
        ({"corpora": {"genesis": {"language": "en"}}}, "missing required key corpora.genesis.path"),
        (
            {"families": [{"name": "minimal-pair"}]},
            "families[0].name unknown family 'minimal-pair'. Did you mean: minimal-pairs?",
        ),
        (
            {"families": [{"name": "minimal-pairs", "corpus": "brown"}]},
            "families[0].corpus 'brown' is not a key",
        ),
        (
            {"families": [{"name": "minimal-pairs"}, {"name": "minimal-pairs"}]},
            "families[1].id 'minimal-pairs' is used twice",
        ),
        ({"families": [{"name": "minimal-pairs", "parms": {}}]}, "unknown key families[0].parms"),
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
            "families.fixture.params.max_pairs=2",
            "families.0.params.config_prefix=x-",
            "tags=[a, b]",
        ]
    )
    spec = load(tmp_path, overrides=overrides)
    assert spec.seed == 7 and spec.version == "0.2.0-rc.1" and spec.tags == ("a", "b")
    assert spec.families[0].params["max_pairs"] == 2
    assert spec.families[0].params["config_prefix"] == "x-"


def test_bad_overrides(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"must look like dotted\.key=value"):
        parse_override_args(["seed"])
    with pytest.raises(ConfigError, match="seed must be an integer"):
        load(tmp_path, overrides={"seed": "many"})
    with pytest.raises(ConfigError, match="no item 'nope' in families"):
        apply_overrides(spec_dict(), {"families.nope.params.x": 1}, "spec.yaml")
    with pytest.raises(ConfigError, match="unknown key releases"):
        load(tmp_path, overrides={"releases.x": 1})


def test_relative_paths_resolve_against_the_spec_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    corpus = tmp_path / "sub" / "corpus.txt"
    corpus.write_text("In the beginning.\n", encoding="utf-8")
    spec = ReleaseSpec.load(write_spec(tmp_path / "sub", corpora={"genesis": {"path": "corpus.txt"}}))
    assert spec.resolve_path(spec.corpora["genesis"].path) == corpus


BOMB = """
a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def _with_sampling(tmp_path: Path, sampling_yaml: str) -> Path:
    """The fixture spec with ``llm.sampling`` written as raw YAML (anchors allowed)."""
    text = yaml.safe_dump(spec_dict(llm={"model": "m", "sampling": {}}), sort_keys=False)
    text = text.replace(
        "sampling: {}", "sampling:\n" + "\n".join("    " + ln for ln in sampling_yaml.splitlines())
    )
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_yaml_bomb_is_refused_unexpanded(tmp_path: Path) -> None:
    """Billion laughs inside llm.sampling (9^9 values once expanded): one line naming the spec, at once."""
    path = _with_sampling(tmp_path, BOMB)
    with pytest.raises(ConfigError) as info:
        ReleaseSpec.load(path)
    text = str(info.value)
    assert text.startswith(f"{path}: YAML aliases expand to more than 100,000 values") and "\n" not in text
    assert not (tmp_path / "build").exists()
    loop = tmp_path / "loop.yaml"
    loop.write_text("a: &a [1, *a]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"loop\.yaml:1: a YAML alias refers to itself"):
        ReleaseSpec.load(loop)


def test_small_aliases_still_work(tmp_path: Path) -> None:
    spec = ReleaseSpec.load(_with_sampling(tmp_path, "base: &t {temperature: 0.0}\nsame: *t"))
    assert spec.llm is not None and spec.llm.sampling["same"] == {"temperature": 0.0}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x01\x02binary\xff" * 40, r"spec\.yaml: a binary file \(NUL bytes\), not a YAML release spec"),
        (b"name: caf\xe9\n", r"spec\.yaml:1: not UTF-8 text \(byte 0xe9 at offset 9\)"),
    ],
)
def test_a_binary_spec_is_one_line(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(data)
    with pytest.raises(ConfigError, match=message):
        ReleaseSpec.load(path)


def test_a_bad_yaml_override_value_is_one_line() -> None:
    with pytest.raises(ConfigError, match=r"^override 'seed=\[1,': not valid YAML \(expected"):
        parse_override_args(["seed=[1,"])


LT = {"name": "ltswap", "id": "lt", "corpus": "genesis"}
LLM = {"model": "m", "backend": "vllm-server"}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"families": [{**LT, "params": {"threshold": 0.2}}], "llm": LLM},
            "unknown key families.lt.params.threshold; the spec spells that option filter_threshold",
        ),
        ({"families": [{**LT, "params": {"reuse_rn": "x"}}], "llm": LLM}, "did you mean reuse_run?"),
        (
            {"families": [{**LT, "params": {"pos_check": False}}], "llm": LLM},
            "spells that option check_pos",
        ),
        (
            {"families": [{**LT, "params": {"max_per_bin": {"wordswap": "3"}}}], "llm": LLM},
            "families.lt.params.max_per_bin must be an integer or a mapping of integers or null",
        ),
        (
            {"families": [{**LT, "params": {"subtasks": ["wordswap", "x"]}}], "llm": LLM},
            "families.lt.params: unknown subtask(s) ['x']",
        ),
        ({"families": [LT]}, "llm: ltswap prompts an LLM; add an `llm:` block"),
        ({"families": [LT], "llm": {**LLM, "sampling": {"temperature": 0}}}, "llm.sampling: ltswap sets"),
        ({"families": [{**LT, "corpus": None}], "llm": LLM}, "families.lt.corpus: ltswap needs a corpus"),
        (
            {"families": [{"name": "minimal-pairs", "params": {"path": "p", "max_pairs": "ten"}}]},
            "families.minimal-pairs.params.max_pairs must be an integer or null, got 'ten'",
        ),
        (
            {"families": [{"name": "minimal-pairs"}]},
            "missing required key families.minimal-pairs.params.path",
        ),
        (
            {"families": [{"name": "fitclams", "corpus": "genesis", "params": {"selection": {"nouns": 3}}}]},
            "unknown key families.fitclams.params.selection.nouns; did you mean n_nouns?",
        ),
        (
            {"families": [{"name": "fitclams", "params": {"corpora": ["genesis", "brown"]}}]},
            "families.fitclams.params.corpora: 'brown' is not a key of corpora (genesis)",
        ),
        (
            {"families": [{"name": "frames", "corpus": "genesis", "params": {"train": "brown"}}]},
            "families.frames.params.train: 'brown' is not a key of corpora",
        ),
        (
            {"families": [{"name": "cac", "corpus": "genesis", "params": {"split_sessions": 2.5}}]},
            "families.cac.params.split_sessions must be an integer, got 2.5",
        ),
    ],
)
def test_generator_params_are_checked_at_load(tmp_path: Path, changes: dict, message: str) -> None:
    """Every generator's params are validated when the spec is loaded (before any generator runs),
    each error one line naming the spec file and the key."""
    with pytest.raises(ConfigError) as info:
        load(tmp_path, **changes)
    text = str(info.value)
    assert text.startswith(f"{tmp_path / 'spec.yaml'}: ") and message in text and "\n" not in text
    if "allowed:" in message:
        assert "reuse_run" in text and "filter_threshold" in text


def test_the_old_generators_key_is_refused_with_its_new_name():
    raw = spec_dict()
    raw["generators"] = raw.pop("families")
    with pytest.raises(ConfigError, match="unknown key generators; the list of benchmarks is now `families"):
        ReleaseSpec.from_dict(raw)
