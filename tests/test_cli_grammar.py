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
    common = [str(corpus), "--train-vocab", str(tmp_path / "no-stats"), "--out", str(tmp_path / "out")]
    new = _run("frames", "build", *common)
    assert new.exit_code == 2 and "not a corpusbench stats folder" in new.output
    assert "deprecated" not in new.output
    for old in (["frames", *common], ["frames", "generate", *common]):
        res = _run(*old)
        assert res.exit_code == 2, res.output
        assert "deprecated" in res.output and "corpusbench frames build" in res.output
        assert new.output.strip().splitlines()[-1] in res.output  # the same command ran
    assert not (tmp_path / "out").exists()


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
