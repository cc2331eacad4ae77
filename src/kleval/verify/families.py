"""Periodic solution families: `x = \\frac{\\pi}{2} + k\\pi, k \\in \\mathbb{Z}` compared as sets of values.

A family is one or more expressions in one integer parameter. Two families are equal when they
describe the same set of numbers: both are evaluated at every integer in [-SPAN, SPAN], and on
the window of values both cover densely (the smaller of their ranges at |k| <= 8), every value
of one must be a value of the other. So `k\\pi` == `n\\pi`, `\\frac{\\pi}{2} + k\\pi` ==
`-\\frac{\\pi}{2} + k\\pi`, but `2k\\pi` != `k\\pi`. Deterministic: no symbolic solving. Two expressions
in different integer letters (`k`, `m`, `n`, `j`) compare with the answer's letter renamed to the gold's.
"""
from __future__ import annotations

from typing import Any

SPAN = 40
CORE = 8
TOLERANCE = 1e-9


def _values(parameter: str, exprs: tuple[Any, ...], span: int) -> list[float] | None:
    import sympy

    symbol = sympy.Symbol(parameter)
    values = []
    for expr in exprs:
        others = expr.free_symbols - {symbol}
        if others:
            return None  # a family must depend on its integer parameter only
        for k in range(-span, span + 1):
            try:
                value = complex(sympy.N(expr.xreplace({symbol: sympy.Integer(k)}), 20))
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                return None
            if value.imag != 0 or value.real != value.real:
                return None
            values.append(value.real)
    return sorted(values)


def _covered(values: list[float], others: list[float], window: float) -> bool:
    """Every value of `values` inside the window is (within tolerance) a value of `others`."""
    import bisect

    for v in values:
        if abs(v) > window:
            continue
        i = bisect.bisect_left(others, v - TOLERANCE * max(1.0, abs(v)))
        if i >= len(others) or abs(others[i] - v) > TOLERANCE * max(1.0, abs(v)):
            return False
    return True


def as_family(c: Any, parameter: str) -> tuple[str, tuple[Any, ...]] | None:
    """A family as (parameter, expressions); a list of expressions in `parameter` (a gold written without
    its `k \\in \\mathbb{Z}`) is read as one, anything else is not a family."""
    import sympy

    if c.kind == "family":
        return c.value
    members = c.value if c.kind in ("list", "set") else (c,)
    if not all(m.kind in ("expr", "number") for m in members):
        return None
    exprs = tuple(m.value for m in members)
    if not any(sympy.Symbol(parameter) in e.free_symbols for e in exprs):
        # class family-own-letter: `n\\pi` (its "where n is any integer" outside the box) against a family in
        # k: an answer whose expressions share one free letter is a family in that letter
        letters = set().union(*(e.free_symbols for e in exprs))
        if len(letters) != 1:
            return None
        return next(iter(letters)).name, exprs
    return parameter, exprs


def families_equal(a: tuple[str, tuple[Any, ...]], b: tuple[str, tuple[Any, ...]]) -> bool:
    """Whether two families (parameter name, expressions) describe the same set of numbers."""
    va, vb = _values(*a, SPAN), _values(*b, SPAN)
    ca, cb = _values(*a, CORE), _values(*b, CORE)
    if not va or not vb or not ca or not cb:
        return False
    window = min(max(abs(x) for x in ca), max(abs(x) for x in cb))
    if window <= 0:
        return False
    return _covered(va, vb, window) and _covered(vb, va, window)


# class parameter-renamed: the letters that name an integer parameter (an index or a family's period count)
INTEGER_LETTERS = frozenset("kmnj")


def renamed_parameter(gold: Any, pred: Any) -> Any | None:
    """`pred` with its integer parameter renamed to the gold's, when each side is an expression in one
    integer letter and the letters differ (`\\frac{\\pi}{2} + n\\pi` against `\\frac{\\pi}{2} + k\\pi`: the
    letter is bound, so the name carries no meaning); None otherwise. `x` and `y` are never renamed."""
    import sympy

    if not (isinstance(gold, sympy.Basic) and isinstance(pred, sympy.Basic)):
        return None
    if len(gold.free_symbols) != 1 or len(pred.free_symbols) != 1 or gold.free_symbols == pred.free_symbols:
        return None
    (g,), (p,) = gold.free_symbols, pred.free_symbols
    if g.name not in INTEGER_LETTERS or p.name not in INTEGER_LETTERS:
        return None
    return pred.xreplace({p: g})



# class integration-constant: the letters an arbitrary constant of integration is written with
CONSTANT_LETTERS = {"c", "C", "K", "c_1", "C_1", "c_{1}", "C_{1}", "c_0", "C_0", "c_{0}", "C_{0}"}


def renamed_constant(gold: Any, pred: Any) -> Any | None:
    """`pred` with its arbitrary constant renamed to the gold's, when the two differ in exactly one symbol on
    each side and both are constant letters (`\\frac{C}{x^2}` against `c x^{-2}`, `+ K` against `+ C`): the
    constant is arbitrary, so its name carries no meaning; None otherwise."""
    import sympy

    if not (isinstance(gold, sympy.Basic) and isinstance(pred, sympy.Basic)):
        return None
    only_gold, only_pred = gold.free_symbols - pred.free_symbols, pred.free_symbols - gold.free_symbols
    if len(only_gold) != 1 or len(only_pred) != 1:
        return None
    (g,), (p,) = only_gold, only_pred
    if g.name not in CONSTANT_LETTERS or p.name not in CONSTANT_LETTERS:
        return None
    return pred.xreplace({p: g})
