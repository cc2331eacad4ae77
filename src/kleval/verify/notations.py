"""Notations with a value of their own, read before the LaTeX parser sees them (verifier 2.7.0).

- class ratio: `1:2:3` is a ratio, equal to `2:4:6` (proportional parts), never the division chain
  (1/2)/3, which made `2:5:3` equal `2:3:5`. A clock time (`12:00`, `9:05`) is never a ratio.
- class congruence: `x \\equiv 3 \\pmod{7}` is the residue class of 3 modulo 7; `x \\equiv 10 \\pmod 7`
  names the same class, and the least residue `3` (or `x = 3`) answers it.
- class finite-family: `e^{2\\pi i k/3},\\ k = 0, 1, 2` (or `3k-1 \\text{ for } k = 1, 2, 3`) is the list of
  its values at each listed index.
- class roman-numeral: `\\text{XIV}` is 14 (a canonical numeral, read by the `roman` package, of three or
  more letters or of I, V and X only: `CD` may name a segment and stays a word).
- class piecewise: a `cases` environment is a sympy Piecewise, compared by value like any expression.
- class prose-set (2.8.0): "all real numbers except 2" is the real line without that point.
- class permutations-of-tuple (2.9.0): `\\text{all permutations of } (1,2,3)` is the list of its orderings.
- class number-set (2.10.0): `\\mathbb{Z}_{>0}`, `\\mathbb{Z}^+`, `n \\in \\mathbb{N}^*` and "all positive integers" are one set;
  `\\mathbb{Z}` and `2\\mathbb{Z}+1` are integer families (see `number_set`).
- class asymptotic-notation (2.10.0): `\\Theta(n \\log n)` is a growth class, equal to `O(n \\lg n)` (see `asymptotic`).
"""
from __future__ import annotations

import re
from typing import Any

from kleval.verify.canonical import Canon, ParseFailure, canonicalize
from kleval.verify.policy import Policy
from kleval.verify.sentence_values import PERMUTATIONS_OF

_NUMBER = r"(?:-?\d+(?:\.\d+)?|\\frac\{\d+\}\{\d+\}|\\sqrt\{\d+\})"
RATIO = re.compile(rf"^{_NUMBER}(?: ?: ?{_NUMBER})+$")
_CLOCK = re.compile(r"^\d{1,2}:\d{2}$")

_MOD = r"(?:\\pmod ?\{? ?(\d+) ?\}?|\(? ?(?:\\bmod|\\mod|\\text\{ ?mod ?\}|\\mathrm\{ ?mod ?\}|\\operatorname\{ ?mod ?\}|mod)" \
       r" ?\{? ?(\d+) ?\}? ?\)?)"
CONGRUENCE = re.compile(rf"^(?:([A-Za-z](?:_\{{?\w+\}}?)?) ?)?\\equiv ?(-?\d+) ?{_MOD}$")

_INDEX_LIST = r"(-?\d+(?: ?, ?-?\d+){1,19})"
FINITE_FAMILY = re.compile(rf"^(.+?)(?: ?,| ?\\text\{{ ?(?:for|where) ?\}}| for| where) ?([a-z]) ?= ?{_INDEX_LIST}$")

_ROMAN = re.compile(r"^(?:\\(?:text|mathrm|textbf|mathbf) ?\{ ?)?([IVXLCDM]+)(?: ?\})?$")

_CASES = re.compile(r"^\\begin\{cases\}(.*)\\end\{cases\}$", re.DOTALL)
_CONDITION_WORDS = re.compile(r"^(?:\\text\{ ?(?:if|for|when|,)? ?\}|if |for |when |, )+|\\text\{ ?\}")
_OTHERWISE = re.compile(r"^(?:\\text\{ ?)?(?:otherwise|else|elsewhere|for all other x)(?: ?\})?\.?$")


def ratio(s: str, policy: Policy) -> Canon | None:
    """The parts of a ratio `a:b:c` (None for anything else, a clock time included)."""
    if not RATIO.match(s) or _CLOCK.match(s.replace(" ", "")):
        return None
    return Canon("ratio", tuple(canonicalize(part.strip(), policy) for part in s.split(":")), s)


def ratios_equal(g: Canon, p: Canon) -> bool:
    """Proportional parts, the same number of them (a two-part ratio also equals its quotient). An answer read
    as a clock time (`9:15:21`) is a ratio when the gold is one; a gold clock time is never a ratio."""
    import sympy

    def parts(c: Canon, answer: bool) -> list | None:
        if c.kind == "ratio":
            return [x.value for x in c.value]
        if c.kind == "number":
            return [c.value, sympy.Integer(1)]
        if answer and c.kind == "text" and re.fullmatch(r"\d+(?::\d+)+", c.value):
            return [sympy.Integer(int(x)) for x in c.value.split(":")]
        return None

    a, b = parts(g, False), parts(p, True)
    if a is None or b is None or len(a) != len(b) or a[0] == 0 or b[0] == 0:
        return False
    return all(sympy.simplify(x * b[0] - a[0] * y) == 0 for x, y in zip(a, b))


