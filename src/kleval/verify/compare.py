"""Decide whether two canonical answers are equal under a policy, and name the rule that decided.

Numbers compare exactly (Rationals, or 50-digit evaluation of the difference for radicals, pi,
logs); expressions with variables compare by evaluation at fixed points (kleval.verify.points; no
`simplify` race against a clock); tuples are ordered, sets and "all solutions" lists are not;
intervals keep their bracket types; `x = 3` matches `3` when one side is a bare variable.
"""
from __future__ import annotations

import math
import re
from typing import Any

from kleval.verify.canonical import Canon, ParseFailure, canonicalize
from kleval.verify.decimals import (
    decimal_comma,
    float_precision_decimal,
    float_precision_places,
)
from kleval.verify.families import renamed_constant, renamed_parameter
from kleval.verify.points import identical_at_points, proportional
from kleval.verify.policy import Policy

_DIGITS = 50
_MAX_DIGITS = 1000
_GROUPED = ("list", "set", "seq", "union")


_MAX_EXACT_DIGITS = 20000  # integers/rationals up to this many digits are compared exactly



# class letter-list: the letters of graphs or options a MATH question asks for, separated by commas ("A,D",
# "B, E, G"), are a set: their order is free, and a letter missing or added is a wrong answer
_LETTER_LIST = re.compile(r"[a-z](?: ?(?:,|and|, and) ?[a-z])+")


def _letter_list(key: str) -> frozenset[str] | None:
    """The letters of a text key that lists two or more single letters, or None."""
    key = key.replace("\\text", " ").strip(" {}$.")
    if not _LETTER_LIST.fullmatch(key):
        return None
    letters = re.findall(r"(?<![a-z])[a-z](?![a-z])", key)
    return frozenset(letters) if len(letters) == len(set(letters)) else None


def _exact_rational(x: Any) -> Any | None:
    """The exact Rational value of an integer/rational expression (`9^{1000}-1`, `100!`), else None.

    A 50-digit evaluation cannot tell `2^{3000}` from `2^{3000}+1`, so rational-valued numbers are
    computed exactly; every power, factorial and binomial inside is sized first, so nothing bigger
    than _MAX_EXACT_DIGITS digits is ever built.
    """
    import sympy

    if x.is_Rational:
        return x
    if x.is_rational is not True:
        return None
    limit = sympy.Float(10) ** _MAX_EXACT_DIGITS
    for node in sympy.preorder_traversal(x):
        if isinstance(node, (sympy.Pow, sympy.factorial, sympy.binomial)) or node is x:
            try:
                magnitude = abs(sympy.N(node, 15))
            except (TypeError, ValueError, OverflowError, ZeroDivisionError):
                return None
            if not magnitude.is_Float and not magnitude.is_Rational:
                return None
            if magnitude > limit or (magnitude != 0 and magnitude < 1 / limit):
                return None
    value = x.doit()
    return value if value.is_Rational else None


def _numbers_equal(a: Any, b: Any, policy: Policy) -> bool:
    import sympy

    if a == b:
        return True
    exact_a, exact_b = _exact_rational(a), _exact_rational(b)
    if exact_a is not None and exact_b is not None:
        if policy.relative_tolerance == 0:
            return exact_a == exact_b or float_precision_decimal(exact_a, exact_b)
        return abs(exact_a - exact_b) <= policy.relative_tolerance * max(1, abs(exact_a))
    if not (a.is_finite and b.is_finite):
        return False
    try:
        scale = max(abs(complex(sympy.N(a, 20))), abs(complex(sympy.N(b, 20))))
        # Enough digits that the difference is resolved below the tolerance for large magnitudes.
        digits = _DIGITS + max(0, int(math.log10(scale))) if scale > 0 else _DIGITS
        if digits > _MAX_DIGITS:
            return False  # too large to compare numerically without a rational value
        diff = complex(sympy.N(a - b, digits))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return False
    # "Exact" means a difference below 1e-40 of the larger magnitude (so 1e-50*sqrt(2) != 0),
    # and never more than 1e-20 in absolute terms (so 2^{300}*sqrt(2) != 2^{300}*sqrt(2) + 1).
    tolerance = max(policy.relative_tolerance * max(scale, 1.0), min(1e-40 * scale, 1e-20))
    for x in (exact_a, exact_b):  # 4.123105625617661 is sqrt(17) written to float precision
        places = float_precision_places(x)
        if places:
            tolerance = max(tolerance, 10.0 ** -places)
    return abs(diff) <= tolerance


