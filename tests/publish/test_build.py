"""``release build``: layout, funnels, deterministic rebuilds, atomic failure, the plugin interface."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from conftest import CORPUS, PAIRS, run_cli, write_spec

from corpusbench.errors import ConfigError, InputError
from corpusbench.provenance import file_sha256
from corpusbench.publish import tables
from corpusbench.publish.build import build_release, verify_build
from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, generators
from corpusbench.publish.spec import ReleaseSpec

CONFIGS = ["agreement", "anaphora", "determiners"]


def build(folder: Path, overrides: dict | None = None, **changes) -> Path:
    spec = ReleaseSpec.load(write_spec(folder, **changes), overrides=overrides)
    return build_release(spec, folder / "build", force=True).path


def tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): file_sha256(p) for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_layout_and_funnels(built: Path) -> None:
    files = set(tree(built))
    for name in CONFIGS:
        assert f"data/{name}/test-00000-of-00001.parquet" in files
        assert f"lm_eval/test_pairs/{name}.yaml" in files
        assert f"babylm/{name}.jsonl" in files
    assert {
        "README.md",
        "provenance.json",
        "eval/corpusbench.yaml",
        "lm_eval/test_pairs/_template_yaml",
        "lm_eval/test_pairs/_test_pairs.yaml",
        "lm_eval/test_pairs/README.md",
    } <= files
    manifest = json.loads((built / "provenance.json").read_text())
    funnels = {c["name"]: c["funnel"] for c in manifest["configs"]}
    assert funnels["agreement"] == [
        ["read", 6],
        ["dropped:identical", 1],
        ["dropped:duplicate", 1],
        ["kept", 4],
    ]
    assert funnels["determiners"] == [["read", 4], ["dropped:empty", 1], ["kept", 3]]
    assert funnels["anaphora"] == [["read", 3], ["kept", 3]]
    rows = {c["name"]: c["rows"] for c in manifest["configs"]}
    assert rows == {"agreement": 4, "anaphora": 3, "determiners": 3}
    assert manifest["corpora"]["genesis"]["fingerprint"]["n_files"] == 1
    assert manifest["code_version"]["corpusbench"] and manifest["seed"] == 3
    table = tables.read_parquet(built / "data/agreement/test-00000-of-00001.parquet")
    assert table.column_names[:4] == ["sentence_good", "sentence_bad", "UID", "pair_id"]
    assert table.column("sentence_good").to_pylist()[0] == "The cat sleeps on the mat."


def test_rebuild_is_byte_identical(built: Path, tmp_path: Path) -> None:
    again = build(tmp_path)
    assert tree(again) == tree(built)
    first = json.loads((built / "provenance.json").read_text())
    second = json.loads((again / "provenance.json").read_text())
    assert [c["content_fingerprint"] for c in first["configs"]] == [
        c["content_fingerprint"] for c in second["configs"]
    ]
    assert first["release_fingerprint"] == second["release_fingerprint"]


def test_seeded_sampling_is_reproducible_and_changes_fingerprints(built: Path, tmp_path: Path) -> None:
    a = build(tmp_path / "a", overrides={"families.fixture.params.max_pairs": 2})
    b = build(tmp_path / "b", overrides={"families.fixture.params.max_pairs": 2})
    c = build(tmp_path / "c", overrides={"families.fixture.params.max_pairs": 2, "seed": 4})
    fp = {
        k: {
            x["name"]: x["content_fingerprint"]
            for x in json.loads((p / "provenance.json").read_text())["configs"]
        }
        for k, p in (("a", a), ("b", b), ("c", c), ("full", built))
    }
    assert fp["a"] == fp["b"]
    assert fp["a"]["agreement"] != fp["full"]["agreement"]
    assert fp["a"] != fp["c"]  # another seed picks other pairs (3 choose 2 per config, 3 configs)
    funnel = dict(json.loads((a / "provenance.json").read_text())["configs"][0]["funnel"])
    assert funnel["dropped:sampled_out"] == 2 and funnel["kept"] == 2


def test_failed_generator_leaves_no_partial_release(tmp_path: Path) -> None:
    good = build(tmp_path)
    before = tree(good)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"good": "a", "bad": "b"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="needs columns 'sentence_good' and 'sentence_bad'"):
        build(tmp_path, overrides={"families.fixture.params.path": str(broken)})
    assert tree(good) == before  # the previous build of this version is untouched
    leftovers = [p.name for p in good.parent.iterdir() if p.name != "0.1.0"]
    assert leftovers == []
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    with pytest.raises(InputError):
        build(fresh, overrides={"families.fixture.params.path": str(broken)})
    assert not (fresh / "build" / "test-pairs" / "0.1.0").exists()


def test_verify_build_detects_changed_data(built: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    assert verify_build(copy)["release"]["tag"] == "v0.1.0"
    target = copy / "data/anaphora/test-00000-of-00001.parquet"
    tables.write_parquet(pa.table({"sentence_good": ["x"], "sentence_bad": ["y"]}), target)
    with pytest.raises(InputError, match="sha256 mismatch"):
        verify_build(copy)


def _custom(ctx: GeneratorContext) -> list[ReleaseConfig]:
    kind = ctx.generator.params.get("kind", "ok")
    prefix = pd.DataFrame(
        {
            "prefix": ["The keys to the cabinet", "The dog near the trees"],
            "critical_good": ["are", "is"],
            "critical_bad": ["is", "are"],
            "bin": [3, 7],
            "paradigm": ["attractor", "attractor"],
        }
    )
    sites = pa.table({"left": ["*MOT: look at"], "right": [" dog ."], "noun": ["dog"]})
    if kind == "missing-column":
        prefix = prefix.drop(columns=["critical_bad"])
    name = "Bad Name" if kind == "bad-name" else "lt-prefix"
    if kind == "crash":
        raise KeyError("boom")
    return [
        ReleaseConfig(
            name=name,
            table=prefix,
            description="Prefix pairs.",
            task="prefix_pairs",
            funnel={"read": 5, "dropped:unseen": 3, "kept": 2},
            bins={"[2,4)": 1, "[64,128)": 1},
            prompt_hashes={"ltswap/filter.v1": "ab" * 32},
            roles={"bin": "bin", "group": "paradigm"},
            model={"model": "smollm2-135m-instruct", "temperature": 0.0},
        ),
        ReleaseConfig(name="sites", table=sites, description="Determiner sites.", task="other"),
    ]


generators.register("test-custom", _custom)


def test_plugin_interface_prefix_and_other_tasks(tmp_path: Path) -> None:
    gens = [
        {"name": "test-custom", "id": "custom"},
        {"name": "minimal-pairs", "id": "fixture", "params": {"path": str(PAIRS)}},
    ]
    out = build(
        tmp_path,
        families=gens,
        llm={
            "model": "smollm2-135m-instruct",
            "backend": "transformers",
            "sampling": {"temperature": 0.0, "seed": 1},
        },
    )
    manifest = json.loads((out / "provenance.json").read_text())
    assert [c["name"] for c in manifest["configs"]] == [
        "lt-prefix",
        "sites",
        "agreement",
        "anaphora",
        "determiners",
    ]
    prefix = manifest["configs"][0]
    assert prefix["roles"] == {
        "bad": "critical_bad",
        "bin": "bin",
        "good": "critical_good",
        "group": "paradigm",
        "prefix": "prefix",
    }
    assert manifest["prompt_hashes"] == {"ltswap/filter.v1": "ab" * 32}
    files = set(tree(out))
    assert (
        "lm_eval/test_pairs/_template_prefix_yaml" in files and "lm_eval/test_pairs/lt-prefix.yaml" in files
    )
    assert "lm_eval/test_pairs/sites.yaml" not in files and "babylm/sites.jsonl" not in files
    assert "babylm/lt-prefix.jsonl" not in files  # no full sentences to export
    card = (out / "README.md").read_text()
    for needle in (
        "dropped:unseen",
        "[64,128)",
        "ltswap/filter.v1",
        "smollm2-135m-instruct",
        '"temperature": 0.0',
    ):
        assert needle in card


@pytest.mark.parametrize(
    ("kind", "error", "message"),
    [
        ("missing-column", ConfigError, "config 'lt-prefix': missing column 'critical_bad'"),
        ("bad-name", ConfigError, "config names must be lowercase"),
        ("crash", RuntimeError, "generator 'custom' (test-custom) failed"),
    ],
)
def test_plugin_errors_name_generator_and_config(
    tmp_path: Path, kind: str, error: type, message: str
) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        build(tmp_path, families=[{"name": "test-custom", "id": "custom", "params": {"kind": kind}}])
    assert not (tmp_path / "build" / "test-pairs" / "0.1.0").exists()


def test_duplicate_config_names_are_refused(tmp_path: Path) -> None:
    gens = [
        {"name": "minimal-pairs", "id": "one", "params": {"path": str(PAIRS)}},
        {"name": "minimal-pairs", "id": "two", "params": {"path": str(PAIRS)}},
    ]
    with pytest.raises(ConfigError, match="produced twice"):
        build(tmp_path, families=gens)
    gens[1]["params"]["config_prefix"] = "copy-"
    out = build(tmp_path, families=gens)
    assert (out / "data/copy-agreement/test-00000-of-00001.parquet").exists()


def test_missing_stats_folder_is_named_at_build_time(tmp_path: Path) -> None:
    corpora = {"genesis": {"path": str(CORPUS), "language": "en", "stats": str(tmp_path / "no-stats")}}
    spec = ReleaseSpec.load(write_spec(tmp_path, corpora=corpora))  # loading a spec needs no built inputs
    with pytest.raises(InputError, match=r"corpora\.genesis\.stats: .* is not a corpusbench stats folder"):
        build_release(spec, tmp_path / "build")
    assert not (tmp_path / "build").exists() or not any((tmp_path / "build").rglob("provenance.json"))


def test_missing_corpus_is_named_at_build_time(tmp_path: Path) -> None:
    """A corpus made by an earlier step (e.g. `make frames-demo`) may be absent when the spec is loaded."""
    corpora = {"genesis": {"path": "not/built/yet", "language": "en"}}
    spec = ReleaseSpec.load(write_spec(tmp_path, corpora=corpora))
    with pytest.raises(InputError, match=r"corpora\.genesis\.path: 'not/built/yet' does not exist"):
        build_release(spec, tmp_path / "build")
    assert not (tmp_path / "build").exists() or not any((tmp_path / "build").rglob("provenance.json"))


def test_a_failed_build_leaves_no_empty_folders(tmp_path: Path) -> None:
    """The generator fails on its data: nothing of the build stays in a fresh --out (no .work/, no
    empty NAME/ folder), and the error names its cause."""
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"good": "a", "bad": "b"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="needs columns"):
        build(tmp_path, overrides={"families.fixture.params.path": str(broken)})
    assert not (tmp_path / "build").exists()


CALLS: list[str] = []


def _caching(ctx: GeneratorContext) -> list[ReleaseConfig]:
    (ctx.work_dir / "cache.json").write_text("{}")
    raise InputError("the LLM server went away")


def _refusing(ctx: GeneratorContext) -> list[ReleaseConfig]:
    raise ConfigError(f"families.{ctx.generator.id}.params.kind: not a kind")


def _counting(ctx: GeneratorContext) -> list[ReleaseConfig]:
    CALLS.append(ctx.generator.id)
    return []


generators.register("test-caching", _caching)
generators.register("test-refusing", _refusing)
generators.register("test-counting", _counting)


def test_a_kept_cache_survives_a_failed_build(tmp_path: Path) -> None:
    """A generator's work folder with something in it (its cache) is not removed by the cleanup."""
    with pytest.raises(InputError, match="went away"):
        build(tmp_path, families=[{"name": "test-caching", "id": "c"}])
    assert (tmp_path / "build" / ".work" / "test-pairs" / "c" / "cache.json").is_file()
    assert not (tmp_path / "build" / "test-pairs").exists()


