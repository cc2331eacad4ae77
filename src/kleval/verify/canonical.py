"""Turn a normalized answer string into a canonical value: numbers, expressions, tuples, sets, text.

Structure (brackets, top-level commas, `\\cup`, matrices, base-n numerals, words) is read here;
each mathematical atom is parsed by latex2sympy2_extended (a maintained ANTLR LaTeX grammar) or,
for plain numbers, by an exact regex fast path. Nothing is ever evaluated as Python: no `eval`,
no `sympify`/`parse_expr` on model text. Size guards run before sympy sees anything, so huge
powers, factorials, long strings and deep nesting become string-compared "opaque" values
instead of hanging a worker.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from kleval.verify.normalize import is_text_wrapped, text_key
from kleval.verify.policy import Policy

MAX_ANSWER_CHARS = 600  # longer spans are not final answers; parsing them is slow and pointless
MAX_BRACE_DEPTH = 12
MAX_EXPONENT = 4096  # a literal exponent above this is compared as a string, never evaluated
MAX_FACTORIAL = 2000
MAX_INTEGER_DIGITS = 3000  # below Python's 4300-digit int/str conversion limit


class ParseFailure(Exception):
    """The answer could not be turned into a canonical value (the message says why)."""


@dataclass(frozen=True)
class Canon:
    """A canonical answer. kind: number, expr, relation, text, seq, set, list, union, matrix, base, opaque."""

    kind: str
    value: Any  # sympy object, str, tuple[Canon, ...] or (digits, base)
    source: str  # the normalized string it came from
    brackets: str = ""  # seq only: the opening and closing bracket, e.g. "(]" for a half-open interval
    named: str = ""  # "y = 2x+1" when the value came from dropping a naming left side (compare may need it)

    def show(self) -> str:
        if self.kind in ("seq", "set", "list", "union"):
            inner = ", ".join(c.show() for c in self.value)
            if self.kind == "set":
                return "{" + inner + "}"
            if self.kind == "union":
                return " U ".join(c.show() for c in self.value)
            if self.kind == "seq":
                return self.brackets[0] + inner + self.brackets[1]
            return inner
        if self.kind == "base":
            return f"{self.value[0]}_{self.value[1]}"
        try:
            return str(self.value)
        except ValueError:  # an integer past Python's int-to-str digit limit
            return self.source


_OPEN = {"(": ")", "[": "]", "{": "}"}
_NUMBER_RE = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")
_THOUSANDS_RE = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_FRAC_RE = re.compile(r"^([-+]?)\\frac\{\s*([-+]?\d+)\s*\}\{\s*([-+]?\d+)\s*\}$|^([-+]?\d+)\s*/\s*([-+]?\d+)$")
_SCI_RE = re.compile(r"^([-+]?\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?$")
_REPEATING_RE = re.compile(r"^([-+]?)(\d*)\.(\d*)\\overline\{(\d+)\}$")
_INT_POWER_RE = re.compile(r"^(\d+)\s*\^\s*\{?\s*(\d+)\s*\}?$")
_BASE_RE = re.compile(r"^([0-9A-Za-z]+)_\{?\(?(\d{1,2})\)?\}?$")
_WORDS_RE = re.compile(r"^[A-Za-z][A-Za-z'\- ]*[A-Za-z]$")
_MATRIX_RE = re.compile(r"\\begin\{[pbvBV]?matrix\}")
_EXPONENT_RE = re.compile(r"\^\s*\{?\s*(\d+)")
_NESTED_POWER_RE = re.compile(r"\^\s*\{[^{}]*\^|\^\s*\d+\s*\^")
_BINOMIAL_RE = re.compile(r"\\[dt]?binom\s*(?:\{\s*(\d+)\s*\}|(\d))")
_FACTORIAL_RE = re.compile(r"(\d+)\s*!")
_DIGITS_RE = re.compile(r"\d+")


def _scan_brackets(s: str) -> list[int]:
    """Bracket depth before each character; `\\{`, `\\}` count as brackets, `\\left` is gone already."""
    depth, depths = 0, []
    for i, ch in enumerate(s):
        depths.append(depth)
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depths


def split_top_level(s: str, separators: str = ",;") -> list[str]:
    """Split at separators outside any bracket; escaped `\\,` never reaches here (normalized away)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in separators and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    parts.append(s[start:])
    return [p.strip() for p in parts]


def _outer_brackets(s: str) -> tuple[str, str, str] | None:
    """(open, close, inner) when the first bracket closes at the very end of s, else None."""
    if s.startswith("\\{") and s.endswith("\\}"):
        opener, body, closer = "{", s[2:-2], "}"
    elif s.startswith("\\langle") and s.endswith("\\rangle"):
        opener, body, closer = "(", s[7:-7], ")"
    elif s and s[0] in "([" and s[-1] in ")]":
        opener, body, closer = s[0], s[1:-1], s[-1]
    else:
        return None
    depth = 0
    for ch in body:
        depth += 1 if ch in "([{" else -1 if ch in ")]}" else 0
        if depth < 0:
            return None  # e.g. "(1)+(2)": the first bracket closes early
    return (opener, closer, body.strip()) if depth == 0 else None


