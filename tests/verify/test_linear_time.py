"""Extraction is linear-time: degenerate text (whitespace runs, unclosed boxes, 200 KB) grades fast.

Issue 14 measured "answer" + 100 spaces at 9.7 s (~n^4) and the A:-line, trailing-unit and
last-box patterns at ~n^2..n^3. Each family here is graded at n and 4n under every policy; a
super-linear pattern shows as a time ratio near 16 or more, so the bound (10x, plus a small
constant for timer noise) is generous for linear code and fails for quadratic code. The
absolute bound (1 s per item, all four policies) is 20-100x what these take on an idle core.
"""
from __future__ import annotations

import time

import pytest

from kleval.verify import verify

POLICIES = (("math", "default"), ("number", "default"), ("number", "gsm8k"), ("choice", "choice"), ("math", "exact"))

FAMILIES = {
    "answer+spaces": lambda n: "answer" + " " * n,
    "phrase+spaces+value": lambda n: "The final answer is" + " " * n + "5",
    "newlines": lambda n: "So the answer is\n" + "\n" * n,
    "unclosed boxes": lambda n: "\\boxed{" * (n // 10),
    "open braces then box": lambda n: "{" * n + "\\boxed{1}",
    "A: line with spaces": lambda n: "A:" + " " * n + "\n",
    "unit after spaces": lambda n: "\\boxed{5" + " " * n + "cm}",
    "repeated conclusions": lambda n: "Therefore x is " * (n // 15),
    "unclosed math": lambda n: "\\(" * (n // 2),
    "prose": lambda n: ("We compute 3+4=7 and so on, which is fine. " * (n // 40 + 1))[:n],
    # round-5 extraction classes (v5fix): box variants, labelled parts, appositives, restatements, named lists
    "framebox arguments": lambda n: "\\framebox[" * (n // 10) + "{1}",
    "labelled parts": lambda n: "(a) 1\n" * (n // 6),
    "appositive commas": lambda n: "Tom, aged 1, " * (n // 13) + "had 5 apples since 2020.",
    "restated values": lambda n: "3/4 (0.75) " * (n // 11) + "i.e. {1, 2}",
    "named values": lambda n: "Answer: " + "x = 1, " * (n // 7),
    "number words": lambda n: "There are " + "twenty-one and a half " * (n // 22) + "apples left.",
    # class glued-number (kleval.verify.glued): long plain-text expressions, glued numbers, open brackets
    "plain expression": lambda n: "Thus the answer is " + "n+1 - " * (n // 6) + "x^2.",
    "glued numbers": lambda n: "So the count is " + "2^k (3x)_1, " * (n // 12) + "apples.",
    "open brackets": lambda n: "The answer is " + "f(2, " * (n // 5) + "3",
    # round-6 classes (v6fix): per-option verdicts
    "option verdicts": lambda n: "Answer: " + "(B) is wrong, " * (n // 14) + "(D) is right.",
    "lone letters": lambda n: "Reasoning.\n" + "C\n \n" * (n // 4) + "\n(B)",
    "lower-case verdicts": lambda n: "the answer is d, " * (n // 17) + "Overall, B.",
    "quoted box": lambda n: '\\boxed{"' + "3" * n + '"}',
    "e-notation statement": lambda n: "The value is " + "3.2e-4" * (n // 6) + " M.",
    "since clause": lambda n: "Since $x$" + " and y" * (n // 6) + ", the function is odd.",
    "bold then aside": lambda n: "So she has **$5**. " + "Nice, considering 5 and **5**. " * (n // 31) + "Nice, 5!",
}


def _grade_all(completion: str) -> float:
    """Seconds to grade `completion` under every policy (best of three, to shed scheduler noise)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for kind, policy in POLICIES:
            verify(gold="3" if kind != "choice" else "C", completion=completion, kind=kind, policy=policy)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_grading_time_scales_linearly(family):
    make = FAMILIES[family]
    _grade_all(make(100))  # warm caches and the parser
    small, large = _grade_all(make(2500)), _grade_all(make(10000))
    assert large <= 10 * small + 0.05, f"{family}: {small:.4f}s at n=2500, {large:.4f}s at n=10000"


@pytest.mark.parametrize("completion", [
    "answer" + " " * 10000,
    "\n" * 10000,
    "\\boxed{" * 1000,
    ("Step: we compute 3+4=7, so the total is 7. " * 5000)[:200_000],
    "the answer is " + "(" * 5000 + "1",
    "x" * 200_000 + "\\boxed{3}",
])
def test_degenerate_text_grades_well_under_a_second(completion):
    baseline = _grade_all("So the answer is \\boxed{3}.")
    seconds = _grade_all(completion)
    assert seconds < max(1.0, 50 * baseline), f"{seconds:.3f}s (baseline {baseline:.4f}s)"


def test_degenerate_verdicts_are_not_correct_guesses():
    assert not verify(gold="3", completion="\\boxed{" * 1000).correct
    assert verify(gold="3", completion="x" * 200_000 + "\\boxed{3}").correct