def _undefined(x: Any) -> bool:
    """A value from a division by zero or an indeterminate form (`12:00` read as 12/0): it equals nothing."""
    import sympy

    return bool(x.has(sympy.zoo, sympy.nan)) if isinstance(x, sympy.Basic) else False


def _unevaluated(x: Any) -> bool:
    """class unevaluated-operator: a limit, integral, sum, product or derivative left standing."""
    import sympy

    return isinstance(x, sympy.Basic) and x.has(sympy.Limit, sympy.Integral, sympy.Sum, sympy.Product, sympy.Derivative)


_MAX_TERMS = 1000


def _evaluated_gold(a: Any) -> Any:
    """class gold-operator: a gold written as a finite sum or product without free variables (`\\sum_{n=0}^{9} n`)
    is its value (45), so a closed-form answer can equal it; limits and integrals stay as written, and a sum or
    product of more than _MAX_TERMS terms is never expanded. (Symbolic sums already compare at points.)"""
    import sympy

    if not _unevaluated(a) or not a.is_number or a.has(sympy.Limit, sympy.Integral) or sympy.count_ops(a) > 40:
        return a
    for node in sympy.preorder_traversal(a):
        if isinstance(node, (sympy.Sum, sympy.Product)):
            for _, low, high in node.limits:
                span = high - low
                if span.is_number and not (span.is_finite and abs(span) <= _MAX_TERMS):
                    return a
    try:
        value = a.doit()
    except (TypeError, ValueError, NotImplementedError, AttributeError, RecursionError):
        return a
    return a if _unevaluated(value) else value


def _exprs_equal(a: Any, b: Any, policy: Policy) -> tuple[bool, str]:
    """a is the gold's value, b the answer's."""
    a = _evaluated_gold(a)
    if _undefined(a) or _undefined(b):
        return False, "undefined-value"
    if _unevaluated(b) and not _unevaluated(a):
        # an answer that restates the limit or integral it was asked to evaluate ("$\lim_{x \to 0} \frac{\sin x}{x}$"
        # for 1) has not answered; a gold written as a sum still accepts its closed form
        return False, "unevaluated-operator"
    if a.is_number and b.is_number:
        return _numbers_equal(a, b, policy), "numeric-exact" if policy.relative_tolerance == 0 else "numeric-tolerance"
    if a == b:
        return True, "sympy-structural"
    same = identical_at_points(a, b)
    if same is not None:
        return same, "identity-at-fixed-points"
    import sympy

    if sympy.count_ops(a) + sympy.count_ops(b) > 60:
        return False, "too large to simplify"
    return bool(sympy.simplify(a - b) == 0), "sympy-simplify"


def _same_solutions(da: Any, db: Any, policy: Policy) -> bool:
    """class implicit-curve: two small equations in the same two or three variables are the same curve when,
    solved for each variable in turn, they give the same solutions (`xy = 1` and `y = \\frac{1}{x}`); solving for
    every variable keeps a lost branch visible (`x^2 = xy` also has x = 0, so it is not `x = y`)."""
    import sympy

    symbols = da.free_symbols
    if symbols != db.free_symbols or not 2 <= len(symbols) <= 3 or sympy.count_ops(da) + sympy.count_ops(db) > 30:
        return False
    try:
        for symbol in sorted(symbols, key=lambda x: x.name):
            ra, rb = sympy.solve(da, symbol), sympy.solve(db, symbol)
            if not ra or len(ra) > 4 or not _paired(ra, rb, lambda x, y: _exprs_equal(x, y, policy)[0]):
                return False
    except (NotImplementedError, TypeError, ValueError, AttributeError, RecursionError):
        return False
    return True


