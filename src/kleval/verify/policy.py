"""Named grading policies: the choices that are matters of convention, made explicit and recorded.

A policy never changes *how* an answer is parsed, only which answers count as equal (tolerance,
percent, units, inequality vs interval) and where the answer is looked for (boxed, last number,
the whole completion). docs/verifier.md documents every preset.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

CommaRule = Literal["thousands-when-grouped", "thousands", "list"]


@dataclass(frozen=True)
class Policy:
    """How to extract and compare one kind of answer. Frozen: a policy is part of a verdict's identity."""

    name: str = "default"
    # Where the answer is looked for.
    answer_is_whole_completion: bool = False  # synthetic tasks: the stripped completion is the answer
    literal_only: bool = False  # the answer must equal the gold string exactly ("85+46" is not 131)
    allow_last_number: bool = False  # GSM8K rule: fall back to the last number in the text
    final_line_number: bool = False  # kind `number`: fall back to the last number of the final line
    choice_letters: str = ""  # non-empty: a multiple-choice policy over these letters
    # How numbers compare.
    relative_tolerance: float = 0.0  # 0 means exact (1/3 != 0.333); e.g. 1e-6 for float answers
    comma: CommaRule = "thousands-when-grouped"  # 1,000 is a number; "1, 2" and "1,2" are lists
    percent_equals_number: bool = True  # 10\% == 10 (the sign is dropped, never scaled to 0.1)
    percent_scaling: bool = False  # also accept 10\% == 0.1 (Qwen-style; off: a source of false accepts)
    # A percent sign on one side only (gold 62.5\% vs 0.625, or 25\% vs gold 0.25) is also read as the
    # hundredth it denotes (since 2.1.0). Never without a written sign: 10 vs 0.1 stays wrong.
    percent_sign_value: bool = True
    strip_units: bool = True  # 5\text{ cm} == 5, 30^\circ == 30, \$18 == 18
    inequality_equals_interval: bool = True  # x \le 3 == (-\infty, 3]
    equation_rhs: bool = True  # x = 3 == 3 when one side is a bare variable
    unordered_lists: bool = True  # "all solutions" lists "1, 2" == "2, 1" (tuples in parens stay ordered)
    case_sensitive_text: bool = False  # \text{Yes} == yes
    decimal_comma: bool = True  # a lone "1000,99" / "0,111" against a decimal gold reads as 1000.99 / 0.111

    def with_(self, **changes) -> "Policy":
        """A copy with some fields changed (e.g. a task that wants a tolerance)."""
        return replace(self, **changes)


PRESETS: dict[str, Policy] = {
    "default": Policy(),
    "gsm8k": Policy(name="gsm8k", allow_last_number=True, comma="thousands"),
    "choice": Policy(name="choice", choice_letters="ABCDEFGHIJ"),
    # kind `number` under the default policy: the math grammar, then the GSM8K-style closing number.
    "number": Policy(name="number", final_line_number=True),
    # Synthetic RL tasks: a reward that accepted "85+46" or "046" for 131/46 would pay the policy
    # for copying the question; only the literal gold string counts.
    "exact": Policy(name="exact", answer_is_whole_completion=True, literal_only=True, comma="thousands",
                    strip_units=False),
}


def resolve_policy(policy: "str | Policy", kind: str) -> Policy:
    """The Policy object for a name or object. `default` with kind `choice` or `number` means that preset."""
    if isinstance(policy, Policy):
        return policy
    if policy not in PRESETS:
        raise ValueError(f"unknown verifier policy {policy!r}; known: {', '.join(sorted(PRESETS))}")
    if policy == "default" and kind in ("choice", "number"):
        return PRESETS[kind]
    return PRESETS[policy]
