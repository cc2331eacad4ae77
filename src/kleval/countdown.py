"""Countdown, the paper's second task: reach a target number with given numbers and + - * /.

A problem gives numbers (e.g. 3 5 7 9) and a target (24); an answer is an arithmetic expression
that uses each given number at most once and equals the target exactly, e.g. (9 - 5) * (7 - 3).

- Grading (`verify_countdown`, the task's policy "countdown", so eval scores and RL rewards are
  the same function): the answer is the last `<answer>...</answer>` of a completion, or the whole
  completion when it is nothing but an expression (the tiny-model format). It is parsed by a small
  recursive-descent parser over the grammar
      expr := term (("+" | "-") term)* ;  term := factor (("*" | "/") factor)* ;
      factor := INTEGER | "(" expr ")"
  and evaluated with exact fractions. Model text is never executed (no eval, no ast of Python):
  anything outside the grammar (powers, names, unary minus, decimals) is a parse error, inputs are
  capped at MAX_EXPRESSION_CHARS characters and MAX_DEPTH nested parentheses, so grading takes
  time linear in a bounded input whatever the model writes.
- Gold strings carry the whole problem, `"target=24; numbers=3,5,7,9"`, since the verifier sees
  only (gold, completion).
- Data: `generate_split` draws solvable problems deterministically from a seed (the target is the
  value of a random expression over the numbers); `write_data` writes assets/countdown/{train,
  test}.jsonl, test problems never sharing (numbers, target) with train. The committed files are
  the source of truth (`python -m kleval.countdown` regenerates them byte for byte); task specs
  read them through the synthetic-task hook (`load_problems`).
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from kleval.resources import bundled_root
from kleval.types import AnswerKind, Problem, Status, Verdict

MAX_EXPRESSION_CHARS = 256
MAX_DEPTH = 16
MAX_COMPLETION_CHARS = 100_000  # longer completions are only searched in their last part
DATA_DIR = bundled_root() / "assets" / "countdown"  # repo assets/ or the wheel's copy (kleval.resources)
# Characters the tiny model's tokenizer would need for the bare-expression format (see docs/tasks.md).
TINY_ALPHABET = tuple("0123456789+-*/()=,:")

_GOLD = re.compile(r"^\s*target\s*=\s*(\d+)\s*;\s*numbers\s*=\s*(\d+(?:\s*,\s*\d+)*)\s*$")
_ANSWER_OPEN, _ANSWER_CLOSE = "<answer>", "</answer>"
_SYNONYMS = (("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"), ("×", "*"), ("·", "*"), ("÷", "/"),
             ("−", "-"), ("–", "-"), ("\\left", ""), ("\\right", ""), ("$", ""))
_BARE_EXPRESSION = re.compile(r"^[\d\s+\-*/()=.]+$")


class ExpressionError(ValueError):
    """The answer is not an expression of the Countdown grammar (or exceeds the size limits)."""


# ---- parsing and evaluation ------------------------------------------------------------------

def _tokens(text: str) -> list[str]:
    tokens, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "+-*/()":
            if ch == "*" and text[i + 1:i + 2] == "*":
                raise ExpressionError("powers (**) are not allowed")
            tokens.append(ch)
            i += 1
        elif ch.isascii() and ch.isdigit():
            j = i
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
            tokens.append(text[i:j])
            i = j
        else:
            raise ExpressionError(f"character {ch!r} is not allowed (only integers, + - * / and parentheses)")
    return tokens


class _Parser:
    """Recursive descent over the token list; depth is bounded by MAX_DEPTH."""

    def __init__(self, tokens: list[str]):
        self.tokens, self.pos, self.numbers = tokens, 0, []

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ExpressionError("the expression ends too early")
        self.pos += 1
        return token

    def expr(self, depth: int) -> Fraction:
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            op, right = self.take(), self.term(depth)
            value = value + right if op == "+" else value - right
        return value

    def term(self, depth: int) -> Fraction:
        value = self.factor(depth)
        while self.peek() in ("*", "/"):
            op, right = self.take(), self.factor(depth)
            if op == "*":
                value = value * right
            elif right == 0:
                raise ZeroDivisionError("division by zero")
            else:
                value = value / right
        return value

    def factor(self, depth: int) -> Fraction:
        token = self.take()
        if token == "(":
            if depth >= MAX_DEPTH:
                raise ExpressionError(f"more than {MAX_DEPTH} nested parentheses")
            value = self.expr(depth + 1)
            if self.take() != ")":
                raise ExpressionError("a parenthesis is not closed")
            return value
        if token.isdigit():
            self.numbers.append(int(token))
            return Fraction(int(token))
        raise ExpressionError(f"expected a number or '(', found {token!r}")


def evaluate_expression(text: str) -> tuple[Fraction, list[int]]:
    """Exact value of a Countdown expression and the integers it uses, in order.

    Raises ExpressionError for anything outside the grammar or the size limits, and
    ZeroDivisionError for a division by zero. Never executes the text.
    """
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    tokens = _tokens(text)
    if not tokens:
        raise ExpressionError("empty expression")
    parser = _Parser(tokens)
    value = parser.expr(0)
    if parser.pos != len(tokens):
        raise ExpressionError(f"unexpected {tokens[parser.pos]!r} after the expression")
    return value, parser.numbers


# ---- grading ---------------------------------------------------------------------------------

def format_gold(target: int, numbers: list[int] | tuple[int, ...]) -> str:
    return f"target={int(target)}; numbers={','.join(str(int(n)) for n in numbers)}"


def parse_gold(gold: str) -> tuple[int, list[int]]:
    match = _GOLD.match(gold or "")
    if not match:
        raise ValueError(f"not a Countdown gold (expected 'target=T; numbers=a,b,...'): {gold!r}")
    return int(match.group(1)), [int(n) for n in match.group(2).split(",")]


def extract_answer(completion: str) -> tuple[str | None, str]:
    """(answer text, how it was found): the last <answer>...</answer>, else a bare expression."""
    text = (completion or "")[-MAX_COMPLETION_CHARS:]
    close = text.rfind(_ANSWER_CLOSE)
    if close != -1:
        open_ = text.rfind(_ANSWER_OPEN, 0, close)
        if open_ != -1:
            return text[open_ + len(_ANSWER_OPEN):close], "last <answer> tag"
    stripped = text.strip()
    if stripped and len(stripped) <= MAX_EXPRESSION_CHARS and _BARE_EXPRESSION.match(stripped):
        return stripped, "whole completion"
    return None, "no <answer>...</answer> and the completion is not a bare expression"


def _normalize(answer: str) -> str:
    for old, new in _SYNONYMS:
        answer = answer.replace(old, new)
    # "(9-5)*(7-3) = 16": the expression is left of the first '='.
    return answer.split("=", 1)[0].strip()


def verify_countdown(*, gold: str, completion: str) -> Verdict:
    """Grade one Countdown completion; never raises on model text, never executes it."""
    try:
        target, numbers = parse_gold(gold)
    except ValueError as exc:
        return Verdict(Status.GOLD_ERROR, None, None, None, "countdown-gold", str(exc))
    gold_show = format_gold(target, numbers)
    span, how = extract_answer(completion)
    if span is None:
        return Verdict(Status.NO_ANSWER, None, gold_show, None, "extract", how)
    expression = _normalize(span[:MAX_EXPRESSION_CHARS + 1])
    try:
        value, used = evaluate_expression(expression)
    except ExpressionError as exc:
        return Verdict(Status.PARSE_ERROR, span[:200], gold_show, None, "countdown-parse", f"answer ({how}): {exc}")
    except ZeroDivisionError:
        return Verdict(Status.INCORRECT, span[:200], gold_show, expression, "countdown-value",
                       f"answer ({how}) divides by zero")
    available = list(numbers)
    for n in used:
        if n not in available:
            return Verdict(Status.INCORRECT, span, gold_show, expression, "countdown-numbers",
                           f"answer ({how}) uses {n} more often than given {sorted(numbers)}")
        available.remove(n)
    if value != target:
        return Verdict(Status.INCORRECT, span, gold_show, expression, "countdown-value",
                       f"answer ({how}) equals {value}, not {target}")
    return Verdict(Status.CORRECT, span, gold_show, expression, "countdown-exact",
                   f"answer ({how}) uses given numbers at most once and equals {target} exactly")


# ---- problems and data -----------------------------------------------------------------------

QUESTION_STYLES = ("words", "bare")
MAX_DRAWS_PER_PROBLEM = 1000


@dataclass(frozen=True)
class Part:
    """One committed data file: how its problems are drawn, and which parts it must not overlap."""

    seed: int
    count: int
    sizes: tuple[int, ...] = (3, 4)  # how many numbers a problem gives
    max_number: int = 99
    max_target: int = 999
    style: str = "words"  # see generate_split
    excludes: tuple[str, ...] = ()  # held-out parts whose (numbers, target) keys this part avoids


# The tiny Countdown of the CPU study (kleval.countdown_study): small numbers and targets so that a
# ~0.2M-parameter character model can learn it (docs/tasks.md). ID: 3 numbers; OOD: 4 numbers, seen in
# the base's pre-training and never trained by RL (as subtraction is for the arithmetic demo).
TINY_MAX_NUMBER, TINY_MAX_TARGET = 10, 100
TINY_ID_SIZES, TINY_OOD_SIZES = (3,), (4,)
_TINY = {"max_number": TINY_MAX_NUMBER, "max_target": TINY_MAX_TARGET, "style": "bare"}
PARTS = {
    "train": Part(seed=0, count=2000, excludes=("test",)),
    "test": Part(seed=1, count=500),
    "tiny-train": Part(seed=2, count=1500, sizes=TINY_ID_SIZES, excludes=("tiny-test", "tiny-ood"), **_TINY),
    "tiny-test": Part(seed=3, count=500, sizes=TINY_ID_SIZES, **_TINY),
    "tiny-ood": Part(seed=4, count=500, sizes=TINY_OOD_SIZES, **_TINY),
}

def question_text(numbers: list[int], target: int) -> str:
    return f"Using the numbers {numbers}, create an equation that equals {target}."


def _random_expression(rng: random.Random, numbers: list[int]) -> tuple[str, Fraction]:
    """A random full binary expression over `numbers` (all of them, in the given order)."""
    if len(numbers) == 1:
        return str(numbers[0]), Fraction(numbers[0])
    split = rng.randint(1, len(numbers) - 1)
    left_text, left = _random_expression(rng, numbers[:split])
    right_text, right = _random_expression(rng, numbers[split:])
    ops = ["+", "-", "*"] + (["/"] if right != 0 else [])
    op = rng.choice(ops)
    value = {"+": left + right, "-": left - right, "*": left * right}.get(op) if op != "/" else left / right
    left_text = left_text if len(numbers[:split]) == 1 else f"({left_text})"
    right_text = right_text if len(numbers[split:]) == 1 else f"({right_text})"
    return f"{left_text} {op} {right_text}", value


def draw_problem(rng: random.Random, *, sizes: tuple[int, ...] = (3, 4), max_number: int = 99,
                 max_target: int = 999) -> tuple[list[int], str, int] | None:
    """One random (numbers as shown, solution, target) draw, or None when the drawn expression's
    value is not an integer in 1..max_target (the caller draws again). The only source of problems:
    the committed parts (`generate_split`) and the tiny base's pre-training stream use it alike."""
    numbers = [rng.randint(1, max_number) for _ in range(rng.choice(sizes))]
    order = numbers[:]
    rng.shuffle(order)
    solution, value = _random_expression(rng, order)
    if value.denominator != 1 or not 1 <= value <= max_target:
        return None
    return numbers, solution, int(value)