def _as_set(c: Canon) -> Any | None:
    """A sympy set for intervals, unions and one-variable inequalities (None otherwise)."""
    import sympy

    try:
        if c.kind == "seq" and len(c.value) == 2 and c.brackets in ("()", "[]", "(]", "[)"):
            lo, hi = (x.value for x in c.value)
            return sympy.Interval(lo, hi, c.brackets[0] == "(", c.brackets[1] == ")")
        if c.kind == "list" and c.value and all(x.kind == "relation" for x in c.value):
            # "x < -2 or x > 2": a list of one-variable conditions is the union of their sets
            if len({sym for x in c.value for sym in x.value.free_symbols}) != 1:
                return None
            parts = [_as_set(p) for p in c.value]
            return None if any(p is None for p in parts) else sympy.Union(*parts)
        if c.kind == "union":
            parts = [_as_set(p) for p in c.value]
            return None if any(p is None for p in parts) else sympy.Union(*parts)
        if c.kind == "relation" and not isinstance(c.value, sympy.Eq):
            relation = c.value
            applied = relation.atoms(sympy.core.function.AppliedUndef)
            if len(applied) == 1:  # "0 < f(x) < 1": the values of f(x) form the set
                relation = relation.xreplace({applied.pop(): sympy.Dummy("value")})
            if len(relation.free_symbols) != 1 or sympy.count_ops(relation) > 20:
                return None
            return relation.as_set()
    except (TypeError, ValueError, NotImplementedError, AttributeError):
        return None
    return None


def _paired(a, b, same) -> bool:
    """Whether every member of a has its own member of b with same(x, y), and none of b is left over."""
    if len(a) != len(b):
        return False
    remaining = list(b)
    for x in a:
        for j, y in enumerate(remaining):
            if same(x, y):
                del remaining[j]
                break
        else:
            return False
    return True


def _match_unordered(a: tuple[Canon, ...], b: tuple[Canon, ...], policy: Policy) -> bool:
    return _paired(a, b, lambda x, y: equal(x, y, policy)[0])


def _match_ordered(a: tuple[Canon, ...], b: tuple[Canon, ...], policy: Policy) -> bool:
    return len(a) == len(b) and all(equal(x, y, policy)[0] for x, y in zip(a, b))


def _whole_equations(g: Canon, p: Canon, policy: Policy) -> tuple[Canon, Canon] | None:
    """Both sides as whole equations when one is `y = 2x+1` read as its right side and the other an equation.

    `y = 2x+1` vs `2x - y + 1 = 0` must compare the equations, not `2x+1` against the relation.
    """
    import sympy

    relation, named = (g, p) if g.kind == "relation" else (p, g)
    if not named.named or not isinstance(relation.value, sympy.Eq) or not relation.value.free_symbols:
        return None
    try:
        whole = canonicalize(named.named, policy.with_(equation_rhs=False))
    except ParseFailure:
        return None
    if whole.kind != "relation" or not isinstance(whole.value, sympy.Eq):
        return None
    return (relation, whole) if relation is g else (whole, relation)


