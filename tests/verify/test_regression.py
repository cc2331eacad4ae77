"""The regression table: one row per verifier bug ever found, plus real model outputs with labels.

`adversarial.jsonl` (round 4 of issue 10) holds new varied cases per grammar class, written before the
fixes, with tempting wrong golds so that false accepts are measured; every row is a test. The few rows
no rule reads yet are strict xfails, each with its reason (an accidental pass fails the suite).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleval.verify import verify

HERE = Path(__file__).parent


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line]


ROWS = _rows("regression.jsonl")
ADVERSARIAL = _rows("adversarial.jsonl")
# note -> why the verifier does not read it yet (kept short and honest; each is a known limit in docs/verifier.md)
NOT_YET = {
    "adv/red-team-3/rt18-001 answer-first: GSM8K test 0. The opening line says $26 but the worked solution concludes $18, the last committed value; 18 is the gold.":
        "an opening answer line that the closing conclusion contradicts commits to neither (class answer-first-contradicted), even when the conclusion is right",
    "adv/red-team-3/rt18-003 answer-first: MATH500 (Algebra 5, max of 4(x+7)(2-x)). A stray box of 64 opens the reply; the derivation ends with the committed value 81, which is the gold.":
        "an opening box that the closing conclusion contradicts commits to neither (class answer-first-contradicted), even when the conclusion is right",
    "adv/red-team-3/rt18-018 exclamation: Here '5!' is the factorial just computed as (6-1)! = 120, not an excited 5; against gold 5 a grader that strips the '!' would falsely accept.":
        "a prose 'So the answer is 5!' is an exclamation (class exclamation-after-number) even where the completion computed 5! = 120",
    "adv/red-team-3/rt18-019 exclamation: Same completion against gold 120: the answer 5! = 120 (computed in the previous line) equals the gold. (The real MATH500 gold is 720; this row pairs the complet":
        "a prose 'So the answer is 5!' is an exclamation (class exclamation-after-number) even where the completion computed 5! = 120",
    "adv/red-team-3/rt18-020 exclamation: Double factorial as the answer: 7!! = 7*5*3*1 = 105, equal to the gold. latex2sympy2_extended parsed '!!' as a nested factorial (the cited PR).":
        "a double factorial `7!!` is not evaluated",
    "adv/red-team-3/rt18-040 multi-value-final: Twin committing to x = 5 and naming x = 1 only as the rejected root.":
        "a closing sentence that names the solution and, in brackets, a rejected root is not read",
    "adv/red-team-3/rt18-043 multi-value-final: Commits to 36; 40 appears only inside a parenthetical about a different case.":
        "a value followed by a bracket that holds another value is not read",
    "adv/red-team-3/rt18-062 parenthetical-asides: GSM8K test 969. The sentence opens with $2,400 but the parenthetical correction gives the final $1,800, which is the gold.":
        "a bracketed correction withdraws the value before it (class bracketed-correction); the corrected value inside it is not read",
    "adv/red-team-3/rt18-065 parenthetical-asides: GSM8K test 858. The bracketed correction replaces 2940 with the total 3430, the gold.":
        "a bracketed correction withdraws the value before it (class bracketed-correction); the corrected value inside it is not read",
    "adv/red-team-3/rt18-068 parenthetical-asides: MATH500 tan identity (gold 46). The radian conversion in brackets is an aside; x = 46.":
        "an aside in brackets that holds math ('in degrees; 46° ≈ 0.803 rad') is not dropped",
    "adv/red-team-3/rt18-086 choice-traps: MATH500 (gold (C)). The box holds the option text 'Plane', which the completion itself labels (C), so the choice is clear.":
        "multiple choice is graded without the options: an option's text in the box is not its letter",
    "adv/red-team-3/rt18-093 si-prefixes: Prefix slip: the box says 50 mm, which is 1000 times the asked 50 microns; a grader that drops units would falsely accept the bare 50.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-3/rt18-096 si-prefixes: The box drops the kilo prefix: 41.9 J/mol contradicts the 4.19 x 10^4 J/mol just computed and is not 41.9 kJ/mol.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-3/rt18-105 units: MATH500 minimal compound interest rate (gold 10, in percent). 'At least 10%' names the minimum rate, which is the value asked.":
        "a value stated as a bound ('at least 10%') is no answer, even where the bound is what the question asks",
    "adv/red-team-3/rt18-120 locale-separators: MATH500 license plates (gold 58,500). A thin-space thousands separator, 58\\,500, is the same number.":
        "a computation that ends a sentence with its result and a noun ('= 58\\\\,500$ license plates.') is not read without a concluding word",
    "adv/red-team-3/rt18-121 locale-separators: GSM8K test 642 in German: 10.800 groups thousands and the closing '10,8 Tsd.' (decimal comma, thousand) is the same 10,800.":
        "kind number: a decimal comma with a scale abbreviation ('10,8 Tsd.') is not read as thousands",
    "adv/subject-value: 15 students did not attend":
        "a subject value is never read under a negation ('Thus 5 is not a solution' must not answer 5)",
    "adv/list-of-sets: union of sets vs flat": "a list of sets is not flattened against a flat gold list",
    "adv/main-clause: value then when-clause": "a trailing 'when' clause without a comma is not cut off",
    "adv/multi-part: labelled gold": "part labels inside a gold ('(a) 2, (b) 7') are not read",
    "adv/probe/number-lastnum: sentence opening with a rate":
        "kind number: a sentence that opens with a phrase ('Per hour she earns $12, for 2 hours.') keeps its last number",
    'adv/rl-probe/rl-106 reward-hacking: A parenthetical "(or 100.0)" is the same value, not a second candidate. Correct.':
        "kind number: a final sentence listing its steps ('Each acre gives 5 tons, ..., gives 100 barrels (or 100.0 "
        "barrels).') is read by its main clause, 5",
    "adv/red-team/rt-021 number-hacking: The count is given as a percentage, which changes its meaning (20% of what?); not the aske":
        "the percent-sign-value convention reads a sign on one side also as the plain number (62.5 == 62.5%), so '20%' answers a count of 20",
    "adv/red-team/rt-038 number-hacking: Wrong unit 'dozen' turns 70 into 840 coins; meaning changed.":
        "'70 dozen' is read as a count of dozens (as a question asked in dozens wants it), so it answers 70",
    "adv/red-team/rt-043 number-hacking: A dollar price reported as a percentage; a meaning-changing unit.":
        "the percent-sign-value convention reads a sign on one side also as the plain number, so '26%' answers a price of 26",
    "adv/red-team/rt-050 number-hacking: The gold appears only in the restated question; no answer is ever given.":
        "kind number: a final sentence that restates the question keeps its last number",
    "adv/red-team/rt-058 choice-hacking: Letter B paired with option C's text; contradictory, so no clean commitment to B (and B's ":
        "multiple choice is graded without the options: a letter with another option's text is read as the letter",
    "adv/red-team-2/rt16-029 multi-value-final: Final line lists a, b and a+b; the stated target is a+b, the last value -1.":
        "a final line of several assignments is a list; its last named quantity ('a + b = -1') is not read as the answer",
    "adv/red-team-2/rt16-032 multi-value-final: Final line lists both roots and then the product; the product -128 is the requested quantity and the last value.":
        "a final line of several assignments is a list; its last named quantity ('product = -128') is not read as the answer",
    "adv/red-team-2/rt16-048 reward-hacking: For a 'Compute' question the box just repeats the question's expression; it is numerically 4495 but evaluating it was the task, so no answer was given.":
        "a box that restates the question's own expression (an unevaluated binomial) equals its value; the question is not seen",
    "adv/red-team-2/rt16-067 si-prefixes: Same number with the wrong prefix: 0.0157 m is converted wrongly to 1.57 mm and the completion states 0.16 cm; 1.6 mm is not the gold 1.6 cm.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-2/rt16-068 si-prefixes: Gold 50 (microns asked); 4.85e-5 m is correctly expressed as about 50 μm.":
        "a bare `\\mu m` (not `\\mu\\text{m}`) is not read as micrometres",
    "adv/red-team-2/rt16-069 si-prefixes: The number 50 matches but with prefix n instead of μ; 50 nm is a thousand times smaller than the 50 μm the gold means, from a wrong conversion.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-2/rt16-071 si-prefixes: Treats 45 mL as 45 L, so the boxed 36 L is a thousand times the 36 mL the question asks for: same digits, wrong unit.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-2/rt16-074 si-prefixes: Computes 3e5 m/s and then divides by 1000 'to get m/s', boxing 300 m/s; that is a thousand times smaller than the 300 km/s the gold means.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-2/rt16-076 units: The box holds 75 and the words 'million years' follow it outside the box; 75 million = 7.5e7, so the answer matches.":
        "kind math: a scale word after a box ('\\boxed{75} million years') is not read (kind number reads it)",
    "adv/red-team-2/rt16-079 si-prefixes: Applies the per-kilometer rate per meter, gets 120,000 ml and boxes 120 L; the digits match the gold 120 mL but the quantity is a thousand times larger.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-2/rt16-081 si-prefixes: Converts 0.05 m to '5 mm' (it is 5 cm) and commits to 5 mm; the digit matches the gold but the length stated is ten times too small.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
    "adv/red-team-2/rt16-086 si-prefixes: Wrong area and volume conversions give 10^-3 m (1 mm) instead of 10^-3 cm; same mantissa and exponent as the gold, but the unit makes it a hundred times too long.":
        "a bare gold carries no unit: the question's unit is not seen, so a unit on the answer alone is not checked",
}


def _check(row: dict) -> None:
    verdict = verify(gold=row["gold"], completion=row["completion"], kind=row["kind"], policy=row["policy"])
    if row["expected"] == "not-correct":
        assert not verdict.correct, verdict
    else:
        assert verdict.status.value == row["expected"], verdict


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}-{r['note'][:40]}" for i, r in enumerate(ROWS)])
def test_regression_row(row):
    _check(row)


def _adversarial_param(index: int, row: dict):
    marks = [pytest.mark.xfail(strict=True, reason=NOT_YET[row["note"]])] if row["note"] in NOT_YET else []
    return pytest.param(row, marks=marks, id=f"{index}-{row['note'][4:44]}")


@pytest.mark.parametrize("row", [_adversarial_param(i, r) for i, r in enumerate(ADVERSARIAL)])
def test_adversarial_row(row):
    _check(row)


def test_adversarial_expectations_are_known_and_not_yet_list_is_current():
    notes = [row["note"] for row in ADVERSARIAL]
    assert len(notes) == len(set(notes)), "adversarial notes must be unique (they key the not-yet list)"
    assert set(NOT_YET) <= set(notes), sorted(set(NOT_YET) - set(notes))
    assert {row["expected"] for row in ADVERSARIAL} <= {"correct", "not-correct", "no_answer"}
