"""Approximation chains: `9\\pi \\approx 28.27`, `\\frac{2}{3} ≈ 0.667`, `V = 12\\pi \\approx 37.70`.

class approx-chain: an answer that states a value and then its decimal approximation answers with
the value it states; the approximation only restates it. A chain is read as its exact part (the
text before the first approximation sign) when that part states a number without variables
(`9\\pi`, `x = \\frac13`, `A = \\pi r^2 = 9\\pi` with r given) and every approximation after it is a
plain decimal (possibly truncated, `3.14159\\ldots`). The exact part decides, whether or not the
rounding is right (as in Math-Verify's own tests, `x = 5+5+1 = 1/3 \\approx 11` answers 1/3), so a
gold equal only to the rounded value is not the answer, as `3.14` is not `\\pi`. Left as written
(the approximation is then the value, as before): a bare name (`x \\approx 2.5`), a decimal rounded
again (`2.4995 \\approx 2.5`, the rounding a problem asks for), an exact part with variables, and
approximations that are not plain decimals.
"""
from __future__ import annotations

import re

from kleval.verify.policy import Policy
from kleval.verify.sizes import top_level_spans

_MARK = re.compile(r"\\approx(?![a-zA-Z])|≈|\\simeq(?![a-zA-Z])|\\thickapprox(?![a-zA-Z])")
# a plain decimal, possibly truncated with an ellipsis (`3.14159\ldots`)
_DECIMAL = re.compile(r"^([-+]?)(\d+)(?:\.(\d*))?(?: ?(?:\\ldots|\\dots|\\cdots|\.\.\.))?$")
_PLAIN_NUMERAL = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$")
# a name given an approximate value (`x`, `A_1`, `f(2)`, `\theta`); never a constant (`e`, `i`, `\pi`)
_BARE_NAME = re.compile(r"^(?:(?![ei](?![A-Za-z]))[A-Za-z]|\\(?!pi(?![a-zA-Z]))[a-zA-Z]+)"
                        r"(?:_\{?\w+\}?)?(?:\([^()=]*\))?$")
MAX_PARTS = 20


def _number_of(canon) -> object | None:
    """The numeric value a canonical exact part states (`9\\pi`, `x = 1/3`, `A = 9\\pi`), else None."""
    import sympy

    value = canon.value
    if canon.kind == "relation" and isinstance(value, sympy.Eq) and isinstance(value.lhs, sympy.Symbol):
        value = value.rhs
    elif canon.kind != "number":
        return None
    return value if isinstance(value, sympy.Basic) and value.is_number else None


def _exact_part(part: str, policy: Policy) -> str | None:
    """The exact part of one approximation chain, or None when the part is to be left as written."""
    from kleval.verify.canonical import ParseFailure, canonicalize

    marks = list(_MARK.finditer(part))
    exact = part[: marks[0].start()].strip()
    if not exact or _PLAIN_NUMERAL.match(exact) or _BARE_NAME.match(exact):
        return None  # `\approx 3`, a decimal rounded again, or a name given an approximate value
    tail = part[marks[0].start() :]
    approximations = [a.strip() for a in re.split(rf"{_MARK.pattern}|(?<![<>!\\])=", tail)][1:]
    matches = [_DECIMAL.match(a) for a in approximations]
    if not matches or any(m is None for m in matches):
        return None
    try:
        canon = canonicalize(exact, policy)
    except ParseFailure:
        return None
    return exact if _number_of(canon) is not None else None


def exact_of_chains(s: str, policy: Policy) -> str:
    """s with every top-level approximation chain replaced by its exact part (see the module docstring)."""
    if _MARK.search(s) is None:
        return s
    spans = top_level_spans(s)
    if len(spans) > MAX_PARTS:
        return s
    out, at = [], 0
    for start, end in spans:
        part = s[start:end]
        if _MARK.search(part) is None:
            continue
        exact = _exact_part(part.strip(), policy)
        if exact is not None:
            out.append(s[at:start] + (" " if start else "") + exact)
            at = end
    return "".join(out) + s[at:]
