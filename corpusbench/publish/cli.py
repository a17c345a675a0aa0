"""``corpusbench release build|push|check``: thin wrappers over ``corpusbench.publish``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console

release_app = typer.Typer(
    name="release", help="Build, publish and check versioned Hugging Face releases.", no_args_is_help=True
)
out = make_console()
err = make_console(stderr=True)


def register(app: typer.Typer) -> None:
    app.add_typer(release_app, name="release")


@release_app.command("build")
def build(
    spec: Path = typer.Argument(..., help="Release spec YAML (releases/NAME.yaml)."),
    out_dir: Path = typer.Option(Path("releases/build"), "--out", "-o", help="Root of the build folders."),
    set_: list[str] = typer.Option([], "--set", help="Dotted override, e.g. --set seed=7 (repeatable)."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Rebuild an existing version folder (its audit is kept if the data is unchanged, else removed).",
    ),
) -> None:
    """Run the spec's generators and write releases/build/NAME/VERSION/ (data, card, provenance, evals).

    Refuses when that version was built before, unless --force."""
    from corpusbench.publish.build import build_release
    from corpusbench.publish.spec import ReleaseSpec, parse_override_args

    release_spec = ReleaseSpec.load(spec, overrides=parse_override_args(set_))
    with err.status(f"building {release_spec.name} {release_spec.tag}") as status:
        result = build_release(release_spec, out_dir, on_event=lambda msg: status.update(msg), force=force)
    table = Table(title=f"{release_spec.name} {release_spec.tag} → {result.path}")
    for col in ("config", "task", "rows", "kept/read", "content sha256"):
        table.add_column(col, justify="right" if col == "rows" else "left")
    for c in result.configs:
        funnel = dict(c["funnel"])
        kept = f"{funnel['kept']}/{funnel['read']}" if {"kept", "read"} <= set(funnel) else "-"
        table.add_row(c["name"], c["task"], str(c["rows"]), kept, c["content_fingerprint"][:16])
    out.print(table)
    for note in result.notes:
        out.print(f"[yellow]note:[/] {note}")


@release_app.command("push")
def push(
    build_dir: Path = typer.Argument(..., help="A build folder: releases/build/NAME/VERSION."),
    repo_id: str | None = typer.Option(
        None, "--repo-id", help="ORG/NAME on the Hub (default: the spec's repo_id)."
    ),
    private: bool = typer.Option(False, "--private", help="Create the repo as private."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Check and list what would be pushed; contact no server."
    ),
) -> None:
    """Push a build as one commit, verify it round-trips, then tag it vVERSION (refused if the tag exists)."""
    from corpusbench.publish.hub import push_release

    _quiet_datasets()
    with err.status("pushing") as status:
        result = push_release(
            build_dir,
            repo_id=repo_id,
            private=private,
            dry_run=dry_run,
            on_event=lambda msg: status.update(msg),
        )
    if result.dry_run:
        table = Table(
            title=f"dry run: {result.repo_id} {result.tag} ({len(result.files)} files, {result.n_bytes} B)"
        )
        table.add_column("file")
        for f in result.files:
            table.add_row(f)
        out.print(table)
        return
    if result.check is not None:
        _print_check(result.check)
    config = result.check.configs[0].name if result.check and result.check.configs else "CONFIG"
    out.print(f"[green]pushed[/] {result.repo_id} {result.tag} (commit {result.commit}) to {result.endpoint}")
    out.print(f'load it: load_dataset("{result.repo_id}", "{config}", revision="{result.tag}", split="test")')


@release_app.command("check")
def check(
    repo_id: str = typer.Argument(..., help="ORG/NAME on the Hub."),
    revision: str = typer.Option(..., "--revision", "-r", help="The release tag, e.g. v1.0.0."),
    build_dir: Path | None = typer.Option(
        None, "--build", help="Compare with this local build instead of the repo's own provenance.json."
    ),
) -> None:
    """Load every config of a published release at REVISION and compare its content fingerprints."""
    from corpusbench.publish.hub import check_release

    _quiet_datasets()
    with err.status(f"loading {repo_id}@{revision}"):
        result = check_release(repo_id, revision, build_dir=build_dir)
    _print_check(result)
    if not result.ok:
        raise typer.Exit(1)


def _quiet_datasets() -> None:
    """datasets' own progress bars would break the rich status line."""
    import datasets

    datasets.disable_progress_bars()


def _print_check(result: object) -> None:
    from corpusbench.publish.hub import CheckResult

    assert isinstance(result, CheckResult)
    table = Table(
        title=f"round trip {result.repo_id}@{result.revision} (commit {(result.commit or '?')[:12]})"
    )
    for col in ("config", "rows", "expected", "fingerprint", "ok"):
        table.add_column(col)
    for c in result.configs:
        table.add_row(
            c.name,
            str(c.rows),
            str(c.expected_rows),
            c.fingerprint[:16],
            "[green]yes[/]" if c.ok else "[red]NO[/]",
        )
    out.print(table)
    for f in result.missing_files:
        out.print(f"[red]missing in the repo:[/] {f}")