def _check_size(s: str) -> str | None:
    """Why s is too big to hand to sympy, or None when it is safe."""
    if max(_scan_brackets(s) or [0]) > MAX_BRACE_DEPTH:
        return f"nesting deeper than {MAX_BRACE_DEPTH}"
    if _NESTED_POWER_RE.search(s):
        return "a power tower"
    for m in _EXPONENT_RE.finditer(s):
        if len(m.group(1)) > 6 or int(m.group(1)) > MAX_EXPONENT:
            return f"an exponent above {MAX_EXPONENT}"
    if "\\choose" in s or "binom" in s:
        small = [m for m in _BINOMIAL_RE.finditer(s) if len(m.group(1) or m.group(2)) <= 6
                 and int(m.group(1) or m.group(2)) <= MAX_FACTORIAL]
        if "\\choose" in s or len(small) < s.count("binom"):
            return f"a binomial coefficient that is not (n <= {MAX_FACTORIAL}) choose k"
    for m in _FACTORIAL_RE.finditer(s):
        if len(m.group(1)) > 6 or int(m.group(1)) > MAX_FACTORIAL:
            return f"a factorial above {MAX_FACTORIAL}!"
    for m in _DIGITS_RE.finditer(s):
        if len(m.group(0)) > MAX_INTEGER_DIGITS:
            return f"an integer longer than {MAX_INTEGER_DIGITS} digits"
    return None


def _fast_number(s: str) -> Any | None:
    """An exact sympy Rational for plain numerals, decimals, a/b, \\frac{a}{b} and 1.5\\times10^{3}."""
    import sympy

    t = s.strip()
    if _NUMBER_RE.match(t):
        return sympy.Rational(Fraction(t))
    if _THOUSANDS_RE.match(t):
        return sympy.Rational(Fraction(t.replace(",", "")))
    m = _FRAC_RE.match(t)
    if m:
        sign, num, den = (m.group(1), m.group(2), m.group(3)) if m.group(2) else ("", m.group(4), m.group(5))
        if int(den) == 0:
            return None
        value = sympy.Rational(int(num), int(den))
        return -value if sign == "-" else value
    m = _REPEATING_RE.match(t)
    if m:  # 1.2\overline{34} = (1234 - 12) / 990
        sign, whole, fixed, period = m.groups()
        head = Fraction(f"{whole or 0}.{fixed}") if fixed else Fraction(int(whole or 0))
        value = head + Fraction(int(period), (10 ** len(period) - 1) * 10 ** len(fixed))
        return sympy.Rational(-value if sign == "-" else value)
    m = _SCI_RE.match(t)
    if m:
        return sympy.Rational(Fraction(m.group(1))) * sympy.Integer(10) ** int(m.group(2))
    return None


def _exactify(expr: Any) -> Any:
    """Floats from decimals become exact Rationals; the symbol i becomes the imaginary unit."""
    import sympy

    try:
        floats = expr.atoms(sympy.Float)
    except AttributeError:
        return expr
    mapping = {f: sympy.Rational(Fraction(str(f))) for f in floats}
    if mapping:
        expr = expr.xreplace(mapping)
    imaginary = [s for s in expr.free_symbols if getattr(s, "name", "") == "i"]
    if imaginary:
        expr = expr.xreplace({imaginary[0]: sympy.I})
    return expr


def _latex_to_sympy(s: str) -> Any:
    """Parse one atom with latex2sympy2_extended (no normalization of its own; we did that)."""
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig, latex2sympy

    config = ConversionConfig(interpret_as_mixed_fractions=True, lowercase_symbols=False)
    try:
        return latex2sympy(s, normalization_config=None, conversion_config=config)
    except RecursionError as exc:
        raise ParseFailure("nesting too deep for the LaTeX parser") from exc
    except Exception as exc:  # the ANTLR grammar and sympy raise many unrelated types; all mean "unparsable"
        raise ParseFailure(f"LaTeX parser: {type(exc).__name__}: {str(exc)[:120]}") from exc


def _split_words(s: str) -> str:
    """`12 and 13`, `12\\text{ and }13` -> `12, 13` (only between math-looking parts)."""
    s = re.sub(r"\s*\\(?:text|mbox)\{\s*(?:and|or|,)\s*\}\s*", ", ", s)
    return re.sub(r"(?<=[\d}\)\]])\s+(?:and|or)\s+(?=[-\d\\(\[a-z])", ", ", s)


def _simplify_relation_text(s: str) -> str:
    """`x \\in [1,2]` -> `[1,2]`; `x = 2+3 = 5` -> `x = 5`; `\\approx` counts as `=`."""
    s = s.replace("\\approx", "=")
    m = re.match(r"^[A-Za-z](?:_\{?\w+\}?)?\s*\\in\s*(.+)$", s)
    if m:
        return m.group(1).strip()
    if len(split_top_level(s)) > 1:
        return s  # "x=3, x=-2" is a list of two equations, not a chain ending in -2
    parts = re.split(r"(?<![<>!\\])=(?!=)", s)
    if len(parts) > 2 and all(p.strip() for p in parts):
        return parts[0].strip() + " = " + parts[-1].strip()
    return s