def congruence(s: str) -> Canon | None:
    """`x \\equiv a \\pmod{m}` -> Canon("congruence", (a mod m, m), name x)."""
    m = CONGRUENCE.match(s)
    if not m:
        return None
    modulus = int(m.group(3) or m.group(4))
    if modulus < 1:
        return None
    name = re.sub(r"[\s{}]", "", m.group(1) or "")
    return Canon("congruence", (int(m.group(2)) % modulus, modulus), s, name=name)


def congruences_equal(g: Canon, p: Canon) -> bool:
    """The same class modulo the same modulus; an integer answers a class when it is its least residue."""
    import sympy

    if g.kind == "congruence" and p.kind == "congruence":
        return g.value == p.value
    klass, number = (g, p) if g.kind == "congruence" else (p, g)
    residue, modulus = klass.value
    if number.kind == "family" and len(number.value[1]) == 1:  # `x = 7k + 3, k \in \mathbb{Z}` is the class 3 mod 7
        expr = sympy.expand(number.value[1][0])
        k = next((x for x in expr.free_symbols if x.name == number.value[0]), sympy.Symbol(number.value[0]))
        step, offset = expr.coeff(k, 1), expr.coeff(k, 0)
        linear = sympy.expand(expr - step * k - offset) == 0 and step.is_Integer and offset.is_Integer
        return linear and abs(int(step)) == modulus and int(offset) % modulus == residue
    if number.kind != "number" or not isinstance(number.value, sympy.Integer):
        return False
    return 0 <= int(number.value) < modulus and int(number.value) == residue


def finite_family(s: str, policy: Policy) -> Canon | None:
    """`expr, k = 0, 1, 2` -> the list of expr at each k (None unless expr uses k)."""
    import sympy

    m = FINITE_FAMILY.match(s)
    if not m:
        return None
    body, index = m.group(1).strip().rstrip(","), m.group(2)
    if not re.search(rf"(?<![A-Za-z\\]){index}(?![A-Za-z])", body):
        return None
    try:
        expression = canonicalize(body, policy)
    except ParseFailure:
        return None
    symbol = sympy.Symbol(index)
    if expression.kind not in ("expr", "number") or symbol not in expression.value.free_symbols:
        return None
    values = []
    for k in m.group(3).split(","):
        value = expression.value.xreplace({symbol: sympy.Integer(int(k))})
        values.append(Canon("number" if value.is_number else "expr", value, s))
    return Canon("list", tuple(values), s)


def roman_numeral(source: str) -> int | None:
    """The value of a canonical Roman numeral written alone (`XIV`, `\\text{MCMXCIV}`), else None."""
    import roman

    m = _ROMAN.match(source.strip())
    numeral = m.group(1) if m else ""
    if len(numeral) < 2 or (len(numeral) == 2 and not set(numeral) <= set("IVX")):
        return None  # one letter is a variable or an option; `CD`, `LX` may name a segment
    try:
        return roman.fromRoman(numeral)
    except roman.InvalidRomanNumeralError:
        return None


def piecewise(s: str, policy: Policy) -> Canon | None:
    """A `cases` environment as a sympy Piecewise of its rows (`value & condition`)."""
    import sympy

    m = _CASES.match(s.strip())
    if not m:
        return None
    pieces: list[tuple[Any, Any]] = []
    for row in re.split(r"\\\\", m.group(1)):
        if not row.strip():
            continue
        value, _, condition = row.partition("&")
        value = value.strip().rstrip(",").strip()
        condition = _CONDITION_WORDS.sub("", condition.strip()).strip().rstrip(".,;").strip()
        canon = canonicalize(value, policy)
        if canon.kind not in ("number", "expr"):
            raise ParseFailure("a cases row whose value is not an expression")
        if _OTHERWISE.match(condition) or not condition:
            pieces.append((canon.value, sympy.true))
            continue
        relation = canonicalize(condition, policy)
        if relation.kind != "relation":
            raise ParseFailure(f"a cases row whose condition is not a relation: {condition[:40]!r}")
        pieces.append((canon.value, relation.value))
    if not pieces:
        raise ParseFailure("an empty cases environment")
    try:
        return Canon("expr", sympy.Piecewise(*pieces), s)
    except (TypeError, ValueError) as exc:
        raise ParseFailure(f"cases that do not form a function: {exc}") from exc


_NAMED_CASES = re.compile(r"^(?:((?:[A-Za-z]|\\[a-zA-Z]+)(?:\([a-z]\))?) ?= ?)?(\\begin\{cases\}.*\\end\{cases\})$", re.DOTALL)


