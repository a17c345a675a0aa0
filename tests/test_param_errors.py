"""Library code names a bad parameter by its own name; the command line says its option, a spec its key."""

from __future__ import annotations

import pytest

from corpusbench.errors import ConfigError, ParamError, option_names
from corpusbench.families.ltswap.params import LtswapSpec
from corpusbench.families.ltswap.pipeline import LtswapParams
from corpusbench.publish.plugins import parse_params


def test_a_param_error_names_the_parameter_until_its_caller_names_it() -> None:
    with pytest.raises(ParamError) as raised:
        LtswapParams(per_cell=0)
    assert str(raised.value).startswith("per_cell must be a whole number") and "--" not in str(raised.value)
    with pytest.raises(ConfigError) as cli, option_names():
        LtswapParams(per_cell=0)
    assert str(cli.value).startswith("--per-cell must be a whole number")
    with pytest.raises(ConfigError) as spelt, option_names(per_cell="--cells"):
        LtswapParams(per_cell=0)
    assert str(spelt.value).startswith("--cells must")


def test_a_release_spec_names_its_keys_never_an_option() -> None:
    where = "families.ltswap.params"
    with pytest.raises(ConfigError) as per_cell:
        parse_params(LtswapParams, {"per_cell": 0}, where)
    assert str(per_cell.value).startswith(f"{where}.per_cell must be a whole number")
    for key, bad in (("llm_timeout", 0), ("llm_retries", -1), ("llm_concurrency", 0)):
        with pytest.raises(ConfigError) as raised:
            parse_params(LtswapSpec, {key: bad}, where)
        assert str(raised.value).startswith(f"{where}.{key} must"), raised.value
        assert "--" not in str(raised.value)


def test_every_ltswap_param_check_names_the_param() -> None:
    """LtswapParams speaks no CLI: each bad value names its field; the CLI says the option, a spec the key."""
    bad = {
        "lang": "xx",
        "max_per_bin": 0,
        "agreement_cells": "row",
        "force_form": ("nope",),
        "frames": "odd",
        "rewrites": -1,
        "agreement_samples": 0,
        "pairs_per_word": 0,
    }
    for key, value in bad.items():
        with pytest.raises(ParamError) as raised:
            LtswapParams(**{key: value})
        assert raised.value.param == key and "--" not in str(raised.value), (key, raised.value)
        with pytest.raises(ConfigError) as cli, option_names():
            LtswapParams(**{key: value})
        assert str(cli.value).startswith("--" + key.replace("_", "-")), cli.value
    with pytest.raises(ConfigError, match=r"^--max-per-bin: unknown subtask\(s\) \['x'\]"), option_names():
        LtswapParams(max_per_bin={"x": 1})