def _rhs_if_assignment(c: Canon, named_quantity: bool = True) -> Canon | None:
    """`x = 3` -> `3` when the left side is a bare symbol; `2+2+2 = 6` -> `6` when the left side is a
    computation without variables; `|r-s| = 16` -> `16` when the left side names the quantity.
    `x^2+3 = 3` (a constant term on the left) or `a+3z = 0` (set to zero) is never its right side."""
    import sympy

    lhs, rhs = (c.value.lhs, c.value.rhs) if c.kind == "relation" and isinstance(c.value, sympy.Eq) else (None, None)
    if lhs is None:
        return None
    # `|r-s| = 16`, `2x = 6`, `x + y = 4027`: a left side without a constant term names the quantity
    # An answer's left side names the quantity when it has no constant term (`x + y = 4027`); a gold's
    # only when it is a single term (`|AB| = 1`, `A:B = 1`): a gold `2x + z = 1` asks for the equation.
    if named_quantity:
        names_quantity = rhs.is_number and rhs != 0 and not any(t.is_number for t in sympy.Add.make_args(lhs))
    else:
        names_quantity = rhs.is_number and rhs != 0 and not isinstance(lhs, sympy.Add)
    from sympy.core.function import AppliedUndef

    # (a function's name is a bare name too: "f(x) = (x+1)^2 - 2x = x^2 + 1" states x^2 + 1)
    if isinstance(lhs, (sympy.Symbol, AppliedUndef)) or (rhs.is_number and not lhs.free_symbols) or names_quantity:
        rhs = c.value.rhs
        return Canon("number" if rhs.is_number else "expr", rhs, c.source)
    return None


def _distinct(items: tuple[Canon, ...], policy: Policy) -> tuple[Canon, ...]:
    """A set's members with repeats removed (`\\{1, 2, 2\\}` is `\\{1, 2\\}`)."""
    kept: list[Canon] = []
    for item in items:
        if not any(equal(item, other, policy)[0] for other in kept):
            kept.append(item)
    return tuple(kept)


def _same_function_renamed(g: Canon, p: Canon) -> Canon | None:
    """`f(y) = 1` against `f(x) = 1`: one function defined with another argument letter; the answer's
    value with its argument renamed to the gold's (and the gold's name), else None."""
    import re

    import sympy

    mg, mp = re.fullmatch(r"(\\?[A-Za-z]+)\(([a-z])\)", g.name), re.fullmatch(r"(\\?[A-Za-z]+)\(([a-z])\)", p.name)
    if not (mg and mp and mg.group(1) == mp.group(1)):
        return None
    if not isinstance(p.value, sympy.Basic) or sympy.Symbol(mg.group(2)) in p.value.free_symbols:
        return None  # `f(t) = x^2` is a constant function of t, not x^2
    renamed = p.value.xreplace({sympy.Symbol(mp.group(2)): sympy.Symbol(mg.group(2))})
    return Canon(p.kind, renamed, p.source, p.brackets, p.named, g.name)


