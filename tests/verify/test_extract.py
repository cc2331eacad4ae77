"""Tests for final-answer span extraction (boxed answers and the GSM8K marker)."""
from __future__ import annotations

import pytest

from kleval.verify.extract import all_boxed, gsm8k_final, last_boxed


@pytest.mark.parametrize(
    "text, expected",
    [
        (r"so \boxed{5}.", "5"),
        (r"first \boxed{3} then correct: \boxed{4}", "4"),
        (r"\boxed{\frac{1}{2}}", r"\frac{1}{2}"),
        (r"\boxed{\{1,2\}}", r"\{1,2\}"),
        (r"\fbox{x+1}", "x+1"),
        (r"$\boxed 5$", "5"),
        (r"\boxed{3} and a truncated \boxed{\frac{1}{", "3"),
        ("no box here", None),
        (r"\boxed{", None),
        (r"\boxed{ 12 }", "12"),
        (r"\boxed{a} \fbox{b}", "b"),
    ],
)
def test_last_boxed(text, expected):
    assert last_boxed(text) == expected


def test_all_boxed_keeps_order():
    assert all_boxed(r"\boxed{1}, \boxed{2}, \fbox{3}") == ["1", "2", "3"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("She makes 9 * 2 = $<<9*2=18>>18.\n#### 18", "18"),
        ("#### 1,000\n", "1,000"),
        ("#### 3\nthen #### 4", "4"),
        ("no marker", None),
        ("####   ", None),
    ],
)
def test_gsm8k_final(text, expected):
    assert gsm8k_final(text) == expected
