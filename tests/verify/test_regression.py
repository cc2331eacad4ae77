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
    "adv/subject-value: 15 students did not attend":
        "a subject value is never read under a negation ('Thus 5 is not a solution' must not answer 5)",
    "adv/list-of-sets: union of sets vs flat": "a list of sets is not flattened against a flat gold list",
    "adv/main-clause: value then when-clause": "a trailing 'when' clause without a comma is not cut off",
    "adv/multi-part: labelled gold": "part labels inside a gold ('(a) 2, (b) 7') are not read",
    "adv/clock-times: final sentence clock": "a final sentence without a copula ('ends at 9:05 a.m.') is not read",
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
