"""verify(): policies, explained verdicts, injection strings, pathological inputs, gold errors."""
from __future__ import annotations

import time

import pytest

from kleval.types import Status
from kleval.verify import PRESETS, Policy, verify

INJECTIONS = [
    "__import__('os').system('touch {marker}')",
    "eval(\"__import__('os').system('touch {marker}')\")",
    "exec('open(\"{marker}\", \"w\")')",
    "lambda: __import__('os').system('touch {marker}')",
    "().__class__.__bases__[0].__subclasses__()",
]


@pytest.mark.parametrize("template", INJECTIONS)
@pytest.mark.parametrize("wrap", ["\\boxed{{{}}}", "The answer is {}", "{}"])
def test_injection_strings_execute_nothing(tmp_path, template, wrap):
    marker = tmp_path / "pwned"
    payload = template.format(marker=marker)
    for policy in ("default", "gsm8k", "exact"):
        verdict = verify(gold="987654321", completion=wrap.format(payload), policy=policy)
        assert verdict.status is not Status.CORRECT
    verify(gold=payload, completion="\\boxed{2}")
    assert not marker.exists()


@pytest.mark.parametrize(
    "answer",
    ["9^{9^{9^{9}}}", "10^{10^{10}}", "2^{999999999}", "100000000!", "(" * 400 + "1" + ")" * 400,
     "1" * 20000, "\\frac{" * 60 + "1" + "}{2}" * 60, "x^{" * 50 + "2" + "}" * 50, "\\sqrt{" * 200 + "2" + "}" * 200],
)
def test_pathological_inputs_return_quickly(answer):
    start = time.perf_counter()
    verdict = verify(gold="3", completion=f"\\boxed{{{answer}}}")
    assert time.perf_counter() - start < 5
    assert verdict.status is not Status.CORRECT


def test_huge_values_compare_as_strings():
    verdict = verify(gold="2^{99999}", completion="\\boxed{2^{99999}}")
    assert verdict.correct
    assert not verify(gold="2^{99999}", completion="\\boxed{2^{99998}}").correct


def test_verdict_is_explained():
    verdict = verify(gold="\\frac{1}{2}", completion="so \\boxed{0.5}")
    assert verdict.correct
    assert verdict.extracted == "0.5"
    assert verdict.gold_canonical == "1/2" and verdict.pred_canonical == "1/2"
    assert verdict.rule and "boxed" in verdict.explanation


def test_statuses():
    assert verify(gold="3", completion="no answer").status is Status.NO_ANSWER
    assert verify(gold="", completion="\\boxed{3}").status is Status.GOLD_ERROR
    assert verify(gold="\\frac{", completion="\\boxed{3}").status is Status.GOLD_ERROR
    assert verify(gold="3", completion="\\boxed{\\frac{}{}}").status is Status.PARSE_ERROR
    assert verify(gold="AB", completion="The answer is (B)", kind="choice").status is Status.GOLD_ERROR


def test_policies_differ_where_documented():
    assert verify(gold="46", completion="46", policy="exact").correct
    assert not verify(gold="46", completion="the result is 46", policy="exact").correct
    assert verify(gold="46", completion="so we get 46 apples", policy="gsm8k").correct
    # default: a number in a sentence is no answer; a concluding "So ..." sentence stating one value is (2.0.0+)
    assert verify(gold="46", completion="we get 46 apples, 12 pears", policy="default").status is Status.NO_ANSWER
    assert verify(gold="46", completion="so we get 46 apples", policy="default").correct
    assert verify(gold="12", completion="we get 46 apples, 12 pears", policy="gsm8k").correct
    assert verify(gold="B", completion="**B**", kind="choice").correct
    assert verify(gold="B", completion="\\boxed{B}", kind="choice", policy="choice").correct
    assert verify(gold="1,234", completion="#### 1234", policy="gsm8k").correct
    tolerant = Policy(name="tol", relative_tolerance=1e-3)
    assert verify(gold="\\pi", completion="\\boxed{3.1416}", policy=tolerant).correct
    assert not verify(gold="\\pi", completion="\\boxed{3.1416}").correct
    scaled = PRESETS["default"].with_(name="pct", percent_scaling=True)
    assert verify(gold="10\\%", completion="\\boxed{0.1}", policy=scaled).correct


def test_unknown_policy_is_an_error():
    with pytest.raises(ValueError, match="unknown verifier policy"):
        verify(gold="1", completion="1", policy="nope")


