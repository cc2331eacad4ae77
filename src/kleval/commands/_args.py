"""Argument types shared by several subcommands (stdlib only, so `kleval --help` stays instant)."""
from __future__ import annotations

import argparse


def csv_list(text: str) -> list[str]:
    """"a, b,c" -> ["a", "b", "c"]."""
    return [t.strip() for t in text.split(",") if t.strip()]


def int_list(text: str) -> list[int]:
    """"1,4,16" -> [1, 4, 16], or an argparse error naming the bad value."""
    try:
        return [int(t) for t in csv_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _number(text: str, kind: type, label: str, accept) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {label}, got {text!r}") from None
    if value != value or not accept(value):  # NaN is never a valid setting
        raise argparse.ArgumentTypeError(f"expected {label}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (sample counts, token budgets, workers, chunk sizes)."""
    return _number(text, int, "an integer >= 1", lambda v: v >= 1)


def positive_float(text: str) -> float:
    """A finite number > 0 (time limits, learning rates)."""
    return _number(text, float, "a number > 0", lambda v: 0 < v < float("inf"))


def nonnegative_float(text: str) -> float:
    """A finite number >= 0 (temperature; 0 = greedy)."""
    return _number(text, float, "a number >= 0", lambda v: 0 <= v < float("inf"))


def probability(text: str) -> float:
    """A number in (0, 1] (top-p)."""
    return _number(text, float, "a number in (0, 1]", lambda v: 0 < v <= 1)


def positive_int_list(text: str) -> list[int]:
    """"1,4,16" with every value >= 1."""
    values = int_list(text)
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers >= 1, got {text!r}")
    return values