def problem_key(numbers, target: int) -> tuple[tuple[int, ...], int]:
    """What makes two problems the same: the multiset of numbers and the target."""
    return tuple(sorted(numbers)), int(target)


def bare_prefix(numbers: list[int], target: int) -> str:
    """The tiny model's question, `1,3,4,6:24=`: its answer is the bare expression that follows."""
    return f"{','.join(str(int(n)) for n in numbers)}:{int(target)}="


def generate_split(part: str, *, seed: int, count: int, exclude: set | None = None,
                   sizes: tuple[int, ...] = (3, 4), max_number: int = 99, max_target: int = 999,
                   style: str = "words") -> list[dict]:
    """`count` solvable problems drawn deterministically from `seed`, none with a key in `exclude`.

    Each row: id, numbers (as shown), target, solution (a reference expression), question, gold.
    The key of a problem is (sorted numbers, target); keys are distinct within a split. style
    "words": the question is an English sentence (chat models); "bare": the tiny model's prefix
    (`bare_prefix`) and a solution without spaces, so both are written in TINY_ALPHABET.
    """
    if style not in QUESTION_STYLES:
        raise ValueError(f"style must be one of {QUESTION_STYLES}, got {style!r}")
    rng = random.Random(f"countdown:{seed}")
    seen, rows, draws = set(exclude or ()), [], 0
    while len(rows) < count:
        draws += 1
        if draws > MAX_DRAWS_PER_PROBLEM * count:  # the parameters allow fewer distinct problems than asked
            raise ValueError(f"countdown part {part!r}: only {len(rows)} distinct problems in {draws - 1} draws, "
                             f"asked for {count}; ask for fewer or widen sizes, max_number or max_target")
        drawn = draw_problem(rng, sizes=sizes, max_number=max_number, max_target=max_target)
        if drawn is None:
            continue
        numbers, solution, target = drawn
        key = problem_key(numbers, target)
        if key in seen:
            continue
        seen.add(key)
        bare = style == "bare"
        rows.append({"id": f"countdown-{part}-{len(rows):05d}", "numbers": numbers, "target": target,
                     "solution": solution.replace(" ", "") if bare else solution,
                     "question": bare_prefix(numbers, target) if bare else question_text(numbers, target),
                     "gold": format_gold(target, numbers)})
    return rows


