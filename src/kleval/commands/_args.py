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
