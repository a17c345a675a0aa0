"""``corpusbench review PATH`` (the page) and ``corpusbench review report PATH``: thin wrappers."""

from __future__ import annotations

from pathlib import Path

import typer

from corpusbench.console import make_console

out = make_console()
err = make_console(stderr=True)


class _ReviewGroup(typer.core.TyperGroup):
    """``review PATH ...`` means ``review open PATH ...`` (the page is the group's main verb)."""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["open", *args]
        return super().parse_args(ctx, args)


review_app = typer.Typer(
    cls=_ReviewGroup,
    name="review",
    help="Label a sample of a release's or run's items in a local web page; report what the labels say.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")


def _csv(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


@review_app.command("open")
def open_(
    path: Path = typer.Argument(
        ..., help="A release folder (releases/build/NAME/VERSION) or a family's run folder."
    ),
    reviewer: str = typer.Option(
        ..., "--reviewer", help="Your name: labels go to PATH/review/labels-NAME.jsonl."
    ),
    sample: int = typer.Option(40, "--sample", help="Benchmark items to label, spread evenly over cells."),
    rejected: int = typer.Option(
        20, "--rejected", help="The judge's rejected drafts to mix in (blind), when the run has them."
    ),
    rejected_from: Path | None = typer.Option(
        None,
        "--rejected-from",
        help="A run folder whose rejected drafts to mix in (default: PATH if a run).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample and of the sentence order."),
    configs: str | None = typer.Option(
        None, "--configs", help="Only these configs/subtasks (comma-separated)."
    ),
    port: int = typer.Option(0, "--port", help="Port on 127.0.0.1 (default: a free one)."),
) -> None:
    """Serve the review page on 127.0.0.1 until Ctrl-C; every answer is saved at once."""
    from corpusbench.review.server import url_of
    from corpusbench.review.session import open_review

    server = open_review(
        path,
        reviewer=reviewer,
        n=sample,
        n_rejected=rejected,
        seed=seed,
        configs=_csv(configs),
        rejected_from=rejected_from,
        port=port,
    )
    state = server.session.state()
    out.print(
        f"reviewing {state['total']} items of {state['source']} as {reviewer} ({state['done']} done): "
        f"{url_of(server)}\nlabels: {server.session.store.path}   (Ctrl-C to stop; reopen to resume)",
        highlight=False,
        soft_wrap=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        out.print(f"stopped; {server.session.state()['done']} of {state['total']} labelled")
    finally:
        server.server_close()


@review_app.command("report")
def report(
    path: Path = typer.Argument(..., help="The folder that was reviewed (its review/labels-*.jsonl)."),
) -> None:
    """Valid share per subtask and cell, the judge's precision/recall/κ, κ between reviewers; writes
    PATH/review/report.md, report.json and report.png."""
    from corpusbench.errors import CorpusbenchError
    from corpusbench.io import atomic_write, write_json
    from corpusbench.review.items import load_source
    from corpusbench.review.labels import review_dir
    from corpusbench.review.report import build_report, figure, markdown

    try:
        current = {i.fingerprint for i in load_source(path).items}
    except CorpusbenchError:
        current = None  # the labels alone (the folder's items cannot be read)
    rep = build_report(path, current)
    text = markdown(rep)
    folder = review_dir(path)
    with atomic_write(folder / "report.md") as fh:
        fh.write(text)
    write_json(folder / "report.json", rep)
    png = figure(rep, folder / "report.png")
    out.print(text, highlight=False, soft_wrap=True)
    out.print(f"wrote {folder / 'report.md'}, report.json and {png.name}", highlight=False)
