"""CAC outputs: written into a temporary folder and renamed into place; read back for the eval runner.

``OUT/``
- ``sites.parquet``: one row per site (:class:`Site` fields), sorted by file, position, token.
- ``utterances.parquet``: the sessions' kept utterances (file, index, position, speaker, role, text,
  raw), from which each site's discourse context is rebuilt (:func:`site_prompt`).
- ``human_stats.csv`` / ``.parquet``: per dyad × role (:class:`GroupStats`); ``human_tests.csv``.
- ``overlap.png``, ``tpr.png``; ``manifest.json``: provenance, parameters, the unit of analysis
  (``dyad_unit``), counters, notes, tests.
"""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpusbench.corpus.records import Utterance
from corpusbench.errors import InputError
from corpusbench.families.cac.records import GroupStats, Site
from corpusbench.io import atomic_dir, read_json, write_json
from corpusbench.provenance import code_version, file_sha256, fingerprint

if TYPE_CHECKING:
    from corpusbench.families.cac.config import CacConfig, CacResult

SCHEMA_VERSION = "cac.sites.v1"


def _version(pkg: str) -> str | None:
    try:
        return md.version(pkg)
    except md.PackageNotFoundError:
        return None


def write_outputs(
    result: CacResult, *, utterances: Sequence[Utterance], files: Sequence[Path], config: CacConfig
) -> None:
    import pandas as pd

    from corpusbench.families.cac.plots import plot_overlap, plot_tpr

    inputs = sorted(
        ({"name": p.name, "sha256": file_sha256(p), "bytes": p.stat().st_size} for p in files),
        key=lambda d: (d["name"], d["sha256"]),
    )
    corpus_fp = fingerprint([d["sha256"] for d in inputs])
    params = config.as_dict()
    positions: dict[str, int] = {}
    utt_rows = []
    for u in utterances:
        pos = positions.get(u.file, 0)
        positions[u.file] = pos + 1
        utt_rows.append(
            {
                "file": u.file,
                "index": u.index,
                "position": pos,
                "speaker": u.speaker,
                "role": u.role or "",
                "text": u.text,
                "raw": u.raw,
            }
        )
    site_rows = [s.as_row() for s in sorted(result.sites, key=lambda s: (s.file, s.position, s.token))]
    stats_df = pd.DataFrame([s.as_row() for s in result.stats])
    tests_df = pd.DataFrame([t.as_row() for t in result.tests])
    with atomic_dir(result.out) as tmp:
        pd.DataFrame(site_rows).to_parquet(tmp / "sites.parquet", index=False)
        pd.DataFrame(utt_rows).to_parquet(tmp / "utterances.parquet", index=False)
        stats_df.to_csv(tmp / "human_stats.csv", index=False, float_format="%.6f")
        stats_df.to_parquet(tmp / "human_stats.parquet", index=False)
        tests_df.to_csv(tmp / "human_tests.csv", index=False, float_format="%.6g")
        plot_overlap(result.stats, tmp / "overlap.png", title="CAC human D×N overlap")
        plot_tpr(result.stats, tmp / "tpr.png", baseline=config.baseline, title="CAC human TPR")
        write_json(
            tmp / "manifest.json",
            {
                "kind": "cac",
                "schema": SCHEMA_VERSION,
                "corpus_fingerprint": corpus_fp,
                "inputs": inputs,
                "fingerprint": fingerprint(corpus_fp, params, code_version()["corpusbench"], SCHEMA_VERSION),
                "code": {
                    **code_version(),
                    "spacy": _version("spacy"),
                    "spacy_model": config.spacy_model,
                    "spacy_model_version": _version(config.spacy_model),
                    "pylangacq": _version("pylangacq"),
                },
                "parameters": params,
                "counters": result.counters,
                "notes": result.notes,
                "pseudo_dyads": result.pseudo_dyads,
                "dyad_unit": result.dyad_unit.as_dict(),
                "n_sites": len(result.sites),
                "n_utterances": len(utt_rows),
                "tests": [t.as_row() for t in result.tests],
                "files": [
                    "sites.parquet",
                    "utterances.parquet",
                    "human_stats.csv",
                    "human_stats.parquet",
                    "human_tests.csv",
                    "overlap.png",
                    "tpr.png",
                ],
            },
        )


def load_sites(out: str | Path) -> tuple[list[Site], dict[str, list[Utterance]]]:
    """Read ``sites.parquet`` and ``utterances.parquet`` back: sites and each file's utterances."""
    import pandas as pd

    out = Path(out)
    try:
        manifest = read_json(out / "manifest.json")
        sites_df = pd.read_parquet(out / "sites.parquet")
        utt_df = pd.read_parquet(out / "utterances.parquet")
    except (OSError, ValueError) as e:
        raise InputError(f"{out}: not a CAC output folder ({e})") from None
    if manifest.get("schema") != SCHEMA_VERSION:
        raise InputError(f"{out}: schema {manifest.get('schema')!r}, expected {SCHEMA_VERSION}")
    sites = [Site(**_plain(r)) for r in sites_df.to_dict("records")]
    sessions: dict[str, list[Utterance]] = {}
    for r in utt_df.sort_values(["file", "position"]).to_dict("records"):
        sessions.setdefault(r["file"], []).append(
            Utterance(
                id=f"{r['file']}:{r['index']}",
                file=r["file"],
                index=int(r["index"]),
                speaker=r["speaker"],
                text=r["text"],
                raw=r["raw"],
                role=r["role"] or None,
            )
        )
    return sites, sessions


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    import math

    out = {}
    for k, v in row.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out[k] = None
        elif hasattr(v, "item"):
            out[k] = v.item()
        else:
            out[k] = v
    if out.get("prev_distance") is not None:
        out["prev_distance"] = int(out["prev_distance"])
    return out


def site_prompt(
    site: Site, session: Sequence[Utterance], *, label: str = "chat", max_utterances: int | None = None
) -> tuple[str, str]:
    """``(left, right)`` around the site's slot for a scorer: the context lines (joined by ``\\n``)
    plus the target line up to the slot, and the rest of the target line (no later utterances)."""
    from corpusbench.families.cac.sites import context_lines

    lines = context_lines(site, session, label=label, max_utterances=max_utterances)
    tag = f"*{site.speaker}:" if label == "chat" else f"{(site.role or site.speaker).upper()}:"
    target = f"{tag} {site.text[: site.char_start]}"
    return "\n".join([*lines, target]), site.text[site.char_end :]


def read_stats(path: str | Path) -> list[GroupStats]:
    import pandas as pd

    df = pd.read_parquet(path)
    return [GroupStats(**_plain(r)) for r in df.to_dict("records")]
