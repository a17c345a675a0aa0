"""Answer read-out: option log-probs from top tokens, and bracket parsing of free text."""

from __future__ import annotations

import math

import pytest

from corpusbench.llm.choice import decide, option_logprobs, parse_answer


def test_option_logprobs_sums_variants_and_marks_missing() -> None:
    top = [("A", math.log(0.5)), (" A", math.log(0.1)), ("The", math.log(0.2)), ("b", math.log(0.05))]
    a, b, c = option_logprobs(top, ("A", "B", "C"))
    assert a == pytest.approx(math.log(0.6))
    assert b == pytest.approx(math.log(0.05))
    assert c is None


def test_option_logprobs_words_and_case() -> None:
    lps = option_logprobs([("Yes", -0.2), (" no", -1.7), ("yes", -3.0)], ("yes", "no"))
    assert lps[0] == pytest.approx(math.log(math.exp(-0.2) + math.exp(-3.0)))
    assert lps[1] == pytest.approx(-1.7)
    assert option_logprobs([("yesterday", -0.1)], ("yes", "no")) == (None, None)


@pytest.mark.parametrize(
    ("lps", "expected"), [((-0.3, -1.2), 0), ((None, -4.0), 1), ((None, None), None), ((-1.0, -1.0), 0)]
)
def test_decide(lps: tuple[float | None, ...], expected: int | None) -> None:
    assert decide(lps) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[A]", "A"),
        ("Sentence B is wrong, so the answer is [ a ]", "A"),
        ("[A] is tempting but [B]", "B"),  # the last bracketed span decides, as in the reference
        ("B", "B"),
        (" b. ", "B"),
        ("The answer is B.", "B"),
        ("[C]", None),  # not an allowed option
        ("", None),
        ("A: The cats sleeps on the mat. B: The cats sleep.", None),  # restates, does not answer
        ("Both are fine.", None),
        ("[]", None),
    ],
)
def test_parse_answer(text: str, expected: str | None) -> None:
    assert parse_answer(text, ("A", "B")) == expected


def test_parse_answer_yes_no() -> None:
    assert parse_answer("Yes.", ("yes", "no")) == "yes"
    assert parse_answer("[no]", ("yes", "no")) == "no"
    assert parse_answer("Yesterday it rained.", ("yes", "no")) is None
