"""Sequences written with an ellipsis: `1, 3, 5, \\dots, 2n-1`, `2, 4, \\ldots, 2n`, `3, 6, 9, \\ldots`.

class ellipsis-sequence: a list (or set, or tuple) with one ellipsis member is the sequence its
written terms determine, not a list with an unparsable member. The terms before the ellipsis (the
head) follow a pattern: the last term when it is a general term in one letter (`2n-1` gives
1, 3, 5 at n = 1, 2, 3; the first index tried is 0, then 1), else a constant difference (any two
terms) or a constant ratio (three or more). Two sequences are equal when both are finite (a last
term after the ellipsis) or both endless, their first TERMS terms by those patterns agree, and
their last terms are equal (`2n` != `2n+2`, `99` != `97`). A head that follows no pattern must be
written out the same. Bounded: at most MAX_TERMS written terms, TERMS generated ones.
"""
from __future__ import annotations

import re
from typing import Any

ELLIPSIS = re.compile(r"^(?:\\[lc]?dots[cb]?|\.\.\.|…)$")
TERMS = 12
MAX_TERMS = 40


def has_ellipsis(elements: list[str]) -> bool:
    """Whether one of the written members is an ellipsis (`\\dots`, `\\ldots`, `\\cdots`, `...`, `…`)."""
    return len(elements) > 1 and any(ELLIPSIS.match(e.strip()) for e in elements)


def sequence(elements: list[str], source: str, brackets: str, policy):
    """The Canon of kind `dots` for the written members; value (head, tail), each a tuple of Canons."""
    from kleval.verify.canonical import Canon, ParseFailure, canonicalize

    marks = [i for i, e in enumerate(elements) if ELLIPSIS.match(e.strip())]
    if len(marks) != 1 or marks[0] == 0 or len(elements) > MAX_TERMS:
        raise ParseFailure("a sequence needs one ellipsis after its first terms")
    head = tuple(canonicalize(e, policy) for e in elements[: marks[0]] if e.strip())
    tail = tuple(canonicalize(e, policy) for e in elements[marks[0] + 1 :] if e.strip())
    if len(tail) > 1:
        raise ParseFailure("a sequence with more than one term after its ellipsis")
    return Canon("dots", (head, tail), source, brackets)


def _numbers(terms: tuple) -> list | None:
    values = [t.value for t in terms]
    return values if all(t.kind == "number" for t in terms) else None


def _bounded(general: Any, index: Any) -> bool:
    """Whether every exponent and factorial argument of the general term is at most linear in its index,
    so that its first TERMS values stay small (`2^{n-1}`, `(2n)!`, `n^n`; never `(n!)!` or `n^{n^2}`)."""
    import sympy

    for node in sympy.preorder_traversal(general):
        if isinstance(node, sympy.Pow):
            arguments = (node.exp,)
        elif isinstance(node, (sympy.factorial, sympy.binomial, sympy.gamma, sympy.factorial2)):
            arguments = node.args
        else:
            continue
        for argument in arguments:
            if not argument.is_polynomial(index) or sympy.degree(argument, index) > 1:
                return False
    return True


def _pattern(c) -> list | None:
    """The first TERMS terms the written head determines, or None when it follows no pattern."""
    import sympy

    head, tail = c.value
    values = _numbers(head)
    if values is None:
        return None
    try:
        general = tail[0].value if tail and tail[0].kind == "expr" else None
        index = next(iter(general.free_symbols)) if general is not None and len(general.free_symbols) == 1 else None
        if index is not None and _bounded(general, index):
            for first in (0, 1):
                terms = [general.xreplace({index: sympy.Integer(first + j)}) for j in range(TERMS)]
                if all(sympy.simplify(t - v) == 0 for t, v in zip(terms, values)):
                    return terms
        if len(values) >= 2:
            step = values[1] - values[0]
            if all(values[j + 1] - values[j] == step for j in range(len(values) - 1)):
                return [values[0] + j * step for j in range(TERMS)]
            if len(values) >= 3 and values[0] != 0:
                ratio = values[1] / values[0]
                if all(values[j + 1] == values[j] * ratio for j in range(len(values) - 1)):
                    return [values[0] * ratio**j for j in range(TERMS)]
    except (TypeError, ValueError, OverflowError, ZeroDivisionError, AttributeError, sympy.PolynomialError):
        return None
    return None


def sequences_equal(a: Any, b: Any, policy) -> bool:
    """Whether two ellipsis sequences are the same sequence (see the module docstring)."""
    from kleval.verify.canonical import Canon
    from kleval.verify.compare import equal

    if (a.brackets == "()") != (b.brackets == "()"):
        return False  # a tuple is ordered and never a list or set of terms
    (head_a, tail_a), (head_b, tail_b) = a.value, b.value
    if len(tail_a) != len(tail_b) or not all(equal(x, y, policy)[0] for x, y in zip(tail_a, tail_b)):
        return False
    terms_a, terms_b = _pattern(a), _pattern(b)
    if terms_a is None or terms_b is None:
        return len(head_a) == len(head_b) and all(equal(x, y, policy)[0] for x, y in zip(head_a, head_b))
    return all(equal(Canon("number", x, ""), Canon("number", y, ""), policy)[0] for x, y in zip(terms_a, terms_b))