def equal(gold: Canon, pred: Canon, policy: Policy) -> tuple[bool, str]:
    """(equal?, rule). Symmetric except where the policy says otherwise."""
    import sympy

    g, p = gold, pred
    if g.name and p.name and g.name != p.name:
        renamed = _same_function_renamed(g, p)
        if renamed is None:
            return False, "name-mismatch"  # x = 4 is not y = 4; x=2, y=-1 is not x=-1, y=2
        p = renamed
    if "ratio" in (g.kind, p.kind):
        from kleval.verify.notations import ratios_equal

        return ratios_equal(g, p), "ratio-proportional"
    if "numberset" in (g.kind, p.kind):
        return (g.kind == p.kind and g.value == p.value), "number-set"
    if "asymptotic" in (g.kind, p.kind):
        from kleval.verify.notations import asymptotics_equal

        return asymptotics_equal(g, p), "asymptotic-growth"
    if "congruence" in (g.kind, p.kind):
        from kleval.verify.notations import congruences_equal

        return congruences_equal(g, p), "congruence-class"
    if g.kind == "family" or p.kind == "family":
        from kleval.verify.families import as_family, families_equal

        parameter = (g if g.kind == "family" else p).value[0]
        fa, fb = as_family(g, parameter), as_family(p, parameter)
        return (fa is not None and fb is not None and families_equal(fa, fb)), "family-as-set"
    if g.kind == "dots" or p.kind == "dots":
        from kleval.verify.sequences import sequences_equal

        return (g.kind == p.kind and sequences_equal(g, p, policy)), "ellipsis-sequence"
    if g.kind == "opaque" or p.kind == "opaque":
        return (g.kind == p.kind and g.value == p.value), "size-guard-string"
    if g.kind == "text" or p.kind == "text":
        gk = g.value if g.kind == "text" else g.source.lower().replace(" ", "")
        pk = p.value if p.kind == "text" else p.source.lower().replace(" ", "")
        letters = [_letter_list(key) for key in (gk, pk)]
        if letters[0] and letters[1]:  # class letter-list: "Enter the letters, separated by commas": "D, A" is "A,D"
            return letters[0] == letters[1], "letter-set"
        return gk == pk, "text"
    if g.kind == "base" and p.kind == "base":
        return g.value == p.value, "base-n-digits"  # 123_4 is not 123_5
    if g.kind == "base" and p.kind == "number":
        # the gold names a base and the answer omits the subscript: the digits must match
        return g.value[0] == str(p.value), "base-n-digits"
    if p.kind == "base" and g.kind == "number":
        # a base-n answer to a decimal gold is its value: 62_8 is 50, not 62
        digits, base = p.value
        try:
            value = int(digits, base) if 2 <= base <= 36 else None
        except ValueError:
            value = None
        return value is not None and g.value == value, "base-n-value"
    if g.kind == "base" or p.kind == "base":
        return False, f"{g.kind}-vs-{p.kind}"
    if policy.decimal_comma:
        decimal = decimal_comma(g, p)
        # (a gold's comma is a decimal comma only for a kind `number` gold, which is one number, or after a leading
        # zero, "0,5": a math gold "2,6" is the list of 2 and 6, which 2.6 never answers, class gold-comma-list)
        if decimal is None and (policy.final_line_number or re.match(r"-?0,", g.source.strip())):
            decimal = decimal_comma(p, g)
        if decimal is not None:
            return decimal, "decimal-comma"
    if policy.equation_rhs and (g.kind == "relation") != (p.kind == "relation"):
        whole = _whole_equations(g, p, policy)
        if whole is not None:
            return equal(*whole, policy)
        g2, p2 = (_rhs_if_assignment(g, named_quantity=False) or g), (_rhs_if_assignment(p) or p)
        if (g2, p2) != (g, p):
            ok, rule = equal(g2, p2, policy)
            return ok, f"equation-rhs/{rule}"
    if g.kind in ("number", "expr") and p.kind in ("number", "expr"):
        ok, rule = _exprs_equal(g.value, p.value, policy)
        renamed = None if ok else renamed_parameter(g.value, p.value)
        if renamed is not None:  # class parameter-renamed: `\frac{\pi}{2} + n\pi` vs `\frac{\pi}{2} + k\pi`
            ok, rule = _exprs_equal(g.value, renamed, policy)[0], "parameter-renamed"
        renamed = None if ok else renamed_constant(g.value, p.value)
        if renamed is not None:  # class integration-constant: `\frac{C}{x^2}` vs `c x^{-2}`
            ok, rule = _exprs_equal(g.value, renamed, policy)[0], "constant-renamed"
        if not ok and policy.percent_scaling and g.value.is_number and p.value.is_number:
            scaled = any(_numbers_equal(g.value * f, p.value, policy) for f in (100, sympy.Rational(1, 100)))
            return scaled, "percent-scaling"
        return ok, rule
    if g.kind == "relation" and p.kind == "relation":
        a, b = g.value, p.value
        if isinstance(a, sympy.Eq) and isinstance(b, sympy.Eq):
            da, db = a.lhs - a.rhs, b.lhs - b.rhs
            same = _exprs_equal(da, db, policy)[0] or _exprs_equal(da, -db, policy)[0] or proportional(da, db)
            if not same and _same_solutions(da, db, policy):
                return True, "equation-solved-forms"
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
        if (ra is None) != (rb is None):
            square = ra if ra is not None else rb
            scaled = _scaled_identity(p if ra is not None else g, square, policy)
            if scaled is not None:
                ra, rb = (square, scaled) if ra is not None else (scaled, square)
        if ra is None or rb is None or len(ra) != len(rb) or any(len(x) != len(y) for x, y in zip(ra, rb)):
            return False, "matrix-shape"
        ok = all(_exprs_equal(x, y, policy)[0] for rx, ry in zip(ra, rb) for x, y in zip(rx, ry))
        return ok, "matrix-elementwise"
    if g.kind in _GROUPED and p.kind in _GROUPED:
        return _grouped_equal(g, p, policy)
    if g.kind == "number" and p.kind in _GROUPED and policy.comma != "thousands" \
            and re.fullmatch(r"\d{1,3}(?:,[1-9]\d{2})+", g.source.strip()):  # (never "12,000" as 12 and 0)
        # class grouped-gold-as-list: a math gold "70,110" is seventy thousand one hundred ten or the list 70, 110 (MATH
        # writes both); an answer that is a list, "70, 110", answers the list reading (and 70110 the number)
        as_list = canonicalize(g.source.strip(), policy.with_(comma="list"))
        if as_list.kind in _GROUPED:
            ok, rule = _grouped_equal(as_list, p, policy)
            return ok, f"gold-as-list/{rule}"
    return False, f"{g.kind}-vs-{p.kind}"


