"""Opening a review: the folder's items, the seeded sample, the reviewer's labels file, the server."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from corpusbench.io import read_json, write_json
from corpusbench.review.items import load_source, sample
from corpusbench.review.labels import LabelStore, review_dir
from corpusbench.review.report import SAMPLE_FILE
from corpusbench.review.server import ReviewSession, _Server, make_server


def open_review(
    folder: Path,
    *,
    reviewer: str,
    n: int = 40,
    n_rejected: int = 20,
    seed: int = 0,
    configs: Sequence[str] | None = None,
    rejected_from: Path | None = None,
    port: int = 0,
) -> _Server:
    """A bound (not yet serving) review server for ``folder``; ``server.session`` holds the sample.

    The sample (and the populations it was drawn from, for the report) is recorded in
    ``review/sample.json``; a labels file of another source, no items or a port in use raise first."""
    folder = Path(folder)
    source = load_source(folder, configs, rejected_from)
    store = LabelStore(folder, reviewer, source.name)
    chosen = sample(source.items, n, n_rejected, seed)
    server = make_server(ReviewSession(source, chosen, store, seed), port)
    record = review_dir(folder) / SAMPLE_FILE
    previous = read_json(record) if record.is_file() else {}
    samples = {
        **previous.get("samples", {}),
        f"{seed}:{n}:{n_rejected}:{','.join(configs or [])}": [it.fingerprint for it in chosen],
    }
    write_json(record, {"source": source.name, "populations": source.populations, "samples": samples})
    return server
