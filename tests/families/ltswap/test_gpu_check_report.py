"""benchmarks/gpu_check.sh's report (the GPU run itself never runs in CI): decisions compared with the
CPU reference item by item."""

import copy
import json

import pytest

from benchmarks.gpu_check import CPU_REFERENCE, compare


def as_gpu_run(ref):
    return {"rules": {"pointwise": {"items": copy.deepcopy(ref["items"])}}}


def test_the_cpu_reference_is_the_whole_calibration_set_and_agrees_with_itself():
    ref = json.loads(CPU_REFERENCE.read_text())
    assert len(ref["items"]) == 158 and ref["rule"] == "pointwise" and ref["threshold"] == 0.1
    same = compare(as_gpu_run(ref), ref)
    assert same["same_decisions"] == 158 and same["differing"] == [] and same["max_margin_diff"] == 0


def test_a_flipped_decision_and_a_moved_margin_are_reported():
    ref = json.loads(CPU_REFERENCE.read_text())
    gpu = as_gpu_run(ref)
    row = gpu["rules"]["pointwise"]["items"][5]
    row["keep"] = not row["keep"]
    row["margins"] = [m + 0.25 for m in row["margins"]]
    got = compare(gpu, ref)
    assert got["differing"] == [row["id"]] and got["same_decisions"] == 157
    assert got["max_margin_diff"] == pytest.approx(0.25)
    gpu["rules"]["pointwise"]["items"].pop()
    with pytest.raises(SystemExit, match="other items than the CPU reference"):
        compare(gpu, ref)
