"""A full disk under the LLM cache (issue #42 item 6): `ltswap build` stops with one line and exit 3,
writes no run, and the rerun with space resumes from the answers kept and gives the same run as one
that never ran out. The cache lives on a small tmpfs this test mounts (skipped where mounting is not
allowed); the LLM is ``FakeOpenAI``."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cliproc import corpusbench
from fake_openai_server import FakeOpenAI
from tmpfs import grow, small_tmpfs

from corpusbench.families.ltswap.pipeline import SUBTASKS
from corpusbench.llm.cache import ResultCache


@pytest.fixture()
def small_disk(tmp_path: Path):
    """A 128 KiB tmpfs: room for the cache's first answers (its WAL index alone takes 32 KiB), not for a
    run's."""
    with small_tmpfs(tmp_path / "disk", "128k") as disk:
        yield disk


def build(fake: FakeOpenAI, stats: Path, out: Path, cache: Path, cwd: Path):
    """`ltswap build` of ``stats`` in a fresh process, against ``fake``."""
    return corpusbench(
        "ltswap", "build", "unused", "--stats", str(stats), "--out", str(out), "--llm-cache", str(cache),
        "--llm-backend", "openai", "--llm-base-url", fake.url, "--max-per-bin", "2", "--llm-retries", "0",
        cwd=cwd,
    )  # fmt: skip


def run_tables(out: Path) -> dict[str, pd.DataFrame]:
    tables = {sub: pd.read_parquet(out / f"{sub}.parquet") for sub in SUBTASKS}
    tables["funnel"] = pd.DataFrame(json.loads((out / "funnel.json").read_text())["drop_reasons"])
    return tables


def test_ltswap_build_with_its_cache_on_a_full_disk(small_disk, ruth_stats, tmp_path) -> None:
    stats = ruth_stats
    with FakeOpenAI(model="fake") as fake:
        ref = build(fake, stats, tmp_path / "ref", tmp_path / "ref.sqlite", tmp_path)
        assert ref.returncode == 0, ref.stdout + ref.stderr
        sent = fake.requests
        fake.reset("ok")
        out, cache = tmp_path / "lt", small_disk / "llm.sqlite"
        full = build(fake, stats, out, cache, tmp_path)
        assert full.returncode == 3, full.stdout + full.stderr
        lines = full.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: disk full writing the LLM cache {cache}"), (
            lines
        )
        assert not (out / "manifest.json").exists()  # no run, nothing half-written
        grow(small_disk)
        kept = sum(ResultCache(cache).counts().values())
        assert 0 < kept < sent, (kept, sent)  # the answers received before the disk filled up
        fake.reset("ok")
        rerun = build(fake, stats, out, cache, tmp_path)
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        assert fake.requests == sent - kept  # resumed: no answer kept is asked again
    for name, table in run_tables(tmp_path / "ref").items():
        pd.testing.assert_frame_equal(run_tables(out)[name], table, obj=name)
