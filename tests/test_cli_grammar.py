"""One CLI grammar: --version, explicit subcommands, old spellings kept as deprecated aliases."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from corpusbench import __version__
from corpusbench.cli import app

runner = CliRunner()


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def _flat(text: str) -> str:
    """Help text without Rich's box characters and line wraps."""
    return " ".join(text.replace("│", " ").split())


def test_version() -> None:
    res = _run("--version")
    assert res.exit_code == 0 and res.output.strip() == f"corpusbench {__version__}"


def test_frames_help_names_every_subcommand_and_no_alias() -> None:
    res = _run("frames", "--help")
    assert res.exit_code == 0
    commands = res.output.split("Commands")[1]
    assert "build" in commands and "split" in commands
    assert "generate" not in commands and " eval " not in commands  # deprecated spellings stay hidden
    assert "eval clusters" in _flat(res.output)  # where clusterings are scored now


def test_frames_old_spellings_run_frames_build(tmp_path: Path) -> None:
    corpus = tmp_path / "test.txt"
    corpus.write_text("The cat sat on the mat.\n", encoding="utf-8")
    stats, out = str(tmp_path / "no-stats"), ["--out", str(tmp_path / "out")]
    new = _run("frames", "build", str(corpus), "--stats", stats, *out)
    assert new.exit_code == 2 and "not a corpusbench stats folder" in new.output
    assert "deprecated" not in new.output
    old_vocab = [str(corpus), "--train-vocab", stats, *out]
    for old in (["frames", *old_vocab], ["frames", "generate", *old_vocab], ["frames", "build", *old_vocab]):
        res = _run(*old)
        assert res.exit_code == 2, res.output
        assert "deprecated: `--train-vocab` is an old spelling; use `--stats`" in res.output
        assert new.output.strip().splitlines()[-1] in res.output  # the same command ran
    assert "corpusbench frames build" in _run("frames", *old_vocab).output
    assert not (tmp_path / "out").exists()


def test_frames_build_needs_its_stats_once(tmp_path: Path) -> None:
    common = [str(tmp_path / "c.txt"), "--out", str(tmp_path / "out")]
    missing = _run("frames", "build", *common)
    assert missing.exit_code == 2 and "--stats" in _flat(missing.output)
    twice = _run("frames", "build", *common, "--stats", "a", "--train-vocab", "b")
    assert twice.exit_code == 2 and "given twice" in _flat(twice.output)


def test_fitclams_build_is_the_command_and_the_flat_spelling_an_alias(tmp_path: Path) -> None:
    args = ["--corpus", f"x={tmp_path / 'none'}", "--lang", "en", "--out", str(tmp_path / "out")]
    new = _run("fitclams", "build", *args, "--stats", str(tmp_path / "s"))
    assert new.exit_code == 2 and "no such file or folder" in new.output and "deprecated" not in new.output
    old = _run("fitclams", *args, "--stats-dir", str(tmp_path / "s"))
    assert old.exit_code == 2, old.output
    assert "use `corpusbench fitclams build --corpus ...`" in old.output
    assert "deprecated: `--stats-dir` is an old spelling; use `--stats`" in old.output
    assert new.output.strip().splitlines()[-1] in old.output
    help_text = _flat(_run("fitclams", "build", "--help").output)
    assert "--stats " in help_text and "--stats-dir" not in help_text  # the old spelling stays hidden
    assert "--llm-backend" in help_text and "--llm-model" in help_text


def test_llm_commands_take_the_generators_llm_options(tmp_path: Path) -> None:
    res = _run("llm", "generate", "hi", "--llm-backend", "nonsense", "--llm-model", "m", "--no-cache")
    assert res.exit_code != 0 and "unknown LLM backend 'nonsense'" in _flat(res.output)


def test_compare_is_the_comparison_and_eval_report_its_old_spelling(tmp_path: Path) -> None:
    res = _run("eval", "report", str(tmp_path))
    assert res.exit_code == 2 and "not an eval output folder" in res.output
    assert "deprecated: `corpusbench eval report` is an old spelling; use `corpusbench compare`" in res.output
    commands = _run("eval", "--help").output.split("Commands")[1]
    assert "report" not in commands and "run" in commands


def test_every_old_spelling_prints_one_deprecation_line(tmp_path: Path) -> None:
    """One mechanism: each old spelling prints `deprecated: `OLD` is an old spelling; use `NEW``."""
    cha = tmp_path / "t.cha"
    cha.write_text("@Begin\n@End\n", encoding="utf-8")
    for old in (
        ["cac", str(cha), "--out", str(tmp_path / "c1")],
        ["cac", "run", str(cha), "--out", str(tmp_path / "c2")],
        ["eval", "--dataset", str(tmp_path / "none"), "--model", "m"],
        ["frames", "eval", "--frames", str(tmp_path)],
    ):
        res = _run(*old)
        lines = [ln for ln in res.output.splitlines() if "deprecat" in ln.lower()]
        assert len(lines) == 1 and lines[0].startswith("deprecated: `"), (old, res.output)
        assert "is an old spelling; use `corpusbench " in lines[0], lines[0]


def test_frames_eval_is_eval_clusters(tmp_path: Path) -> None:
    new = _run("eval", "clusters", "--frames", str(tmp_path))
    old = _run("frames", "eval", "--frames", str(tmp_path))
    assert new.exit_code == old.exit_code == 2
    assert "nothing to evaluate" in new.output and "deprecated" not in new.output
    assert "deprecated" in old.output and "corpusbench eval clusters" in old.output
    assert new.output.strip().splitlines()[-1] in old.output


def test_audit_help_names_the_real_models_folder() -> None:
    res = _run("audit", "--help")
    assert res.exit_code == 0
    assert "releases/build/.baselines" in _flat(res.output)


def test_every_llm_command_spells_the_backend_and_model_the_same() -> None:
    """`--llm-backend`/`--llm-model` in every command that talks to an LLM (older spellings may stay)."""
    for cmd in (("ltswap", "build"), ("ltswap", "judge"), ("ltswap", "judge-check"), ("fitclams", "build")):
        help_text = _flat(_run(*cmd, "--help").output)
        assert "--llm-backend" in help_text and "--llm-model" in help_text, cmd