def write_data(out_dir: str | Path = DATA_DIR) -> list[Path]:
    """Write every part's <part>.jsonl; held-out parts first, so each is fixed by its own seed and
    the training parts avoid their keys."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[str, list[dict]] = {}
    for name in sorted(PARTS, key=lambda n: bool(PARTS[n].excludes)):
        spec = PARTS[name]
        exclude = {problem_key(r["numbers"], r["target"]) for other in spec.excludes for r in rows[other]}
        rows[name] = generate_split(name, seed=spec.seed, count=spec.count, exclude=exclude, sizes=spec.sizes,
                                    max_number=spec.max_number, max_target=spec.max_target, style=spec.style)
    paths = []
    for name in PARTS:
        path = out / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows[name]), encoding="utf-8")
        paths.append(path)
    return paths


def load_rows(part: str, data_dir: str | Path | None = None) -> list[dict]:
    """The committed rows of one part (a ConfigError for an unknown part, a DataError for a missing file)."""
    from kleval.errors import ConfigError, DataError

    if part not in PARTS:
        raise ConfigError(f"countdown generator_params.part must be one of {sorted(PARTS)}, got {part!r}")
    path = Path(data_dir or DATA_DIR) / f"{part}.jsonl"
    if not path.is_file():
        raise DataError(f"{path}: Countdown data missing; regenerate it with `python -m kleval.countdown`")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_problems(*, count: int, seed: int = 0, part: str = "test", data_dir: str | Path | None = None) -> list[Problem]:
    """The first `count` problems of a committed part (see PARTS); `seed` is unused (the file fixes
    the problems) and accepted so the synthetic-task spec keys stay uniform."""
    from kleval.errors import ConfigError

    rows = load_rows(part, data_dir)
    if count > len(rows):
        raise ConfigError(f"asked for {count} Countdown {part} problems but the {part} part holds {len(rows)}")
    return [Problem(id=r["id"], question=r["question"], gold=r["gold"], kind=AnswerKind.NUMBER,
                    reference=r["solution"], metadata={"numbers": r["numbers"], "target": r["target"]})
            for r in rows[:count]]


if __name__ == "__main__":  # python -m kleval.countdown [OUT_DIR]: regenerate the committed data
    import sys

    for written in write_data(sys.argv[1] if len(sys.argv) > 1 else DATA_DIR):
        print(written)
