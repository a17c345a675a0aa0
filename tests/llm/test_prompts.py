"""Versioned prompt templates: strict rendering, hashes, clear errors."""

from __future__ import annotations

import pytest

from corpusbench import prompts
from corpusbench.errors import ConfigError


def test_generic_templates_render() -> None:
    text = prompts.render(
        "generic/choose_ab.v1", question="Which is grammatical?", option_a="He runs.", option_b="He run."
    )
    assert "A: He runs." in text and "B: He run." in text and text == text.strip()
    assert "{{" not in text and "{#" not in text  # comments and tags do not leak
    yn = prompts.render("generic/yes_no.v1", text="A cat.", question="Is it an animal?")
    assert "yes or no" in yn


def test_listing_variables_and_hash() -> None:
    names = prompts.list_templates()
    assert {"generic/choose_ab.v1", "generic/yes_no.v1"} <= set(names)
    assert prompts.variables("generic/choose_ab.v1") == {"question", "option_a", "option_b"}
    h = prompts.template_hash("generic/yes_no.v1")
    assert len(h) == 64 and h == prompts.template_hash("generic/yes_no.v1.j2")
    assert h != prompts.template_hash("generic/choose_ab.v1")


def test_missing_variable_is_config_error() -> None:
    with pytest.raises(ConfigError, match=r"yes_no\.v1\.j2: 'question' is undefined"):
        prompts.render("generic/yes_no.v1", text="x")


def test_unexpected_variable_is_config_error() -> None:
    with pytest.raises(ConfigError, match="unexpected variable"):
        prompts.render("generic/yes_no.v1", text="x", question="y", sentence="z")


def test_unknown_template_suggests_near_names() -> None:
    with pytest.raises(ConfigError, match=r"Did you mean: generic/yes_no\.v1"):
        prompts.render("generic/yesno.v1", text="x", question="y")
    with pytest.raises(ConfigError, match="unknown prompt template"):
        prompts.render("../errors", text="x")
