"""Answer forms beyond plain expressions: worded numbers and phrases, `\\pm` expansions, periodic
families, unit-vector notation, set-builder sets and clock times.

Each function turns one recognised written form into a kleval.verify.canonical.Canon (or a list
of strings to canonicalize), so canonical.py keeps the structure and these keep the vocabulary.
Nothing here evaluates model text: numbers go through the exact fast path, LaTeX through the
same latex2sympy2_extended entry point as everything else.
"""
from __future__ import annotations

import re

from kleval.verify.canonical import Canon, ParseFailure, _exactify, _fast_number, _latex_to_sympy, canonicalize
from kleval.verify.policy import Policy

def expand_pm(s: str, limit: int = 3) -> list[str]:
    """`a \\pm b` -> [`a + b`, `a - b`] (and \\mp the other way), for up to `limit` signs; [s] without one."""
    m = re.search(r"\\(pm|mp)(?![a-zA-Z])|±|∓", s)
    if m is None or limit == 0:
        return [s]
    first, second = ("-", "+") if m.group(0) in ("\\mp", "∓") else ("+", "-")
    head, tail = s[: m.start()], s[m.end() :]
    return [v for sign in (first, second) for v in expand_pm(f"{head} {sign} {tail}", limit - 1)]


_FAMILY_SUFFIX = re.compile(
    r"(?:,|;|\\text\{[^{}]{0,30}\})? ?(?:\\text\{ ?(?:for|where|with) ?(?:all|any|some|every)? ?(?:integers?)? ?\}|for|where)? ?"
    r"\(?([a-zA-Z])\)? ?(?:\\in ?\\mathbb ?\{?Z\}?|\\in ?\\Z\b|\\text\{ ?(?:is an|are|is any)? ?integers? ?\}|(?:is an|is any) integer)$"
    r"|(?:,|;)? ?\\text\{ ?(?:for|where) ?(?:all|any|some|every)? ?integers? ?\}? ?\(?([a-zA-Z])\)?\}?$")
SET_BUILDER = re.compile(r"^\\\{ ?([a-zA-Z]) ?(?:\\in ?\(-\\infty, ?\\infty\) ?)?(?:\\mid|\||:) ?(.+)\\\}$")
_REAL_LINE_WORDS = {"all real numbers", "all reals", "all real values", "every real number", "real numbers", "all real x"}
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_NUMBER_WORDS.update({w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)})
TIME_RE = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))? ?(a\.?m\.?|p\.?m\.?)?$", re.IGNORECASE)
UNIT_VECTOR = re.compile(r"\\(?:mathbf|vec|hat|boldsymbol)\{ ?\\?([ijk]|imath|jmath) ?\}")


def number_from_words(text: str) -> int | None:
    """`seventeen` -> 17, `twenty-one` -> 21, `three hundred five` -> 305 (English words below a million), else None."""
    words = [w for w in re.split(r"[\s\-]+", text.lower().replace(" and ", " ")) if w]
    if not words or len(words) > 8:
        return None
    total, current = 0, 0
    for word in words:
        if word in _NUMBER_WORDS:
            current += _NUMBER_WORDS[word]
        elif word == "hundred" and current:
            current *= 100
        elif word == "thousand":
            total, current = total + max(current, 1) * 1000, 0
        else:
            return None
    return total + current


def text_value(key: str, source: str, policy: Policy) -> Canon:
    """A worded answer: a number word, a number with a label (`17 apples`), the real line, yes/no, or words."""
    import sympy

    number = number_from_words(key)
    if number is not None:
        return Canon("number", sympy.Integer(number), source)
    m = re.fullmatch(r"([-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)) ?[a-z][a-z \-]{0,30}", key)
    if m and _fast_number(m.group(1).replace(",", "")) is not None:
        return Canon("number", _fast_number(m.group(1).replace(",", "")), source)
    if key in _REAL_LINE_WORDS:
        return canonicalize("(-\\infty,\\infty)", policy)
    yes_no = re.match(r"^(yes|no)\b(?:[,.;!:]|$)", key)
    if yes_no:  # "Yes, it is possible": the answer is the yes
        return Canon("text", yes_no.group(1), source)
    return Canon("text", key, source)


def family(s: str, policy: Policy) -> Canon | None:
    """`x = k\\pi, k \\in \\mathbb{Z}` -> a family: expressions in one integer parameter."""
    m = _FAMILY_SUFFIX.search(s)
    if not m:
        return None
    parameter = m.group(1) or m.group(2)
    body = s[: m.start()].strip().rstrip(",;").strip()
    if not body or parameter not in body:
        return None
    members = canonicalize(body, policy)
    parts = members.value if members.kind == "list" else (members,)
    exprs = []
    for part in parts:
        if part.kind not in ("expr", "number"):
            return None
        exprs.append(part.value)
    return Canon("family", (parameter, tuple(exprs)), s, name=members.name or (parts[0].name if parts else ""))


def unit_vector_components(s: str) -> Canon | None:
    """`5\\mathbf{i} - 3\\mathbf{j}` -> the column (5, -3): coefficients of the unit vectors."""
    import sympy

    replaced = UNIT_VECTOR.sub(lambda m: {"i": " u_{1}", "j": " u_{2}", "k": " u_{3}", "imath": " u_{1}",
                                           "jmath": " u_{2}"}[m.group(1)], s)
    expr = _exactify(_latex_to_sympy(replaced))
    units = [sympy.Symbol(f"u_{n}") for n in (1, 2, 3)]
    size = 3 if units[2] in expr.free_symbols else 2
    expanded = sympy.expand(expr)
    coefficients = [expanded.coeff(u) for u in units[:size]]
    rest = sympy.expand(expanded - sum(c * u for c, u in zip(coefficients, units)))
    if rest != 0 or any(c.free_symbols & set(units) for c in coefficients):
        raise ParseFailure("unit-vector notation with terms that are not along i, j, k")
    return Canon("seq", tuple(Canon("number" if c.is_number else "expr", c, str(c)) for c in coefficients), s, "()")
