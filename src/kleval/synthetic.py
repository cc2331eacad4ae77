"""Synthetic verifiable arithmetic problems for the CPU tiny mode (in- and out-of-distribution).

A task spec with `source = "synthetic"` names a generator here; the task loader calls
`make_problems(generator, count=..., seed=..., **generator_params)`. Questions are written
exactly as the tiny model sees them (`"07+35="`), golds are plain integers (`"42"`), and the
"exact" verifier policy compares the whole stripped completion with the gold.

Every operand pair belongs to a fixed part, "train" or "test", decided by a hash of the pair,
so that RL training prompts (part "train") never include evaluation problems (part "test").
"""
from __future__ import annotations

import hashlib
import random
from typing import Callable

from kleval.errors import ConfigError
from kleval.types import AnswerKind, Problem

OPERATORS: dict[str, tuple[str, Callable[[int, int], int]]] = {
    "add": ("+", lambda a, b: a + b),
    "sub": ("-", lambda a, b: a - b),
}
PARTS = ("train", "test", "all")
TEST_FRACTION_PERCENT = 20  # share of operand pairs held out for evaluation


def question_text(a: int, b: int, operator: str, digits: int) -> str:
    """The prompt the model sees: zero-padded operands, then `=`; the answer follows directly."""
    return f"{a:0{digits}d}{operator}{b:0{digits}d}="


def pair_part(a: int, b: int, digits: int) -> str:
    """Which part ("train" or "test") an operand pair belongs to; stable across Python versions."""
    digest = hashlib.sha256(f"{digits}:{a}:{b}".encode()).digest()
    return "test" if digest[0] * 100 // 256 < TEST_FRACTION_PERCENT else "train"


def has_carry(a: int, b: int, generator: str) -> bool:
    """Whether some column carries (addition) or borrows (subtraction); used for noisy labels."""
    while a or b:
        x, y = a % 10, b % 10
        if (generator == "add" and x + y >= 10) or (generator == "sub" and x < y):
            return True
        a, b = a // 10, b // 10
    return False


def make_problems(
    generator: str,
    *,
    count: int,
    seed: int,
    digits: int = 2,
    part: str = "all",
    nonnegative: bool = False,
) -> list[Problem]:
    """Return `count` distinct problems of one generator ("add" or "sub"), drawn with `seed`.

    digits: operand width (operands are zero-padded to it). part: "train", "test" or "all"
    (see module docstring). nonnegative: for "sub", only pairs with a >= b.
    """
    if generator == "countdown":  # Countdown problems are committed data files (kleval.countdown)
        from kleval.countdown import load_problems

        return load_problems(count=count, seed=seed, part=part)
    if generator not in OPERATORS:
        raise ConfigError(f"unknown synthetic generator {generator!r}; choose one of {sorted(OPERATORS)}")
    if part not in PARTS:
        raise ConfigError(f"generator_params.part must be one of {PARTS}, got {part!r}")
    if not 1 <= digits <= 4:
        raise ConfigError(f"generator_params.digits must be between 1 and 4, got {digits}")
    symbol, apply = OPERATORS[generator]
    limit = 10**digits
    pairs = [
        (a, b)
        for a in range(limit)
        for b in range(limit)
        if (part == "all" or pair_part(a, b, digits) == part) and not (nonnegative and a < b)
    ]
    if count > len(pairs):
        raise ConfigError(f"asked for {count} {generator} problems but only {len(pairs)} distinct ones exist")
    chosen = random.Random(seed).sample(pairs, count)
    return [
        Problem(
            id=f"{generator}{digits}-{a:0{digits}d}{symbol}{b:0{digits}d}",
            question=question_text(a, b, symbol, digits),
            gold=str(apply(a, b)),
            kind=AnswerKind.NUMBER,
            metadata={"a": a, "b": b, "operator": symbol, "carry": has_carry(a, b, generator)},
        )
        for a, b in chosen
    ]
