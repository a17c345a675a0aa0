"""One CLI grammar: --version, explicit subcommands, one spelling per option (0.1.0 keeps no old ones)."""

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


def test_frames_help_names_every_subcommand() -> None:
    res = _run("frames", "--help")
    assert res.exit_code == 0
    commands = res.output.split("Commands")[1]
    assert "build" in commands and "split" in commands
    assert "generate" not in commands and " eval " not in commands
    assert "eval clusters" in _flat(res.output)  # where clusterings are scored


def test_frames_build_needs_its_stats(tmp_path: Path) -> None:
    missing = _run("frames", "build", str(tmp_path / "c.txt"), "--out", str(tmp_path / "out"))
    assert missing.exit_code == 2 and "--stats" in _flat(missing.output)


#: Old spellings that 0.1.0 dropped (CHANGELOG): each is now a usage error, no command runs.
DROPPED = (
    (["frames", "generate"], "No such command"),
    (["frames", "eval"], "No such command"),
    (["frames", "c.txt", "--stats", "s"], "No such command"),
    (["frames", "build", "c.txt", "--train-vocab", "s"], "No such option"),
    (["fitclams", "--corpus", "x=y"], "No such option"),
    (["fitclams", "build", "--stats-dir", "s"], "No such option"),
    (["cac", "run", "t.cha"], "No such command"),
    (["cac", "t.cha"], "No such command"),
    (["eval", "report", "r"], "No such command"),
    (["eval", "--dataset", "d", "--model", "m"], "No such option"),
    (["ltswap", "corpus.txt", "--out", "o"], "No such command"),
    (["ltswap", "build", "c", "--out", "o", "--model", "m"], "No such option"),
    (["ltswap", "build", "c", "--out", "o", "--base-url", "u"], "No such option"),
    (["ltswap", "judge", "i.jsonl", "--out", "o", "--cache", "c"], "No such option"),
    (["llm", "generate", "hi", "--backend", "openai"], "No such option"),
    (["llm", "generate", "hi", "--model", "m"], "No such option"),
    (["llm", "serve", "--model", "m"], "No such option"),
    (["llm", "ping", "--base-url", "u"], "No such option"),
)


def test_the_old_spellings_are_gone(tmp_path: Path) -> None:
    for argv, error in DROPPED:
        res = runner.invoke(app, argv, env={"COLUMNS": "200"})
        assert res.exit_code == 2 and error in res.output, (argv, res.output)
        assert "deprecated" not in res.output.lower()


def test_fitclams_build_takes_the_shared_llm_options() -> None:
    help_text = _flat(_run("fitclams", "build", "--help").output)
    assert "--stats " in help_text and "--stats-dir" not in help_text
    for option in ("--llm-backend", "--llm-model", "--llm-base-url", "--llm-api-key"):
        assert option in help_text, option


def test_llm_commands_take_the_generators_llm_options(tmp_path: Path) -> None:
    res = _run("llm", "generate", "hi", "--llm-backend", "nonsense", "--llm-model", "m", "--no-llm-cache")
    assert res.exit_code != 0 and "unknown LLM backend 'nonsense'" in _flat(res.output)


def test_compare_is_the_comparison() -> None:
    commands = _run("eval", "--help").output.split("Commands")[1]
    assert "report" not in commands and "run" in commands and "clusters" in commands


def test_audit_help_names_the_real_models_folder() -> None:
    res = _run("audit", "--help")
    assert res.exit_code == 0
    assert "releases/build/.baselines" in _flat(res.output)


LLM_COMMANDS = (
    ("ltswap", "build"),
    ("ltswap", "judge"),
    ("ltswap", "judge-check"),
    ("fitclams", "build"),
    ("llm", "generate"),
    ("llm", "choose"),
)


def test_every_llm_command_spells_the_llm_options_the_same() -> None:
    """The shared `--llm-*` options (corpusbench.llm.options) in every command that talks to an LLM, and
    no `--model`: that is the model under test (eval) only."""
    from corpusbench.llm.options import LLMModel

    model_help = " ".join(LLMModel.__metadata__[0].help.split())
    for cmd in LLM_COMMANDS:
        help_text = " ".join(runner.invoke(app, [*cmd, "--help"], env={"COLUMNS": "300"}).output.split())
        for option in ("--llm-backend", "--llm-model", "--llm-base-url", "--llm-api-key"):
            assert option in help_text, (cmd, option)
        assert "--model " not in help_text and "--base-url" not in help_text.replace("--llm-base-url", ""), (
            cmd
        )
        assert model_help[:60] in _flat(help_text), cmd  # one help text, declared once


def test_eval_run_model_is_the_model_under_test() -> None:
    help_text = _flat(runner.invoke(app, ["eval", "run", "--help"], env={"COLUMNS": "200"}).output)
    assert "--model" in help_text and "--llm-model" not in help_text
