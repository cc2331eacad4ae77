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


@pytest.mark.parametrize(
    "text, expected",
    [
        # class answer-tag (2.1.0)
        ("<think>6 times 7.</think>\n<answer>42</answer>", ("42", "answer-tag")),
        ("<answer>$\\frac{1}{2}$</answer>", ("\\frac{1}{2}", "answer-tag")),
        ("I guess \\boxed{3}.\n<answer>\\boxed{5}</answer>", ("5", "boxed")),
        # class truncated-mid-clause: cut off on a copula / preposition, never an earlier sentence's value
        ("P(red first) = $\\frac{3}{5}$. Then the probability that the second is also red is", (None, (
            "the text stops inside a box or an expression (truncated); no committed answer"))),
        ("We have $x = 4$. Adding the two parts gives a total of", (None, (
            "the text stops inside a box or an expression (truncated); no committed answer"))),
        # class truncated-box: an answer phrase whose box was cut off states nothing
        ("Adding 6 + 8, so the final answer is \\boxed{14", (None, (
            "the text stops inside a box or an expression (truncated); no committed answer"))),
        # class empty-answer-line: the line after "Answer:" is another field
        ("Explanation: I could not determine it.\nAnswer:\nConfidence: 10%", (None, (
            "the answer line is empty (no answer stated)"))),
        ("Work shown above.\nAnswer:\n$12$", ("12", "answer-phrase")),
        # class bold-at-end and copula verbs such as "measures"
        ("Counting forward 15 days from Sunday lands on **Monday**.", ("Monday", "final-statement")),
        ("We use the triangle sum.\n\nThe angle $\\angle ABC$ measures $45°$.", ("45°", "final-statement")),
    ],
)
def test_round3_extraction_classes(text, expected):
    from kleval.verify.grammar import find_math_answer

    assert find_math_answer(text) == expected


def test_number_kind_respects_an_empty_answer_line():
    from kleval.verify.grammar import find_number_answer

    assert find_number_answer("Answer:\nConfidence: 10%")[0] is None
    assert find_number_answer("Answer:\n10")[0] == "10"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Only the first mechanism conserves charge.\n\nANSWER: $A$", "A"),  # letter in a math block
        # class no-commitment: a mentioned letter is not a guess when the completion declines to choose
        ("The closest is option (C)? Actually (C) is 4.8 J. I cannot determine a single answer.", None),
        ("None of the options match; option (B) is the nearest.", None),
        ("Option (B) is the nearest, so I pick (B).", "B"),
    ],
)
def test_choice_round3_classes(text, expected):
    from kleval.verify.choice import find_choice_answer

    assert find_choice_answer(text, "ABCDEFGHIJ")[0] == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        # class retracted-statement: a withdrawn box yields the later conclusion, or nothing
        ("The area is $\\boxed{24}$.\n\nHmm, I used the wrong height. The area of the triangle is 12 square units.",
         ("12", "final-statement (after a retracted boxed)")),
        ("$$\\boxed{9}$$\n\nNo, that's wrong: I forgot that 0 cannot lead.",
         (None, "the boxed answer is retracted later and no new answer is stated")),
        ("A: 30\n\nOops, I made a mistake with the tax.", (None, "the A:-line answer is retracted later and no new answer is stated")),
        # class confirmed-statement and a doubt without a new value: the statement stands
        ("The answer is \\boxed{7}.\n\nWait, let me double-check: $7 \\times 6 = 42$. Yes, the answer is correct.", ("7", "boxed")),
        ("So the answer is $\\boxed{12}$.\n\nHmm, interesting problem!", ("12", "boxed")),
        ("So the answer is $\\boxed{12}$.\n\nActually, let me double check: $4 \\times 3 = 12$.", ("12", "boxed")),
        # class question-box: a box asked with "?" is not stated
        ("Maybe \\boxed{12}? Subtracting the 3 counted twice, so the final count is 9.", ("9", "final-statement")),
        # class think-unclosed / think-box: reasoning that never ends, or ends with nothing after it
        ("<think>\nSo maybe \\boxed{7}? Hmm, the question asks for pairs", (
            None, "the completion stops inside <think> (truncated reasoning); no final answer")),
        ("<think>Maybe \\boxed{12}.</think>", (None, "nothing follows </think>: the completion stopped before its answer section")),
        # class truncated-statement: a cut-off final statement beats an earlier box
        ("The answer is \\boxed{12} if order is ignored. If order matters, the answer is \\boxed{2", (
            None, "the text stops inside a box or an expression (truncated); no committed answer")),
        # class aside-after-answer: remarks after the answer are skipped for the paragraph before
        ("So she covers 150 miles.\n\nNote: at 70 mph it would have covered 175 miles.", ("150", "conclusion-sentence")),
        ("Each box holds 12 eggs, so there are $12 \\times 7 = 84$ eggs.\n\nIf there were 8 boxes instead, there would be 96.",
         ("12 \\times 7 = 84", "final-statement")),
        # class prose-tail and mid-sentence-value
        (("Out of 36 outcomes, 15 have a sum above 7, so the probability is $\\frac{15}{36} = \\frac{5}{12}$, slightly less "
         "than one half."), ("\\frac{15}{36} = \\frac{5}{12}", "final-statement")),
        ("So Tom has 9 marbles left after giving 6 to Anna and 5 to Ben.", ("9", "conclusion-sentence")),
        ("So the equation has exactly $2$ real solutions, namely $x = -1$ and $x = 3$.", ("2", "conclusion-sentence")),
    ],
)
def test_commitment_classes(text, expected):
    from kleval.verify.grammar import find_math_answer

    assert find_math_answer(text) == expected


def test_commitment_vocabularies():
    from kleval.verify.commitment import confirms, is_aside

    assert confirms("Yes, 12 is correct.") and confirms("which matches the total. ✓")
    assert not confirms("The correct count is 44.") and not confirms("That is not correct.")
    assert is_aside("For comparison, she would make $26 per day.") and is_aside("(She uses 7 eggs herself.)")
    assert not is_aside("(5, 7)") and not is_aside("If he buys 3 more, he will have 12.")
