"""Decide whether two canonical answers are equal under a policy, and name the rule that decided.

Numbers compare exactly (Rationals, or 50-digit evaluation of the difference for radicals, pi,
logs); expressions with variables compare by evaluation at fixed points (deterministic, no
`simplify` race against a clock); tuples are ordered, sets and "all solutions" lists are not;
intervals keep their bracket types; `x = 3` matches `3` when one side is a bare variable.
"""
from __future__ import annotations

from typing import Any

from kleval.verify.canonical import Canon
from kleval.verify.policy import Policy

_DIGITS = 50
_POINTS = ((0.5772156649, 1.2020569031, 0.6931471805), (1.6180339887, 2.7182818284, 0.3183098861),
           (-0.9159655941, 1.4142135623, 2.2360679774))
_GROUPED = ("list", "set", "seq", "union")


def _numbers_equal(a: Any, b: Any, policy: Policy) -> bool:
    import sympy

    if a == b:
        return True
    if a.is_Rational and b.is_Rational and policy.relative_tolerance == 0:
        return False
    if not (a.is_finite and b.is_finite):
        return False
    try:
        diff = complex(sympy.N(a - b, _DIGITS))
        scale = max(1.0, abs(complex(sympy.N(a, 20))))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return False
    tolerance = max(policy.relative_tolerance, 1e-40) * scale
    return abs(diff) <= tolerance


def _identical_at_points(a: Any, b: Any) -> bool | None:
    """Whether a and b agree at three fixed points (None when they cannot be evaluated there)."""
    import sympy

    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    if len(symbols) > 3:
        return None
    agreed = 0
    for point in _POINTS:
        values = {s: sympy.Float(v, 30) for s, v in zip(symbols, point)}
        try:
            va = complex(sympy.N(a.xreplace(values), 30))
            vb = complex(sympy.N(b.xreplace(values), 30))
        except (TypeError, ValueError, OverflowError, ZeroDivisionError):
            continue
        if va != va or vb != vb or abs(va) == float("inf") or abs(vb) == float("inf"):
            continue
        if abs(va - vb) > 1e-12 * max(1.0, abs(va)):
            return False
        agreed += 1
    return True if agreed >= 2 else None


def _exprs_equal(a: Any, b: Any, policy: Policy) -> tuple[bool, str]:
    if a.is_number and b.is_number:
        return _numbers_equal(a, b, policy), "numeric-exact" if policy.relative_tolerance == 0 else "numeric-tolerance"
    if a == b:
        return True, "sympy-structural"
    same = _identical_at_points(a, b)
    if same is not None:
        return same, "identity-at-fixed-points"
    import sympy

    if sympy.count_ops(a) + sympy.count_ops(b) > 60:
        return False, "too large to simplify"
    return bool(sympy.simplify(a - b) == 0), "sympy-simplify"


def _as_set(c: Canon) -> Any | None:
    """A sympy set for intervals, unions and one-variable inequalities (None otherwise)."""
    import sympy

    try:
        if c.kind == "seq" and len(c.value) == 2 and c.brackets in ("()", "[]", "(]", "[)"):
            lo, hi = (x.value for x in c.value)
            return sympy.Interval(lo, hi, c.brackets[0] == "(", c.brackets[1] == ")")
        if c.kind == "union":
            parts = [_as_set(p) for p in c.value]
            return None if any(p is None for p in parts) else sympy.Union(*parts)
        if c.kind == "relation" and len(c.value.free_symbols) == 1 and not isinstance(c.value, sympy.Eq):
            if sympy.count_ops(c.value) > 20:
                return None
            return c.value.as_set()
    except (TypeError, ValueError, NotImplementedError, AttributeError):
        return None
    return None


def _match_unordered(a: tuple[Canon, ...], b: tuple[Canon, ...], policy: Policy) -> bool:
    if len(a) != len(b):
        return False
    remaining = list(b)
    for x in a:
        for j, y in enumerate(remaining):
            if equal(x, y, policy)[0]:
                del remaining[j]
                break
        else:
            return False
    return True


def _match_ordered(a: tuple[Canon, ...], b: tuple[Canon, ...], policy: Policy) -> bool:
    return len(a) == len(b) and all(equal(x, y, policy)[0] for x, y in zip(a, b))


def _rhs_if_assignment(c: Canon) -> Canon | None:
    """`x = 3` -> `3` when the left side is a bare symbol; `2+2+2 = 6` -> `6` when the right is a number."""
    import sympy

    if c.kind == "relation" and isinstance(c.value, sympy.Eq) and (
        isinstance(c.value.lhs, sympy.Symbol) or c.value.rhs.is_number
    ):
        rhs = c.value.rhs
        return Canon("number" if rhs.is_number else "expr", rhs, c.source)
    return None


