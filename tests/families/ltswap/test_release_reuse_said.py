"""``release build`` says on stderr which LT-Swap run it reuses (or why not): its status line is transient."""

from __future__ import annotations

from test_pipeline import PARAMS, RuleLLM
from test_release_reuse import _ctx, scripted_llm  # noqa: F401  (the fixture)

from corpusbench.families.ltswap.pipeline import run_ltswap
from corpusbench.families.ltswap.release import build_configs
from corpusbench.llm.cache import CachedLLM


def test_reuse_is_printed(tmp_path, slice_corpus, slice_stats, scripted_llm, capsys):  # noqa: F811
    demo = tmp_path / "demo-ltswap"
    run_ltswap(slice_stats, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS, demo)
    params = {"max_per_bin": PARAMS.max_per_bin, "reuse_run": str(demo)}
    build_configs(_ctx(tmp_path / "b", slice_corpus, slice_stats, params))
    assert f"ltswap: reusing {demo}\n" in capsys.readouterr().err
    assert not scripted_llm.opened  # reused: no LLM opened
    build_configs(_ctx(tmp_path / "c", slice_corpus, slice_stats, {**params, "max_per_bin": 2}))
    assert f"ltswap: not reusing {demo}: max_per_bin differs (spec 2, run 3)" in capsys.readouterr().err


def test_a_finished_reuse_run_wins_over_the_builds_earlier_copy(
    tmp_path,
    slice_corpus,
    slice_stats,
    scripted_llm,  # noqa: F811
    capsys,
):
    demo = tmp_path / "demo-ltswap"
    run_ltswap(slice_stats, CachedLLM(RuleLLM(), tmp_path / "c.sqlite"), PARAMS, demo)
    params = {"max_per_bin": PARAMS.max_per_bin, "reuse_run": str(demo)}
    build_configs(_ctx(tmp_path / "b", slice_corpus, slice_stats, params))
    capsys.readouterr()
    # `ltswap build` made the run again (say, new code): the build copies it again, not its earlier copy
    build_configs(_ctx(tmp_path / "b", slice_corpus, slice_stats, params))
    assert f"ltswap: reusing {demo}\n" in capsys.readouterr().err
    no_reuse = {"max_per_bin": PARAMS.max_per_bin}
    build_configs(_ctx(tmp_path / "b", slice_corpus, slice_stats, no_reuse))
    assert "(this build's earlier run)" in capsys.readouterr().err
    assert not scripted_llm.opened