# class asymptotic-notation: `O(n \\lg n)`, `\\mathcal{O}(n^2)`, `\\Theta\\left(n^{2}\\right)`, `\\Omega(n)` name growth classes.
# Two are equal when their functions grow alike (for an input size n, m, k or N the ratio tends to a positive constant
# as it grows: the base of a logarithm, a constant factor and lower-order terms do not matter; for any other letter,
# such as the step h of `O(h^2)`, the ratio must be a positive constant) and their bounds are of one family. Big-O is read as
# Theta, as answers to "what is the running time" use it; Omega, little-o and little-omega stay apart.
_ASYMPTOTIC = re.compile(r"^(\\mathcal ?\{ ?O ?\}|\\mathcal ?O|\\operatorname ?\{ ?O ?\}|O|\\Theta|\\Omega|o|\\omega)"
                         r" ?(?:\\left)? ?\((.+?)(?:\\right)? ?\)$")
_BIG_O = {"O": "Theta", "\\Theta": "Theta", "\\Omega": "Omega", "o": "o", "\\omega": "omega"}  # family of each letter
_LOG_BASE = re.compile(r"\\(?:lg|ln|log_ ?\{? ?\d+ ?\}?)(?![A-Za-z])")


def asymptotic(s: str, policy: Policy) -> Canon | None:
    """The (family, growth function) of an asymptotic bound such as `O(n \\log n)`, else None."""
    m = _ASYMPTOTIC.match(s)
    if m is None or (m.group(2).count("(") != m.group(2).count(")")):
        return None
    family = _BIG_O.get(m.group(1), "Theta")  # the other spellings (`\\mathcal{O}`, `\\operatorname{O}`) are big-O
    try:
        inner = canonicalize(_LOG_BASE.sub(r"\\log", m.group(2)), policy)
    except ParseFailure:
        return None
    return Canon("asymptotic", (family, inner), s) if inner.kind in ("number", "expr") else None


def asymptotics_equal(g: Canon, p: Canon) -> bool:
    """One family, and growth functions whose ratio is (or tends to) a positive constant."""
    import sympy

    if g.kind != "asymptotic" or p.kind != "asymptotic" or g.value[0] != p.value[0]:
        return False
    f, h = g.value[1].value, p.value[1].value
    if any(e.has(sympy.binomial, sympy.factorial, sympy.gamma) for e in (f, h)):
        return sympy.expand(f - h) == 0  # no limits of combinatorial growth (sympy takes many seconds); same function only
    ratio = sympy.simplify(f / h)
    symbols = ratio.free_symbols
    if len(symbols) == 1 and next(iter(symbols)).name in ("n", "N", "m", "k"):  # an input size grows; `O(h^2)` is about h -> 0
        ratio = sympy.limit(ratio, symbols.pop(), sympy.oo)
    return bool(ratio.is_number and ratio.is_finite and ratio.is_positive)


# class number-set: the standard number sets written with blackboard letters, optionally as a membership (`n \\in
# \\mathbb{Z}_{>0}`). `\\mathbb{Z}` and its cosets (`2\\mathbb{Z}`, `3\\mathbb{Z}+1`) are integer families, equal to "all
# integers" and `2k+1, k \\in \\mathbb{Z}`; the positive integers (`\\mathbb{Z}^+`, `\\mathbb{Z}_{>0}`, `\\mathbb{Z}_{\\geq 1}`,
# `\\mathbb{N}^*`, `\\mathbb{N}_{>0}`), the non-negative integers (`\\mathbb{Z}_{\\geq 0}`, `\\mathbb{N}_0`), the negative
# integers, the rationals and the complex numbers are named sets, equal to their worded names (kleval.verify.forms).
# A bare `\\mathbb{N}` is its own set: whether it holds 0 is a convention the answer does not state.
_NUMBER_SET = re.compile(r"^(?:[a-zA-Z] ?\\in ?)?(?:(\d{1,4}) ?)?\\mathbb ?\{? ?([ZQCN]) ?\}? ?([_^] ?(?:\{[^{}]{1,12}\}|\S))?"
                         r"(?: ?\+ ?(\d{1,4}))?$")
_SET_QUALIFIERS = {"": "", "^+": ">0", "_+": ">0", "^*": "*", "^\\ast": "*", "_>0": ">0", "^>0": ">0", "_\\geq1": ">0",
                   "_\\ge1": ">0", "_\\geq0": ">=0", "_\\ge0": ">=0", "^\\geq0": ">=0", "_0": ">=0",
                   "^-": "<0", "_-": "<0", "_<0": "<0", "^<0": "<0"}


# the qualifiers each letter takes: the integers signs, the naturals a positive or a zero-including variant, the
# rationals a positive variant, the complex numbers none
_QUALIFIERS_OF = {"Z": ("", ">0", ">=0", "<0"), "N": ("", ">0", ">=0"), "Q": ("", ">0"), "C": ("",)}