def equal(gold: Canon, pred: Canon, policy: Policy) -> tuple[bool, str]:
    """(equal?, rule). Symmetric except where the policy says otherwise."""
    import sympy

    g, p = gold, pred
    if g.kind == "opaque" or p.kind == "opaque":
        return (g.kind == p.kind and g.value == p.value), "size-guard-string"
    if g.kind == "text" or p.kind == "text":
        gk = g.value if g.kind == "text" else g.source.lower().replace(" ", "")
        pk = p.value if p.kind == "text" else p.source.lower().replace(" ", "")
        return gk == pk, "text"
    if g.kind == "base" or p.kind == "base":
        digits = lambda c: c.value[0] if c.kind == "base" else str(c.value) if c.kind == "number" else c.source
        return digits(g) == digits(p), "base-n-digits"
    if policy.equation_rhs and (g.kind == "relation") != (p.kind == "relation"):
        g2, p2 = (_rhs_if_assignment(g) or g), (_rhs_if_assignment(p) or p)
        if (g2, p2) != (g, p):
            ok, rule = equal(g2, p2, policy)
            return ok, f"equation-rhs/{rule}"
    if g.kind in ("number", "expr") and p.kind in ("number", "expr"):
        ok, rule = _exprs_equal(g.value, p.value, policy)
        if not ok and policy.percent_scaling and g.value.is_number and p.value.is_number:
            scaled = any(_numbers_equal(g.value * f, p.value, policy) for f in (100, sympy.Rational(1, 100)))
            return scaled, "percent-scaling"
        return ok, rule
    if g.kind == "relation" and p.kind == "relation":
        a, b = g.value, p.value
        if isinstance(a, sympy.Eq) and isinstance(b, sympy.Eq):
            da, db = a.lhs - a.rhs, b.lhs - b.rhs
            same = _exprs_equal(da, db, policy)[0] or _exprs_equal(da, -db, policy)[0]
            return same, "equation-difference"
        sa, sb = _as_set(g), _as_set(p)
        if sa is not None and sb is not None:
            return bool(sa == sb), "inequality-as-set"
        return a == b, "sympy-structural"
    if policy.inequality_equals_interval and "relation" in (g.kind, p.kind):
        sa, sb = _as_set(g), _as_set(p)
        if sa is not None and sb is not None:
            return bool(sa == sb), "inequality-vs-interval"
        return False, "relation-vs-value"
    if g.kind == "matrix" or p.kind == "matrix":
        def rows(c: Canon):
            if c.kind == "matrix":
                return c.value
            if c.kind == "seq" and c.brackets in ("()", "[]"):
                return tuple((x.value,) for x in c.value)  # a tuple compares with a column vector
            return None
        ra, rb = rows(g), rows(p)
        if ra is None or rb is None or len(ra) != len(rb) or any(len(x) != len(y) for x, y in zip(ra, rb)):
            return False, "matrix-shape"
        ok = all(_exprs_equal(x, y, policy)[0] for rx, ry in zip(ra, rb) for x, y in zip(rx, ry))
        return ok, "matrix-elementwise"
    if g.kind in _GROUPED and p.kind in _GROUPED:
        return _grouped_equal(g, p, policy)
    return False, f"{g.kind}-vs-{p.kind}"


def _grouped_equal(g: Canon, p: Canon, policy: Policy) -> tuple[bool, str]:
    if g.kind == "seq" and p.kind == "seq":
        if g.brackets != p.brackets:
            return False, f"brackets {g.brackets} vs {p.brackets}"
        return _match_ordered(g.value, p.value, policy), "tuple-ordered"
    if g.kind == "union" or p.kind == "union":
        sa, sb = _as_set(g), _as_set(p)
        if sa is not None and sb is not None:
            return bool(sa == sb), "union-as-set"
        return g.kind == p.kind and _match_unordered(g.value, p.value, policy), "union-members"
    unordered = {"set", "list"}
    if g.kind in unordered and p.kind in unordered:
        if g.kind == "list" and p.kind == "list" and not policy.unordered_lists:
            return _match_ordered(g.value, p.value, policy), "list-ordered"
        return _match_unordered(g.value, p.value, policy), "set-unordered"
    # A tuple against a bare list: accepted only in the same order ("(1, 2)" vs "1, 2").
    return _match_ordered(g.value, p.value, policy) and "(" in (g.brackets + p.brackets), "tuple-vs-list"