_NAME = r"(?:[A-Za-z]|\\[a-zA-Z]+)(?:_\{?\w+\}?)?(?:'|\^\{?\*\}?)?(?:\([^()=]*\))?"
_NAMED_LHS = re.compile(rf"^(?:{_NAME}|\(\s*{_NAME}(?:\s*,\s*{_NAME})+\s*\))$")


def _drop_named_lhs(s: str) -> str:
    """`x = 3` -> `3`, `(b,c) = (6,5)` -> `(6,5)`, `f(n) = n` -> `n`: the left side only names the answer."""
    depths = _scan_brackets(s)
    cuts = [i for i, ch in enumerate(s) if ch == "=" and depths[i] == 0 and (i == 0 or s[i - 1] not in "<>!\\")]
    if len(cuts) != 1:
        return s
    lhs, rhs = s[: cuts[0]].strip(), s[cuts[0] + 1 :].strip()
    if rhs and _NAMED_LHS.match(lhs):
        return rhs
    return s


def _opaque_key(s: str) -> str:
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


def canonicalize(s: str, policy: Policy) -> Canon:
    """The canonical value of a normalized answer string; raises ParseFailure when there is none."""
    s = s.strip()
    if not s:
        raise ParseFailure("empty answer")
    if len(s) > MAX_ANSWER_CHARS:
        raise ParseFailure(f"answer longer than {MAX_ANSWER_CHARS} characters")
    if is_text_wrapped(s):
        key = text_key(s, policy)
        fast = _fast_number(key)
        return Canon("number", fast, s) if fast is not None else Canon("text", key, s)
    if policy.comma != "list" and _THOUSANDS_RE.match(s):
        return Canon("number", _fast_number(s), s)
    if policy.comma == "thousands" and re.fullmatch(r"[-+]?\d[\d,]*(?:\.\d+)?", s):
        return Canon("number", _fast_number(s.replace(",", "")), s)
    s = _split_words(s)
    if policy.equation_rhs:
        rhs = _drop_named_lhs(s)
        if rhs != s:
            return replace(canonicalize(rhs, policy), named=s)
    s = _simplify_relation_text(s)

    union_parts = [p.strip() for p in re.split(r"\\cup", s)] if "\\cup" in s else []
    if len(union_parts) > 1 and all(union_parts):
        return Canon("union", tuple(canonicalize(p, policy) for p in union_parts), s)

    outer = _outer_brackets(s)
    if outer is not None:
        opener, closer, body = outer
        elements = split_top_level(body) if body else []
        if opener == "{":
            return Canon("set", tuple(canonicalize(e, policy) for e in elements if e), s)
        if len(elements) > 1:
            return Canon("seq", tuple(canonicalize(e, policy) for e in elements), s, opener + closer)
        if opener == "(" and body:
            return canonicalize(body, policy)
    parts = split_top_level(s)
    parts = [p for p in parts if p]  # "7, -2, \\text{ and } -5" leaves an empty slot
    if len(parts) > 1:
        return Canon("list", tuple(canonicalize(p, policy) for p in parts), s)
    if not parts:
        raise ParseFailure("only separators, no answer")
    s = parts[0]

    base = _BASE_RE.match(s)
    if base and not base.group(1).isalpha():
        return Canon("base", (base.group(1).upper().lstrip("0") or "0", int(base.group(2))), s)
    fast = _fast_number(s)
    if fast is not None:
        return Canon("number", fast, s)
    if s in ("\\emptyset", "\\{\\}", "\\{ \\}"):
        return Canon("set", (), s)
    if _WORDS_RE.match(s) and len(s) > 1 and not re.fullmatch(r"[a-z]\w?", s):
        return Canon("text", text_key(s, policy), s)
    too_big = _check_size(s)
    if too_big is not None:
        return Canon("opaque", _opaque_key(s), s)
    if _MATRIX_RE.search(s):
        import sympy

        matrix = _latex_to_sympy(s)
        if not isinstance(matrix, sympy.MatrixBase):
            raise ParseFailure("matrix environment did not parse as a matrix")
        rows = tuple(tuple(_exactify(x) for x in matrix.row(r)) for r in range(matrix.rows))
        return Canon("matrix", rows, s)
    s = _simplify_relation_text(s)
    import sympy

    expr = _exactify(_latex_to_sympy(s))
    if isinstance(expr, sympy.FiniteSet):  # what the parser makes of 1 \pm \sqrt{19}
        members = tuple(_exactify(m) for m in expr.args)
        return Canon("list", tuple(Canon("number" if m.is_number else "expr", m, s) for m in members), s)
    if isinstance(expr, (sympy.Set, sympy.Tuple)) or not isinstance(expr, sympy.Basic):
        raise ParseFailure(f"unexpected structure from the LaTeX parser: {type(expr).__name__}")
    if isinstance(expr, sympy.core.relational.Relational) or isinstance(expr, (sympy.And, sympy.Or)):
        return Canon("relation", expr, s)
    if expr.is_number:
        return Canon("number", expr, s)
    return Canon("expr", expr, s)
