"""Linear heuristics on hand-made pairs, and `corpusbench audit` on a small locally built release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from corpusbench import heuristics as h
from corpusbench.baselines.audit import AuditParams, run_audit
from corpusbench.publish.build import build_release, verify_build
from corpusbench.publish.render import write_release_files
from corpusbench.publish.spec import ReleaseSpec

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(
    ("rule", "good", "bad", "spans", "expected"),
    [
        (h.agree_first_noun, "the artist angers", "the artists angers", ((11, 17), (12, 18)), 1.0),
        (h.agree_first_noun, "the artists anger", "the artist anger", ((12, 17), (11, 16)), 1.0),
        # long-distance, linear: the first noun decides, the attractor is ignored
        (
            h.agree_first_noun,
            "the author near the guards laughs",
            "the author near the guards laugh",
            None,
            1.0,
        ),
        (
            h.agree_previous_word,
            "the author near the guards laughs",
            "the author near the guards laugh",
            None,
            0.0,
        ),
        (h.agree_first_noun, "the men laugh", "the men laughs", None, 0.0),  # irregular plural defeats -s
        (h.det_noun_s, "these dogs bark", "these dog bark", None, 1.0),
        (h.det_noun_s, "this dog barks", "this dogs barks", None, 1.0),
        (h.prefer_s, "the dog barks", "the dog bark", None, 1.0),
        (h.shorter, "the dog barks", "the dog barks loud", None, 1.0),
        (h.shorter, "the dog barks", "the dog bark", None, 0.5),  # a tie: the rule cannot tell
    ],
)
def test_rules_on_hand_made_pairs(rule, good, bad, spans, expected) -> None:  # type: ignore[no-untyped-def]
    gs, bs = spans or (None, None)
    assert h.pair_score(rule, good, bad, gs, bs) == expected


def test_frequency_rule_prefers_frequent_words() -> None:
    rule = h.frequency_rule({"the": 100, "dog": 10, "dogs": 2, "barks": 5, "bark": 5})
    assert h.pair_score(rule, "the dog barks", "the dogs barks") == 1.0
    assert h.word_at("the dog barks", 8) == 2 and h.first_difference(["a", "b"], ["a", "c"]) == 1


def _build(tmp: Path) -> Path:
    spec = {
        "name": "audit-test",
        "version": "0.1.0",
        "repo_id": "tester/audit-test",
        "pretty_name": "Audit test",
        "description": "Minimal pairs for the audit test.",
        "seed": 1,
        "corpora": {"genesis": {"path": str(DATA / "genesis_40.txt"), "language": "en"}},
        "families": [
            {
                "name": "minimal-pairs",
                "id": "fixture",
                "corpus": "genesis",
                "params": {"path": str(DATA / "publish" / "pairs.jsonl"), "group_column": "UID"},
            }
        ],
    }
    path = tmp / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return build_release(ReleaseSpec.load(path), tmp / "build").path


@pytest.mark.slow
def test_audit_writes_json_and_card_section_and_reuses_models(tmp_path: Path) -> None:
    release = _build(tmp_path)
    messages: list[str] = []
    result = run_audit(release, AuditParams(order=3), models=tmp_path / "models", say=messages.append)
    assert any(m.startswith("training 3-gram") for m in messages)
    audit = json.loads((release / "audit.json").read_text())
    assert audit == json.loads(json.dumps(result))
    assert (
        audit["release_fingerprint"]
        == json.loads((release / "provenance.json").read_text())["release_fingerprint"]
    )
    rows = {c["name"]: c["rows"] for c in json.loads((release / "provenance.json").read_text())["configs"]}
    assert {n: c["n"] for n, c in audit["configs"].items()} == rows  # every pair of every config
    card = (release / "README.md").read_text()
    assert "## How far shallow baselines get" in card
    for name, cfg in audit["configs"].items():
        assert set(cfg["accuracy"]) == set(audit["baselines"])
        for b, acc in cfg["accuracy"].items():
            assert 0.0 <= acc <= 1.0, b
        assert cfg["accuracy"]["oracle"] >= max(cfg["accuracy"]["ngram-word"], cfg["accuracy"]["ngram-tag"])
        assert "oracle" not in cfg["solved_by"]
        assert all(cfg["accuracy"][b] > 0.9 for b in cfg["solved_by"])
        assert f"| `{name}` | {cfg['n']} |" in card
    agreement = next(c for n, c in audit["configs"].items() if n.endswith("agreement"))
    # cat sleeps / dogs bark / child is / birds sing: "-s on the noun xor on the verb" solves them all
    assert agreement["accuracy"]["agree-first-noun"] == 1.0 and "agree-first-noun" in agreement["solved_by"]
    assert audit["models"]["genesis"]["word"]["arch"] == "ngram-word"
    flagged = any(c["solved_by"] for c in audit["configs"].values())
    assert ("Solved by a shallow baseline" in card) == flagged
    verify_build(release)  # the data is untouched

    # a re-targeted re-render (as `release push --repo-id` does) keeps the section
    manifest = json.loads((release / "provenance.json").read_text())
    write_release_files(release, {**manifest, "release": {**manifest["release"], "repo_id": "other/x"}})
    assert "## How far shallow baselines get" in (release / "README.md").read_text()

    messages.clear()
    again = run_audit(release, AuditParams(order=3), models=tmp_path / "models", say=messages.append)
    assert any(m.startswith("reusing") for m in messages)
    assert again["configs"] == result["configs"]


def test_audit_rejects_bad_options_before_any_work(tmp_path: Path) -> None:
    from corpusbench.errors import ConfigError, InputError

    with pytest.raises(ConfigError, match="scoring"):
        run_audit(tmp_path, AuditParams(scoring="sideways"))
    with pytest.raises(InputError):
        run_audit(tmp_path / "missing", AuditParams())
    assert not (tmp_path / "audit.json").exists()


class _LengthScorer:
    """An n-gram stand-in: log-prob = minus the number of words (``words``) or characters (``chars``)."""

    def __init__(self, unit: str) -> None:
        self.unit = unit

    def score(self, texts: list[str], spans: list) -> list[tuple[float, int]]:
        return [(-float(len(t.split()) if self.unit == "words" else len(t)), 1) for t in texts]


def test_audit_ties_one_convention_per_baseline_kind() -> None:
    """Models (n-grams, oracle) score a tie 0, as `corpusbench eval` does; rules abstain on a tie and score
    0.5 (docs/baselines.md). Every accuracy comes with the tie share and both readings."""
    import pandas as pd

    from corpusbench.baselines.audit import audit_config, tie_convention
    from corpusbench.publish.render import audit_view

    good, bad = ["the dog barks", "the dogs bark"], ["the dogs barks", "the dog bark"]
    df = pd.DataFrame({"sentence_good": good, "sentence_bad": bad})
    cfg = {"name": "agr", "roles": {"good": "sentence_good", "bad": "sentence_bad"}}
    scorers = {"word": _LengthScorer("words"), "tag": _LengthScorer("chars")}
    c = audit_config(cfg, df, scorers, {})  # type: ignore[arg-type]
    # equal word counts: the word model ties on both pairs -> 0 (a model), tie share 1
    assert (c["accuracy"]["ngram-word"], c["ties"]["ngram-word"]) == (0.0, 1.0)
    assert c["accuracy_ties_half"]["ngram-word"] == 0.5 and tie_convention("ngram-word") == "model"
    # characters: right on the first pair, wrong on the second; the oracle counts either model's win
    assert c["accuracy"]["ngram-tag"] == 0.5 and c["ties"]["ngram-tag"] == 0.0
    assert c["accuracy"]["oracle"] == 0.5 and c["ties"]["oracle"] == 0.0
    # "shorter" cannot tell equal-length sentences apart: a rule abstains, 0.5 (it was printed 0.000)
    shorter = (c["accuracy"]["shorter"], c["ties"]["shorter"], c["accuracy_strict"]["shorter"])
    assert shorter == (0.5, 1.0, 0.0)
    audit = {
        "baselines": ["ngram-word", "shorter"],
        "threshold": 0.9,
        "descriptions": {},
        "order": 5,
        "scoring": "",
        "configs": {"agr": {**c, "solved_by": []}},
        "tie_convention": {"ngram-word": "model", "shorter": "rule"},
        "tie_conventions": {"model": "0", "rule": "0.5"},
    }
    assert audit_view(audit)["rows"][0]["cells"] == ["0.00 (100% ties)", "0.50 (100% ties)"]
