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


@pytest.mark.parametrize(
    "text, expected",
    [
        (r"so \boxed{-1} and \boxed{-9}.", ("-1, -9", "2-boxes")),
        (r"$x = \boxed{2}$, $y = \boxed{-1}$", ("x = 2, y = -1", "2-boxes")),
        (r"\boxed{3}. Later we use \boxed{4}", ("4", "boxed")),  # prose between: not one list
        (r"<think>maybe \boxed{5}</think>So it is $\boxed{7}$.", ("7", "boxed")),
        (r"Maybe \boxed{20}? Wait, recount: so the answer is 24.", ("24", "answer-phrase")),
        (r"\boxed{5}. The answer is correct.", ("5", "boxed")),  # words never displace a box
        ("It takes 3 bolts.\nA: 3", ("3", "A:-line")),
        ("The sides are 8 and 8.\nMultiply them, which is $64$.", ("64", "final-statement")),
        ("She reads 8 more each day.\nTherefore, Lara read 128 pages on the first day.", ("128", "conclusion-sentence")),
        (".4", (".4", "bare-answer")),
        ("So the final answer is", (None, "the text ends in an answer phrase with nothing after it (truncated)")),
        ("Let us add: 6*7 = 42. Then \\boxed{", (None, ("the text stops inside a box or an expression (truncated); "
                                                        "no committed answer"))),
        ("We solve both.\nThe ordered pair is $(7, 6)$. <|im_start|>user\nnext one is $3$", ("(7, 6)", "final-statement")),
    ],
)
def test_final_answer_grammar(text, expected):
    from kleval.verify.grammar import find_math_answer

    assert find_math_answer(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("C) 42", "C"),
        ("The answer is C. Checking: option B fails because the sign is wrong.", "C"),
        ("I first thought (B).\nTherefore, the correct answer is (A).", "A"),
        ("the answer is a prime, so **Answer: D**", "D"),
        ("Answer: b", "B"),
    ],
)
def test_choice_takes_the_final_committed_letter(text, expected):
    from kleval.verify.choice import find_choice_answer

    assert find_choice_answer(text, "ABCDEFGHIJ")[0] == expected


NOTHING = "no boxed answer, answer phrase, A: line, ####, concluding sentence or bare answer"


@pytest.mark.parametrize(
    "text, expected",
    [
        # class mid-sentence-value (2.1.0): the value ends the main clause, a qualifying clause follows
        ("We minimise $y/x$.\n\nThus, the maximum of $15 - y/x$ is **13**, occurring when $y$ is minimal.",
         ("13", "conclusion-sentence")),
        (("Step one.\n\nHence, the solution is \\(f(n) = n\\) for all positive integers \\(n\\). "
          "This function satisfies the inequality for all \\(x\\) and \\(y\\)."), ("f(n) = n", "conclusion-sentence")),
        ("Try it.\n\nThus, \\( E(7, 3) = 3 \\), as demonstrated by the strategy above. This method works.",
         ("3", "conclusion-sentence")),
        ("We add the costs of all the items she bought.\n\nThe total is $42$ dollars, which is what she paid.",
         ("42", "final-statement")),
        # class concluding-clause: the sentence's last clause concludes
        ("Tom takes 3 of her 10 apples, so she has 7 apples left, which is more than Ben has.",
         ("7", "conclusion-sentence")),
        ("Its value becomes $.8 \\cdot .9x = .72x$, so it keeps a fraction .72 of its value.",
         (".72", "conclusion-sentence")),
        # a closing remark naming only variables is skipped; the value sentence before it is read
        (("Count cases.\n\nThe probability is approximately \\(1/3\\). This estimate is based on \\(C\\), given "
          "fixed \\(A\\) and \\(B\\)."), ("1/3", "final-statement")),
        # never: a clause that can state another value is not cut off, so nothing is read
        ("We solve.\n\nWe get $x = 5$ when $y = 2$, giving 7 in total and 9 otherwise.", (None, NOTHING)),
        # never: a word before skipped closing remarks is prose ("... is valuable."), not a worded answer
        (("Knowing methods is valuable. One might use tools to approximate \\(x\\). Thus, the solution is beyond "
          "the scope of algebra."), (None, NOTHING)),
    ],
)
def test_mid_sentence_values(text, expected):
    from kleval.verify.grammar import find_math_answer

    assert find_math_answer(text) == expected


def test_bare_math_needs_joined_blocks():
    """class bare-math-with-prose: a short sentence with prose between its math blocks is not a bare answer."""
    from kleval.verify.grammar import find_math_answer

    assert find_math_answer("So the maximum of $15 - y/x$ is **13** when $y$ is small.")[0] != "y"
    assert find_math_answer("$x = 2$ and $y = 3$") == ("x = 2, y = 3", "bare-math")
