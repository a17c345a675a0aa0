"""Licences carried from corpora to configs and card; refusal of a too-permissive release; rebuild safety."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_spec

from corpusbench.errors import ConfigError, InputError
from corpusbench.publish.build import build_release
from corpusbench.publish.licences import most_restrictive, why_not
from corpusbench.publish.spec import ReleaseSpec

CHILDES = "cc-by-nc-sa-3.0"
CREDIT = "CHILDES Brown corpus (Brown 1973; MacWhinney 2000)"


@pytest.mark.parametrize(
    ("source", "release", "ok"),
    [
        ("public-domain", "cc-by-4.0", True),
        ("public-domain", "cc0-1.0", True),
        ("cc-by-4.0", "cc-by-nc-sa-3.0", True),
        ("cc-by-4.0", "cc0-1.0", False),  # attribution dropped
        ("mit", "cc-by-4.0", True),
        (CHILDES, CHILDES, True),
        (CHILDES, "cc-by-nc-sa-4.0", True),  # a later version of the same licence
        (CHILDES, "cc-by-4.0", False),
        (CHILDES, "cc-by-sa-4.0", False),  # non-commercial dropped
        (CHILDES, "cc-by-nc-4.0", False),  # share-alike dropped
        ("cc-by-nc-sa-4.0", CHILDES, False),  # an earlier version
        ("cc-by-nd-4.0", "cc-by-nd-4.0", False),  # no derivatives: no benchmark at all
        ("other", "other", True),
        ("other", "cc-by-4.0", False),  # unknown terms: only the same id
    ],
)
def test_why_not(source: str, release: str, ok: bool) -> None:
    assert (why_not(source, release) is None) is ok


def test_most_restrictive() -> None:
    assert most_restrictive(["public-domain", CHILDES, "cc-by-4.0"]) == CHILDES
    assert most_restrictive(["public-domain", "mit"]) == "mit"
    assert most_restrictive([]) is None


def _childes_corpus(tmp_path: Path) -> dict:
    return {
        "genesis": {
            "path": str(Path(__file__).parents[1] / "data" / "genesis_40.txt"),
            "language": "en",
            "license": CHILDES,
            "attribution": CREDIT,
        }
    }


def test_release_build_refuses_a_more_permissive_licence(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, corpora=_childes_corpus(tmp_path), license="cc-by-4.0")
    done = run_cli("release", "build", str(spec), "--out", str(tmp_path / "build"))
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "more permissive than corpus 'genesis' allows" in lines[0]
    assert f"declare license: {CHILDES}" in lines[0]
    assert not (tmp_path / "build").exists()
    with pytest.raises(ConfigError, match="share-alike"):
        ReleaseSpec.load(spec)


def test_licence_carried_to_configs_card_and_provenance(tmp_path: Path) -> None:
    spec = ReleaseSpec.load(write_spec(tmp_path, corpora=_childes_corpus(tmp_path), license=CHILDES))
    out = build_release(spec, tmp_path / "build").path
    manifest = json.loads((out / "provenance.json").read_text())
    for cfg in manifest["configs"]:
        assert cfg["licence"]["license"] == CHILDES
        assert cfg["licence"]["sources"] == [{"corpus": "genesis", "license": CHILDES, "attribution": CREDIT}]
    card = (out / "README.md").read_text()
    assert f"license: {CHILDES}" in card  # Hub metadata
    assert "## Licence" in card and f"distributed under **{CHILDES}**" in card
    assert f"genesis ({CHILDES})" in card and f"- genesis: {CREDIT}" in card


def test_undeclared_corpus_licence_is_said_in_the_card(built: Path) -> None:
    card = (built / "README.md").read_text()
    assert "declares no licence for corpus/corpora genesis" in card


def test_rebuild_refuses_then_force_keeps_or_removes_the_audit(tmp_path: Path) -> None:
    path = write_spec(tmp_path)
    first = build_release(ReleaseSpec.load(path), tmp_path / "build").path
    audit = {
        "kind": "corpusbench.audit",
        "release_fingerprint": json.loads((first / "provenance.json").read_text())["release_fingerprint"],
        "baselines": ["ngram-word"],
        "descriptions": {"ngram-word": "a 3-gram word model"},
        "threshold": 0.9,
        "order": 3,
        "scoring": "summed log-probability",
        "configs": {"agreement": {"n": 4, "accuracy": {"ngram-word": 0.5}, "solved_by": []}},
    }
    (first / "audit.json").write_text(json.dumps(audit))
    before = sorted(p.name for p in first.iterdir())

    with pytest.raises(InputError, match=r"exists: .* --force"):
        build_release(ReleaseSpec.load(path), tmp_path / "build")
    assert sorted(p.name for p in first.iterdir()) == before
    done = run_cli("release", "build", str(path), "--out", str(tmp_path / "build"))
    assert done.returncode == 2 and "--force" in done.stderr

    same = build_release(ReleaseSpec.load(path), tmp_path / "build", force=True)  # same data: audit kept
    assert json.loads((same.path / "audit.json").read_text()) == audit
    assert "## How far shallow baselines get" in (same.path / "README.md").read_text()
    assert any("kept audit.json" in n for n in same.notes)

    changed = ReleaseSpec.load(path, overrides={"seed": 11, "families.fixture.params.max_pairs": 1})
    done = build_release(changed, tmp_path / "build", force=True)  # data changed: audit removed, said so
    assert not (done.path / "audit.json").exists()
    assert "## How far shallow baselines get" not in (done.path / "README.md").read_text()
    assert any("removed audit.json" in n and "corpusbench audit" in n for n in done.notes)