# class scalar-identity: `-3\mathbf{I}` (a scalar times the identity, as MATH's solutions write a dilation) is the
# square matrix diag(-3, ..., -3) of the other side's size; never a non-square matrix
_SCALED_IDENTITY = re.compile(r"([-+]?(?:\d+(?:\.\d+)?|\\[dt]?frac ?\{\d+\} ?\{\d+\})?) ?(?:\\cdot ?)?(?:\\mathbf ?\{ ?I ?\}|\\mathbb ?\{ ?I ?\}|\\mathrm ?\{ ?I ?\}|\\operatorname\{ ?I ?\}|I)(?:_\{?\d\}?)?")


def _scaled_identity(c: Canon, square: tuple, policy: Policy) -> tuple | None:
    """The rows of `c` read as k times the identity of `square`'s size, or None."""
    from kleval.verify.canonical import ParseFailure, canonicalize

    m = _SCALED_IDENTITY.fullmatch(c.source.strip().strip("$"))
    n = len(square)
    size = re.search(r"_\{?(\d)\}?$", c.source.strip().strip("$"))
    if m is None or any(len(row) != n for row in square) or (size and int(size.group(1)) != n):
        return None  # (`2\mathbf{I}_2` is 2x2, never a 3x3 gold)
    coefficient = m.group(1).strip() or "1"
    coefficient = {"-": "-1", "+": "1"}.get(coefficient, coefficient)
    try:
        k = canonicalize(coefficient, policy)
    except ParseFailure:
        return None
    if k.kind != "number":
        return None
    import sympy

    return tuple(tuple(k.value if i == j else sympy.Integer(0) for j in range(n)) for i in range(n))


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
        solution_tuples = all(x.kind == "seq" for x in g.value + p.value)  # "(1,2), (3,4)": a set of solutions
        if "set" in (g.kind, p.kind) or solution_tuples:
            return _match_unordered(_distinct(g.value, policy), _distinct(p.value, policy), policy), "set-unordered"
        return _match_unordered(g.value, p.value, policy), "set-unordered"
    # A tuple against a bare list: accepted only in the same order ("(1, 2)" vs "1, 2"); a set
    # `\{1, 2\}` is never a point or an interval.
    if "set" in (g.kind, p.kind):
        return False, f"{g.kind}-vs-{p.kind}"
    return _match_ordered(g.value, p.value, policy) and "(" in (g.brackets + p.brackets), "tuple-vs-list"
