"""The tiny Countdown base (reference) model: a character-level Llama taught bare-expression
Countdown (`7,7,4:10=7+(7-4)`) on noisy labels, so that RL has something to fix.

Problems come from `kleval.countdown.draw_problem` with the tiny parameters (numbers 1-10, targets
1-100): half with 3 numbers (the RL task, `countdown_tiny`), half with 4 numbers (the out-of-
distribution skill, `countdown_tiny_ood`, that RL never trains), never a (numbers, target) of the
held-out parts. The label is the generator's solution, except for human-like slips (SLIPS):
- 20%: the parentheses are dropped (`(2+4)*3` written `2+4*3`): wrong exactly when precedence
  matters, a systematic error that depends on the problem, so RL can learn where to avoid it;
- 10%: one operator is swapped for another (off by one operation);
- 5%: one number is written in place of another (a number used twice).
A slip that happens to keep the value is kept too; the label is then simply right. The model
(MODEL_SHAPE, about 0.13M parameters) trains DEFAULT_STEPS steps of 128 examples, about 2-3 minutes
on one thread; the committed base was built with `build_countdown_base` at these defaults.
"""
from __future__ import annotations

import random
from pathlib import Path

from kleval.countdown import (
    PARTS,
    TINY_ALPHABET,
    TINY_ID_SIZES,
    TINY_MAX_NUMBER,
    TINY_MAX_TARGET,
    TINY_OOD_SIZES,
    bare_prefix,
    draw_problem,
    problem_key,
)
from kleval.resources import bundled_root

COMMITTED_BASE = bundled_root() / "assets" / "tiny-countdown-base"  # repo assets/ or the wheel's copy
MODEL_SHAPE = {"hidden_size": 64, "num_layers": 2, "num_heads": 4, "intermediate_size": 256, "max_positions": 64}
OOD_SHARE = 0.5
SLIPS = (("drop parentheses", 0.20), ("swap an operator", 0.10), ("repeat a number", 0.05))
HELD_OUT_PARTS = ("tiny-test", "tiny-ood")
DEFAULT_STEPS = 2000


def _drop_parentheses(solution: str, rng: random.Random) -> str:
    return solution.replace("(", "").replace(")", "")


def _swap_operator(solution: str, rng: random.Random) -> str:
    places = [i for i, ch in enumerate(solution) if ch in "+-*/"]
    i = rng.choice(places)
    return solution[:i] + rng.choice([op for op in "+-*/" if op != solution[i]]) + solution[i + 1:]


def _repeat_number(solution: str, rng: random.Random) -> str:
    import re

    spans = [m.span() for m in re.finditer(r"\d+", solution)]
    (start, end), other = rng.sample(spans, 2)
    return solution[:start] + solution[other[0]:other[1]] + solution[end:]


_SLIP_FUNCTIONS = {"drop parentheses": _drop_parentheses, "swap an operator": _swap_operator,
                   "repeat a number": _repeat_number}


def held_out_keys() -> set[tuple[tuple[int, ...], int]]:
    """(numbers, target) keys of the tiny evaluation parts, which pre-training never shows."""
    from kleval.countdown import load_rows

    return {problem_key(r["numbers"], r["target"]) for part in HELD_OUT_PARTS for r in load_rows(part)}


def example_drawer(exclude: set):
    """draw_example(rng) -> (prefix, noisy label) for `train_char_model`."""

    def draw_example(rng: random.Random) -> tuple[str, str]:
        sizes = TINY_OOD_SIZES if rng.random() < OOD_SHARE else TINY_ID_SIZES
        while True:
            drawn = draw_problem(rng, sizes=sizes, max_number=TINY_MAX_NUMBER, max_target=TINY_MAX_TARGET)
            if drawn is not None and problem_key(drawn[0], drawn[2]) not in exclude:
                break
        numbers, solution, target = drawn
        label = solution.replace(" ", "")
        roll = rng.random()
        for name, share in SLIPS:
            if roll < share:
                label = _SLIP_FUNCTIONS[name](label, rng)
                break
            roll -= share
        return bare_prefix(numbers, target), label

    return draw_example


def build_countdown_base(out_dir: str | Path, *, steps: int = DEFAULT_STEPS, batch_size: int = 128,
                         learning_rate: float = 2e-3, seed: int = 0, threads: int | None = 1,
                         progress: bool = False) -> Path:
    """Train the tiny Countdown base from scratch and save it (weights + tokenizer) in HF format."""
    from kleval.train.base import train_char_model

    assert set(PARTS) >= set(HELD_OUT_PARTS)
    return train_char_model(out_dir, alphabet=TINY_ALPHABET, draw_example=example_drawer(held_out_keys()),
                            model_shape=MODEL_SHAPE, steps=steps, batch_size=batch_size,
                            learning_rate=learning_rate, seed=seed, threads=threads, progress=progress,
                            desc="countdown base")


def ensure_countdown_base(base_dir: str | Path | None = None, *, threads: int | None = 1,
                          progress: bool = False) -> Path:
    """base_dir if it holds a model, else the committed base, else a fresh build (about 3 min on the
    one thread it was committed with, so that a rebuild gives the same bytes)."""
    from kleval.train.tiny import ensure_base

    return ensure_base(base_dir, steps=DEFAULT_STEPS, threads=threads, progress=progress, committed=COMMITTED_BASE,
                       build=build_countdown_base)