def test_errors_about_spec_fields_name_the_spec_file(tmp_path: Path) -> None:
    corpora = {"genesis": {"path": "not/built/yet", "language": "en"}}
    path = write_spec(tmp_path, corpora=corpora)
    with pytest.raises(InputError) as info:
        build_release(ReleaseSpec.load(path), tmp_path / "build")
    assert str(info.value).startswith(f"{path}: corpora.genesis.path: 'not/built/yet' does not exist")
    path = write_spec(tmp_path, families=[{"name": "test-refusing", "id": "r"}])
    with pytest.raises(ConfigError) as info:
        build_release(ReleaseSpec.load(path), tmp_path / "build")
    assert str(info.value) == f"{path}: families.r.params.kind: not a kind"


@pytest.mark.parametrize("where", ["out", "parent"])
def test_out_that_is_a_file_is_one_error_before_any_work(tmp_path: Path, where: str) -> None:
    CALLS.clear()
    blocker = tmp_path / "taken"
    blocker.write_text("a file")
    out = blocker if where == "out" else blocker / "sub"
    spec = ReleaseSpec.load(write_spec(tmp_path, families=[{"name": "test-counting", "id": "n"}]))
    with pytest.raises(InputError, match=r"taken: is a file, not a folder"):
        build_release(spec, out)
    assert CALLS == [] and blocker.read_text() == "a file"


def test_cli_spec_error_before_any_work(tmp_path: Path) -> None:
    """`release build` with a bad ltswap key after a fitclams generator: one line, exit 2, and no
    folder created (the spec is checked whole before FIT-CLAMS would run)."""
    gens = [
        {"name": "fitclams", "corpus": "genesis"},
        {"name": "ltswap", "corpus": "genesis", "params": {"threshold": 0.1}},
    ]
    path = write_spec(tmp_path, families=gens, llm={"model": "m", "backend": "vllm-server"})
    res = run_cli("release", "build", str(path), "--out", str(tmp_path / "build"))
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}: unknown key families.ltswap.params.threshold" in lines[0]
    assert "reuse_run" in lines[0] and not (tmp_path / "build").exists()
