"""Size guards: which answers are too big to hand to sympy, and the string key they are compared by.

A power tower, an exponent above MAX_EXPONENT, a factorial or binomial beyond MAX_FACTORIAL, an
integer longer than MAX_INTEGER_DIGITS or nesting deeper than MAX_BRACE_DEPTH is never evaluated:
kleval.verify.canonical makes it an "opaque" value compared by `opaque_key` (`4^{5000}` and
`2^{10000}` share the key `2^10000`), so no worker hangs on a huge number. The bracket scans these
checks and the parsers share (`scan_brackets`, `top_level_spans`) live here too.
"""
from __future__ import annotations

import re

MAX_BRACE_DEPTH = 12
MAX_EXPONENT = 4096  # a literal exponent above this is compared as a string, never evaluated
MAX_FACTORIAL = 2000
MAX_INTEGER_DIGITS = 3000  # below Python's 4300-digit int/str conversion limit

_INT_POWER_RE = re.compile(r"^(\d+)\s*\^\s*\{?\s*(\d+)\s*\}?$")
_EXPONENT_RE = re.compile(r"\^\s*\{?\s*(\d+)")
_NESTED_POWER_RE = re.compile(r"\^\s*\{[^{}]*\^|\^\s*\d+\s*\^")
_BINOMIAL_RE = re.compile(r"\\[dt]?binom\s*(?:\{\s*(\d+)\s*\}|(\d))")
_SYMBOLIC_BINOMIAL_RE = re.compile(r"\\[dt]?binom\s*\{[^{}]*[a-z][^{}]*\}\s*\{[^{}]*\}")
_FACTORIAL_RE = re.compile(r"(\d+)\s*!")
_DIGITS_RE = re.compile(r"\d+")


def scan_brackets(s: str) -> list[int]:
    """Bracket depth before each character; `\\{`, `\\}` count as brackets, `\\left` is gone already."""
    depth, depths = 0, []
    for i, ch in enumerate(s):
        depths.append(depth)
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depths


def check_size(s: str) -> str | None:
    """Why s is too big to hand to sympy, or None when it is safe."""
    if max(scan_brackets(s) or [0]) > MAX_BRACE_DEPTH:
        return f"nesting deeper than {MAX_BRACE_DEPTH}"
    if _NESTED_POWER_RE.search(s):
        return "a power tower"
    for m in _EXPONENT_RE.finditer(s):
        if len(m.group(1)) > 6 or int(m.group(1)) > MAX_EXPONENT:
            return f"an exponent above {MAX_EXPONENT}"
    if "\\choose" in s or "binom" in s:
        small = [m for m in _BINOMIAL_RE.finditer(s) if len(m.group(1) or m.group(2)) <= 6
                 and int(m.group(1) or m.group(2)) <= MAX_FACTORIAL]
        # class special-functions: a binomial whose top has a variable (`\\binom{n+1}{2}`) is never evaluated to a
        # huge integer, so it is safe to hand to sympy when its numbers are small
        small += [m for m in _SYMBOLIC_BINOMIAL_RE.finditer(s)
                  if all(len(d) <= 6 and int(d) <= MAX_FACTORIAL for d in _DIGITS_RE.findall(m.group(0)))]
        if "\\choose" in s or len(small) < s.count("binom"):
            return f"a binomial coefficient that is not (n <= {MAX_FACTORIAL}) choose k"
    for m in _FACTORIAL_RE.finditer(s):
        if len(m.group(1)) > 6 or int(m.group(1)) > MAX_FACTORIAL:
            return f"a factorial above {MAX_FACTORIAL}!"
    for m in _DIGITS_RE.finditer(s):
        if len(m.group(0)) > MAX_INTEGER_DIGITS:
            return f"an integer longer than {MAX_INTEGER_DIGITS} digits"
    return None


def opaque_key(s: str) -> str:
    """The string an over-size value is compared by; `4^{5000}` and `2^{10000}` share `2^10000`."""
    m = _INT_POWER_RE.match(s)
    if m and len(m.group(1)) <= 30 and len(m.group(2)) <= 12:
        from sympy.ntheory.factor_ import perfect_power

        base, exponent = int(m.group(1)), int(m.group(2))
        root = perfect_power(base) if base > 1 else False
        if root:
            base, exponent = root[0], root[1] * exponent
        return f"{base}^{exponent}"
    return re.sub(r"\s+", "", s)


def top_level_spans(s: str, separators: str = ",;") -> list[tuple[int, int]]:
    """(start, end) of each part of s between separators outside any bracket."""
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in separators and depth == 0:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(s)))
    return spans