@pytest.mark.parametrize("gold, answer, correct", [
    # class percent-sign-value (2.1.0): a percent sign written on one side only is the unit 1/100
    ("62.5\\%", "\\boxed{0.625}", True),
    ("28\\%", "\\boxed{\\frac{7}{25}}", True),
    ("0.25", "\\boxed{25\\%}", True),
    ("0.05", "The rate is 5 percent.", True),
    ("28\\%", "\\boxed{28}", True),  # the sign-dropped convention stays
    # never scaled without a written sign, and never by a factor other than 1/100
    ("10", "\\boxed{0.1}", False),
    ("0.1", "\\boxed{10}", False),
    ("62.5\\%", "\\boxed{6.25}", False),
    ("62.5\\%", "\\boxed{0.625\\%}", False),
    ("25\\%", "\\boxed{0.025}", False),
])
def test_percent_sign_is_a_hundredth_on_one_side(gold, answer, correct):
    verdict = verify(gold=gold, completion=answer)
    assert verdict.correct is correct, verdict.explanation
    if correct and verdict.rule != "normalized-string":
        assert verdict.rule == "percent-sign-value"
    off = PRESETS["default"].with_(name="no-pct", percent_sign_value=False)
    if verdict.rule == "percent-sign-value":
        assert not verify(gold=gold, completion=answer, policy=off).correct


@pytest.mark.parametrize("gold, answer, correct", [
    # class gold-box-list (2.1.0): a gold that is only boxes and separators answers with every box
    ("\\boxed{12} ++++ \\boxed{4}", "\\boxed{4, 12}", True),
    ("\\boxed{12} ++++ \\boxed{4}", "\\boxed{4}", False),
    ("\\\\boxed{2} ; \\\\boxed{-1}", "$x = 2$ or $x = -1$, so the answer is $2, -1$", True),
    # a worded solution with several boxes still answers with its last box group
    ("We first find \\boxed{12} apples, then she gives some away and keeps \\boxed{4}", "\\boxed{4}", True),
    # class gold-unclosed-box: a gold's box left open holds the rest of the gold
    ("\\boxed{\\frac{3}{4}", "\\boxed{0.75}", True),
    ("\\boxed{\\frac{3}{4}", "\\boxed{3}", False),
    ("\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "\\boxed{W(x) = 1 \\text{ or } W(x) = -1}", True),
    # class glued-connective: whitespace-stripped "or" between two equations
    ("\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "W(x)=1orW(x)=-1", True),
    ("\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "W(x)=1orW(x)=2", False),
])
def test_malformed_golds_are_repaired_generally(gold, answer, correct):
    verdict = verify(gold=gold, completion=answer)
    assert verdict.correct is correct, verdict.explanation


@pytest.mark.parametrize("gold, completion, correct", [
    # class multi-part-boxes (2.1.0): one box per part, prose between them, the gold lists every part
    ("1,3", "The maximum number is \\(\\boxed{3}\\), and the minimum number of cromulent elements is \\(\\boxed{1}\\).",
     True),
    ("(3,3), (1,1)", ("For part (a) the point is \\boxed{(3,3)}. For part (b) we redo the computation with the other "
                      "line, and the point is \\boxed{(1,1)}."), True),
    # a later box that retracts an earlier one wins: no list
    ("1,3", "First we get \\(\\boxed{1}\\). Wait, that is wrong; the count is \\(\\boxed{3}\\).", False),
    # the same value boxed twice is a restatement, not two parts
    ("3,3", "So the answer is \\boxed{3}. Checking once more gives \\boxed{3}.", False),
    # only when the gold asks for that many values
    ("1", "The maximum number is \\(\\boxed{3}\\), and the minimum number is \\(\\boxed{1}\\).", True),
    ("3", "The maximum number is \\(\\boxed{3}\\), and the minimum number is \\(\\boxed{1}\\).", False),
    ("1,2", "The maximum number is \\(\\boxed{3}\\), and the minimum number is \\(\\boxed{1}\\).", False),
])
def test_multi_part_boxes_join_only_for_a_list_gold(gold, completion, correct):
    verdict = verify(gold=gold, completion=completion)
    assert verdict.correct is correct, verdict.explanation
    assert verdict.rule.startswith("multi-part-boxes/") == (correct and "," in gold)


@pytest.mark.parametrize("gold, answer, correct", [
    # class clock-time (2.1.0): a 12-hour suffix is the half of the day, ":00" seconds add nothing
    ("20:34", "\\boxed{8:34 \\text{ P.M.}}", True),
    ("20:34", "\\boxed{20:34:00}", True),
    ("21:30", "\\boxed{9:30 p.m.}", True),
    ("20:34", "\\boxed{8:34 \\text{ A.M.}}", False),
    ("20:34", "\\boxed{20:34:15}", False),
    # class grouped-number-in-braces: a thousands-grouped number inside \mathrm{} is one number
    ("500", "\\boxed{\\frac{\\mathrm{1,000}}{2}}", True),
    ("500", "\\boxed{\\frac{\\mathrm{1,001}}{2}}", False),
    # class float-precision-even-digit: a float repr whose reduced denominator is not a power of ten
    ("\\frac{\\sqrt{3}}{2}", "\\boxed{0.8660254037844386}", True),
    ("\\frac{\\sqrt{3}}{2}", "\\boxed{0.8660254037844396}", False),
    ("\\frac{\\sqrt{3}}{2}", "\\boxed{0.866}", False),
])
def test_round3_normalization_classes(gold, answer, correct):
    verdict = verify(gold=gold, completion=answer)
    assert verdict.correct is correct, verdict.explanation