def number_set(s: str) -> Canon | None:
    """A number set written with a blackboard letter: a family for the integers and their cosets, else a named set."""
    import sympy

    m = _NUMBER_SET.match(s)
    if m is None:
        return None
    letter, scale, offset = m.group(2), m.group(1), m.group(4)
    qualifier = _SET_QUALIFIERS.get(re.sub(r"[\s{}]", "", m.group(3) or ""))
    if qualifier == "*":  # N^* is the positive integers; Z^*, Q^*, C^* are conventions of their own (nonzero, units)
        qualifier = ">0" if letter == "N" else None
    if qualifier not in _QUALIFIERS_OF[letter]:
        return None
    if letter == "Z" and qualifier == "":
        k = sympy.Symbol("k")
        return Canon("family", ("k", (int(scale or 1) * k + int(offset or 0),)), s)
    if scale or offset:
        return None
    if letter == "N":  # a bare N is its own set: whether it holds 0 is a convention
        return Canon("numberset", "Z" + qualifier if qualifier else "N", s)
    return Canon("numberset", letter + qualifier, s)


def special_form(s: str, policy: Policy) -> Canon | None:
    """The canonical value of a ratio, congruence, asymptotic bound, cases environment or finite family, else None."""
    from dataclasses import replace

    if "\\begin{cases}" in s:
        m = _NAMED_CASES.match(s)
        canon = piecewise(m.group(2), policy) if m else None
        if canon is not None and m.group(1):
            return replace(canon, name=re.sub(r"\s", "", m.group(1)), named=s)
        return canon
    if "permutations" in s:
        return permutations_of(s, policy)
    if "except" in s or "other than" in s:
        difference = real_line_except(s)
        return canonicalize(difference, policy) if difference else None
    if s.endswith(")") and (s.startswith(("O", "o", "\\Theta", "\\Omega", "\\omega", "\\mathcal", "\\operatorname"))):
        bound = asymptotic(s, policy)
        if bound is not None:
            return bound
    if "\\mathbb" in s:
        named = number_set(s)
        if named is not None:
            return named
    if "\\equiv" in s:
        return congruence(s)
    if ":" in s:
        return ratio(s, policy)
    if "=" in s:
        return finite_family(s, policy)
    return None


# class prose-set: "all real numbers except 2" (also "every real x other than -1 and 3", `\text{all reals except } 2`)
# is the real line without those points, written for kleval.verify.forms.set_difference
_EXCEPT_VALUE = r"(?:\$[^$]{1,40}\$|-?\d+(?:\.\d+)?|[a-z] ?= ?-?\d+)"
_REAL_LINE_EXCEPT = re.compile(
    r"(?:\\text\{ ?)?\b(?:all|every|any) real(?:s| (?:numbers?|values?(?: of [a-z])?|x|\$[a-z]\$))(?: [a-z])? (?:except|other than"
    rf"|besides|apart from|excluding|but)(?: for)? ?\}}? ?({_EXCEPT_VALUE}(?: ?(?:,|and|or|, and) ?{_EXCEPT_VALUE}){{0,5}})"
    # (also before a restatement, ", i.e. $x \in \mathbb{R}\setminus\{3\}$.")
    r"(?= ?(?:[,;] ?(?:i\.e\.|that is|namely)[^\n]{1,80}?)?[.!]? *$)",
    re.IGNORECASE)


def real_line_except(text: str) -> str | None:
    """`(-\\infty,\\infty) \\setminus \\{2, -2\\}` for "all real numbers except 2 and -2", else None."""
    m = _REAL_LINE_EXCEPT.search(text)
    if m is None:
        return None
    values = re.findall(_EXCEPT_VALUE, m.group(1))
    points = [re.sub(r"^[a-z] ?= ?", "", v.strip("$").strip()) for v in values]
    return "(-\\infty,\\infty) \\setminus \\{" + ", ".join(points) + "\\}"


_PERMUTED_TUPLE = re.compile(rf"^{re.escape(PERMUTATIONS_OF.strip())} ?(\(.+\))$")


def permutations_of(s: str, policy: Policy) -> Canon | None:
    """class permutations-of-tuple: `\\text{all permutations of } (1,2,3)` is the list of its distinct orderings."""
    import itertools

    m = _PERMUTED_TUPLE.match(s)
    if m is None:
        return None
    base = canonicalize(m.group(1), policy)
    if base.kind != "seq" or not 2 <= len(base.value) <= 6:
        return None
    seen, orderings = set(), []
    for order in itertools.permutations(base.value):
        key = tuple(c.show() for c in order)
        if key not in seen:
            seen.add(key)
            orderings.append(Canon("seq", tuple(order), s, base.brackets))
    return Canon("list", tuple(orderings), s)
