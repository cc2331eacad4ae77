"""Expressions with variables compared by their values at three fixed points (deterministic, no
`simplify` racing a clock): identity at the points, and proportionality (`4x+6y-12` vs `2x+3y-6`).

The points are irrational-looking constants, two of them positive in every coordinate, so that an
accidental agreement is vanishingly unlikely and an identity of functions defined for positive
arguments (`\\sqrt{1/n}` and `1/\\sqrt{n}`) has two points inside its domain.
"""
from __future__ import annotations

from typing import Any

POINTS = ((0.5772156649, 1.2020569031, 0.6931471805), (1.6180339887, 2.7182818284, 0.3183098861),
          (-0.9159655941, 1.4142135623, 2.2360679774))
# class real-domain: further points, positive in every coordinate, used only once a point was found outside
# the real domain, so that the decision never rests on the two remaining points alone
DOMAIN_POINTS = ((2.6651441426, 3.3598856662, 4.6692016091), (4.6692016091, 0.8346268416, 2.6651441426),
                 (7.3890560989, 5.0275246628, 1.3247179572))
STEP_POINTS = ((1.0, 2.0, 3.0), (-2.0, 0.0, 5.0), (0.5, -1.5, 2.5), (3.5, 4.0, -0.5))
_CLOSE = 1e-12


def values_at(a: Any, b: Any, symbols: list, point: tuple) -> tuple[complex, complex] | None:
    """a and b evaluated with `symbols` set to `point` (30 digits), or None if either is not finite."""
    import sympy

    values = {s: sympy.Float(v, 30) for s, v in zip(symbols, point)}
    try:
        va = complex(sympy.N(a.xreplace(values), 30))
        vb = complex(sympy.N(b.xreplace(values), 30))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
    if va != va or vb != vb or abs(va) == float("inf") or abs(vb) == float("inf"):
        return None
    return va, vb


def breakpoint_points(a: Any, b: Any, dimension: int) -> tuple:
    """class piecewise: points at and on either side of each numeric breakpoint of a one-variable Piecewise or
    absolute value (`x \\ge 1`, `|x - 1|`), where two such functions can differ while agreeing elsewhere."""
    import sympy

    if dimension != 1 or not any(e.has(sympy.Piecewise) for e in (a, b)):
        return ()
    cuts = set()
    for e in (a, b):
        for relation in e.atoms(sympy.core.relational.Relational):
            side = relation.rhs if relation.lhs.is_Symbol else relation.lhs if relation.rhs.is_Symbol else None
            if side is not None and side.is_number and side.is_real:
                cuts.add(float(side))
        for node in e.atoms(sympy.Abs):
            roots = sympy.solve(node.args[0]) if sympy.count_ops(node.args[0]) <= 6 else []
            cuts.update(float(r) for r in roots if r.is_number and r.is_real)
    return tuple((c + offset,) for c in sorted(cuts)[:6] for offset in (-0.3183098861, 0.0, 0.3183098861))


def _non_real(v: complex) -> bool:
    return abs(v.imag) > _CLOSE * max(1.0, abs(v))


def identical_at_points(a: Any, b: Any) -> bool | None:
    """Whether a and b agree at the fixed points (None when fewer than two points can decide).

    class real-domain: for expressions written without the imaginary unit, a point where the two
    disagree and either value is not real lies outside the real domain of that expression (`\\sqrt{1/n}`
    and `1/\\sqrt{n}` at n < 0, where sympy's principal roots differ by a sign); it is not a test point.
    Once a point is outside, three further positive points are tried and at least three points inside the
    common real domain must agree (never two alone: `\\lfloor\\sqrt{n-1}\\rfloor` and
    `\\lfloor n/2 \\rfloor` agree at two small points), so `\\sqrt{1/n}` == `\\frac{1}{\\sqrt{n}}` and
    `x^{-1/2}` == `\\sqrt{1/x}`, while `|x|` != `x` and `\\sqrt{x^2}` != `x` (both real, and different, at
    the negative point). With `i` in either expression every point counts, as before.
    """
    import sympy

    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    if len(symbols) > 3:
        return None
    real_written = not (a.has(sympy.I) or b.has(sympy.I))
    # class step-function-points: floor and ceiling differ only at integers and half-integers (`\lfloor x \rfloor + 1`
    # vs `\lceil x \rceil`, `2\lfloor x \rfloor` vs `\lfloor 2x \rfloor`), which no irrational point hits
    steps = STEP_POINTS if any(e.has(sympy.floor, sympy.ceiling, sympy.frac) for e in (a, b)) else ()
    steps += breakpoint_points(a, b, len(symbols))
    first = POINTS + steps
    agreed, outside = 0, 0
    for index, point in enumerate(first + DOMAIN_POINTS):
        if index >= len(first) and not outside:
            break
        values = values_at(a, b, symbols, point)
        if values is None:
            continue
        va, vb = values
        if abs(va - vb) > _CLOSE * max(1.0, abs(va)):
            if real_written and (_non_real(va) or _non_real(vb)):
                outside += 1  # outside the real domain of one of them: not a test point
                continue
            return False
        agreed += 1
    return True if agreed >= (3 if outside else 2) else None


def proportional(a: Any, b: Any) -> bool:
    """Whether a == r*b for one nonzero constant r (`4x+6y-12` vs `2x+3y-6`), checked at the fixed points."""
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    if not symbols or len(symbols) > 3:
        return False
    ratios = []
    for point in POINTS:
        values = values_at(a, b, symbols, point)
        if values is None or not (abs(values[0]) > 1e-12 and abs(values[1]) > 1e-12):
            return False
        ratios.append(values[0] / values[1])
    return all(abs(r - ratios[0]) <= 1e-12 * abs(ratios[0]) for r in ratios)
