"""Gold hygiene: every gold must parse, verify against itself and against its reference solution.

Used by `kleval check-golds` and by the full-data tests. A failure is either a verifier bug or a
bad gold; known bad golds are listed in docs/verifier.md.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from kleval.types import AnswerKind, Problem, Status
from kleval.verify.core import verify
from kleval.verify.extract import gsm8k_final, last_boxed


@dataclass(frozen=True)
class GoldException:
    """One problem whose gold failed a check: which check, and the verdict's explanation."""

    problem_id: str
    gold: str
    check: str  # "self" or "reference"
    status: str
    explanation: str


def _as_completion(gold: str, policy: str) -> str:
    """Wrap a gold so the policy's extractor finds it verbatim."""
    if policy == "gsm8k":
        return f"#### {gold}"
    if policy in ("choice", "exact"):
        return gold
    return f"\\boxed{{{gold}}}"


def check_problem(problem: Problem, policy: str) -> list[GoldException]:
    """Failures of one problem's gold (empty when it is clean)."""
    kind = problem.kind.value if isinstance(problem.kind, AnswerKind) else str(problem.kind)
    failures = []
    self_verdict = verify(gold=problem.gold, completion=_as_completion(problem.gold, policy), kind=kind, policy=policy)
    if self_verdict.status is not Status.CORRECT:
        failures.append(GoldException(problem.id, problem.gold, "self", self_verdict.status.value, self_verdict.explanation))
    if problem.reference and kind != "choice":
        final = gsm8k_final(problem.reference) if policy == "gsm8k" else last_boxed(problem.reference)
        if final is not None:
            verdict = verify(gold=problem.gold, completion=_as_completion(final, policy), kind=kind, policy=policy)
            if verdict.status is not Status.CORRECT:
                failures.append(GoldException(problem.id, problem.gold, "reference", verdict.status.value,
                                              f"reference answer {final!r}: {verdict.explanation}"))
    return failures


def check_problems(problems: Iterable[Problem], policy: str) -> tuple[int, list[GoldException]]:
    count, failures = 0, []
    for problem in problems:
        count += 1
        failures.extend(check_problem(problem, policy))
    return count, failures


def problems_from_file(path: str | Path) -> tuple[list[Problem], str]:
    """Problems from a raw MATH (`solution`) or GSM8K (`answer` with ####) JSONL file, and its policy."""
    problems, policy = [], "default"
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            row = json.loads(line)
            if "solution" in row:
                gold = row.get("answer") or last_boxed(row["solution"]) or ""
                problems.append(Problem(f"{Path(path).name}:{line_number}", row["problem"], gold, AnswerKind.MATH,
                                        reference=row["solution"]))
            else:
                policy = "gsm8k"
                gold = gsm8k_final(row["answer"]) or ""
                problems.append(Problem(f"{Path(path).name}:{line_number}", row["question"], gold, AnswerKind.NUMBER,
                                        reference=row["answer"]))
    return problems, policy
