"""Turn a normalized answer string into a canonical value: numbers, expressions, tuples, sets, text.

Structure (brackets, top-level commas, `\\cup`, matrices, base-n numerals, words) is read here;
each mathematical atom is parsed by latex2sympy2_extended (a maintained ANTLR LaTeX grammar) or,
for plain numbers, by an exact regex fast path. Nothing is ever evaluated as Python: no `eval`,
no `sympify`/`parse_expr` on model text. Size guards run before sympy sees anything, so huge
powers, factorials, long strings and deep nesting become string-compared "opaque" values
instead of hanging a worker.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from kleval.verify import approx, sequences
from kleval.verify.complements import MEMBERSHIP
from kleval.verify.normalize import is_text_wrapped, text_key
from kleval.verify.policy import Policy
from kleval.verify.sizes import check_size, opaque_key, scan_brackets, top_level_spans

MAX_ANSWER_CHARS = 600  # longer spans are not final answers; parsing them is slow and pointless


class ParseFailure(Exception):
    """The answer could not be turned into a canonical value (the message says why)."""


@dataclass(frozen=True)
class Canon:
    """A canonical answer. kind: number, expr, relation, text, seq, set, list, union, matrix, base, opaque,
    family (kleval.verify.families), dots (kleval.verify.sequences), ratio, congruence, asymptotic,
    numberset (kleval.verify.notations)."""

    kind: str
    value: Any  # sympy object, str, tuple[Canon, ...] or (digits, base)
    source: str  # the normalized string it came from
    brackets: str = ""  # seq only: the opening and closing bracket, e.g. "(]" for a half-open interval
    named: str = ""  # "y = 2x+1" when the value came from dropping a naming left side (compare may need it)
    name: str = ""  # that left side, spaces removed ("y", "f^{-1}(x)", "(a,b)"): two named answers need the same name
    expanded: bool = False  # list only: the values of one `\pm` expression (flattened into an enclosing list)

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
        if self.kind == "dots":
            head, tail = self.value
            return ", ".join([c.show() for c in head] + ["..."] + [c.show() for c in tail])
        if self.kind == "ratio":
            return ":".join(c.show() for c in self.value)
        if self.kind == "congruence":
            return f"{self.value[0]} (mod {self.value[1]})"
        if self.kind == "family":
            return "{" + ", ".join(str(e) for e in self.value[1]) + f" : {self.value[0]} integer}}"
        try:
            return str(self.value)
        except ValueError:  # an integer past Python's int-to-str digit limit
            return self.source


_OPEN = {"(": ")", "[": "]", "{": "}"}
_NUMBER_RE = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")
# thousands groups, also the Indian lakh / crore grouping (class indian-grouping: "1,20,000", "12,34,56,789")
_THOUSANDS_RE = re.compile(r"^[-+]?(?:[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d?(?:,\d{2})+,\d{3})(?:\.\d+)?$")
_FRAC_RE = re.compile(r"^([-+]?)\\frac\{\s*([-+]?\d+)\s*\}\{\s*([-+]?\d+)\s*\}$|^([-+]?\d+)\s*/\s*([-+]?\d+)$")
_SCI_RE = re.compile(r"^([-+]?\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([-+]?\d+)\s*\}?$")
_REPEATING_RE = re.compile(r"^([-+]?)(\d*)\.(\d*)\\overline\{(\d+)\}$")
_BASE_RE = re.compile(r"^([0-9A-Za-z]+)_\{?\(?(\d{1,2})\)?\}?$")
# class base-n-letter-digits: `\\text{FF}_{16}` or `FF_{16}` (upper-case letters that are digits of the base)
_TEXT_BASE_RE = re.compile(r"^\\(?:text|mathrm)\{ ?([0-9A-Za-z]+) ?\}_\{?\(?(\d{1,2})\)?\}?$")


def _letter_digits(digits: str, base: int) -> bool:
    """Whether `digits` (all letters) are upper-case digits valid in `base` (A=10 ... Z=35), e.g. FF in base 16."""
    return 11 <= base <= 36 and digits.isupper() and all(int(d, 36) < base for d in digits)


_WORDS_RE = re.compile(r"^[A-Za-z][A-Za-z'\- ]*[A-Za-z]$")
_MATRIX_RE = re.compile(r"\\begin\{[pbvBV]?matrix\}")


def split_top_level(s: str, separators: str = ",;") -> list[str]:
    """Split at separators outside any bracket; escaped `\\,` never reaches here (normalized away)."""
    return [s[start:end].strip() for start, end in top_level_spans(s, separators)]


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


_ODD_ROOT = re.compile(r"\\sqrt\s*\[\s*\d*[13579]\s*\]")


def real_odd_roots(expr: Any) -> Any:
    """class indexed-roots: `\\sqrt[3]{-8}` is the real cube root -2 (the notation's meaning over the reals),
    not sympy's principal complex root 1 + sqrt(3) i: an odd root of a negative number is minus the root of
    its absolute value."""
    import sympy

    def real(node: Any) -> Any:
        base, exponent = node.args
        if exponent.is_Rational and exponent.q % 2 == 1 and base.is_number and base.is_extended_negative:
            return sympy.Integer(-1) ** exponent.p * sympy.Pow(-base, exponent)
        return node

    return expr.replace(lambda n: isinstance(n, sympy.Pow), real) if isinstance(expr, sympy.Basic) else expr


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


_DIFFERENTIAL_CONTEXT = re.compile(r"\\int|\\oint|\\frac ?\{ ?d|\\partial|\\mathrm\{ ?d ?\}|\\text|\\operatorname")


def _parser_ready(s: str) -> str:
    """What the LaTeX parser must not misread: outside an integral or a derivative, `dx` is d times x
    (class letter-d: `cx + dx` is (c + d)x, not c x plus a differential `dx`), and `\\Gamma (x)` is the
    Gamma function at x (class special-functions: a space before the bracket made it EulerGamma times x)."""
    if "d" in s and not _DIFFERENTIAL_CONTEXT.search(s):
        s = re.sub(r"(?<![\\A-Za-z])d(?=[a-z])", "d*", s)
    return re.sub(r"\\Gamma ?(?=\()", r"\\Gamma", s)


def _split_words(s: str) -> str:
    """`12 and 13`, `12\\text{ and }13` -> `12, 13` (only between math-looking parts)."""
    s = re.sub(r"\s*\\(?:text|mbox)\{\s*(?:and|or|,)\s*\}\s*", ", ", s)
    s = re.sub(r"(?<=[)\]]) ?or ?(?=[(\[])", ", ", s)  # "(11,7)or(7,11)"
    s = re.sub(r"(?<=[\d)}])(?:or|and)(?=[A-Za-z] ?[(=])", ", ", s)  # class glued-connective: "W(x)=1orW(x)=-1"
    s = re.sub(r", ?(?:and|or) (?=[-\d\\(\[a-z])", ", ", s)  # "19, 46, and 82"
    return re.sub(r"(?<=[\d}\)\]])\s+(?:and|or)\s+(?=[-\d\\(\[a-z]|[A-Z]\()", ", ", s)  # "1 or W(x) = -1"


def _matrix_chain_agrees(s: str, cuts: list[int], policy: Policy) -> bool:
    """Whether every member between the first and the last of an `=` chain with matrices evaluates to the last."""
    bounds = [*cuts, len(s)]
    members = [s[a + 1 : b].strip() for a, b in itertools.pairwise(bounds)]
    try:
        last = canonicalize(members[-1], policy).value
        return all(canonicalize(member, policy).value == last for member in members[:-1])
    except ParseFailure:
        return False


def _simplify_relation_text(s: str, policy: Policy | None = None) -> str:
    """`x \\in [1,2]` -> `[1,2]`; `x = 2+3 = 5` -> `x = 5`; `\\approx` counts as `=`."""
    if re.search(r"=.*\\approx", s):  # "x = 1/3 \approx 0.33": the exact value, not its approximation
        s = s[: s.index("\\approx")].strip()
    s = s.replace("\\approx", "=")
    # `x \in [1,2]`; class tuple-membership: `(m,n) \in \{(6,3), (9,3)\}` is that set of pairs
    m = re.match(r"^(?:[A-Za-z](?:_\{?\w+\}?)?|\( ?[A-Za-z](?: ?, ?[A-Za-z])+ ?\))\s*\\in\s*(.+)$", s)
    if m:
        return m.group(1).strip()
    if len(split_top_level(s)) > 1:
        return s  # "x=3, x=-2" is a list of two equations, not a chain ending in -2
    depths = scan_brackets(s)  # only top-level `=` chain: "(f(n) = n, g(n) = 1)" is a tuple of equations
    cuts = [i for i, ch in enumerate(s) if ch == "=" and depths[i] == 0 and (i == 0 or s[i - 1] not in "<>!\\")
            and s[i + 1 : i + 2] != "="]
    if len(cuts) >= 2 and s[: cuts[0]].strip() and s[cuts[-1] + 1 :].strip():
        if _MATRIX_RE.search(s) and policy is not None and not _matrix_chain_agrees(s, cuts, policy):
            return s  # class matrix-chain: members that evaluate to other matrices are no chain
        return s[: cuts[0]].strip() + " = " + s[cuts[-1] + 1 :].strip()
    if len(cuts) == 1 and not any(re.search(r"[A-Za-z]", re.sub(r"\\[a-zA-Z]+", "", side))
                                  for side in (s[: cuts[0]], s[cuts[0] + 1 :])):
        return s[cuts[0] + 1 :].strip()  # "\frac{1}{2} \cdot 4 = 2": a computation ending in its value
    return s


_NAME = r"(?:[A-Za-z]|\\(?:vec|mathbf|overrightarrow|boldsymbol) ?\{? ?[a-zA-Z] ?\}?|\\[a-zA-Z]+)(?:_\{?\w+\}?)?(?:'|\^\{?\*\}?|\^\{-1\})?(?:\([^()=]*\))?"
# (also a product of matrices raised to a power or transposed, `(\mathbf{AB})^{-1}`, `(AB)^T`: class named-matrix-product)
_MATRIX_PRODUCT = (r"\(\s*(?:\\mathbf ?\{ ?[A-Za-z]{1,4} ?\} ?|[A-Z] ?){1,4}\)(?:\^\{?(?:-1|T|\\top|\*)\}?)?"
                   # (and unbracketed, a product or a segment, `AB`, `BA`, `PQ`, or a transpose, `A^T`, `AB^{\top}`)
                   r"|[A-Z]{2,4}|[A-Z]{1,4}\^\{?(?:T|\\top)\}?")
_NAMED_LHS = re.compile(rf"^(?:{_NAME}|\(\s*{_NAME}(?:\s*,\s*{_NAME})+\s*\)|{_MATRIX_PRODUCT})$")


def _drop_named_lhs(s: str) -> tuple[str, str]:
    """(`3`, `x`) for `x = 3`, (`(6,5)`, `(b,c)`) for `(b,c) = (6,5)`, (`n`, `f(n)`) for `f(n) = n`:
    the left side only names the answer. ("", s) when s is not such an assignment."""
    depths = scan_brackets(s)
    cuts = [i for i, ch in enumerate(s) if ch == "=" and depths[i] == 0 and (i == 0 or s[i - 1] not in "<>!\\")]
    if len(cuts) != 1:
        return "", s
    lhs, rhs = s[: cuts[0]].strip(), s[cuts[0] + 1 :].strip()
    if rhs and _NAMED_LHS.match(lhs):
        return canonical_name(lhs), rhs
    return "", s


# class labelled-members: a label word before each member of a list names it as `x = ` does
# (`\text{length } 9,\ \text{width } 4` is `\text{length} = 9, \text{width} = 4`). Only when every member is
# one word of two or more letters (never a connective, a function or a unit-like single letter) and a number.
_LABELLED = re.compile(r"^(?:\\text ?\{ ?([A-Za-z]{2,20}) ?:? ?\}|([A-Za-z]{2,20})) ?:? ?(-?(?:\d+(?:\.\d+)?|\.\d+))$")
_NOT_LABELS = {"and", "or", "then", "so", "is", "are", "was", "be", "equals", "of", "to", "by", "at", "from", "about",
               "approx", "approximately", "plus", "minus", "times", "over", "ans", "answer", "x", "step", "part", "case",
               "wrong", "right", "correct", "incorrect", "true", "false", "not", "before", "after", "initially", "finally",
               "option", "choice", "guess", "candidate"}


def labelled_members(parts: list[str]) -> list[str]:
    """Each member `\text{label } value` of a list as `\text{label} = value` when every member is one."""
    out = []
    for part in parts:
        m = _LABELLED.match(part.strip())
        label = (m.group(1) or m.group(2)) if m else ""
        if not m or label.lower() in _NOT_LABELS or label.lower() in _FUNCTION_WORDS:
            return parts
        out.append(f"\\text{{{label}}} = {m.group(3)}")
    return out


def canonical_name(lhs: str) -> str:
    """The name an assignment gives: spaces and braces dropped, and an index (`x_1`, `x_{2}`) dropped
    too, since indexed names list the values of one unknown (`x_1 = 2, x_2 = -3` is `x = 2 or x = -3`)."""
    name = re.sub(r"[\s{}]", "", lhs)
    return re.sub(r"^([A-Za-z]|\\[a-zA-Z]+)_\d+$", r"\1", name)


_FUNCTION_WORDS = {"sin", "cos", "tan", "cot", "sec", "csc", "log", "exp", "sqrt", "arcsin", "arccos", "arctan", "sinh",
                   "cosh", "tanh", "min", "max", "gcd", "lcm", "det", "mod", "deg", "lim", "inf", "sup", "arg", "ker"}


def _flatten(items) -> tuple[Canon, ...]:
    """Members of a list or set, with each `\\pm` expansion spliced in (`0, \\pm 1` is three values)."""
    out: list[Canon] = []
    for item in items:
        out.extend(item.value if item.kind == "list" and item.expanded else (item,))
    return tuple(out)


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
        return Canon("number", fast, s) if fast is not None else forms.text_value(key, s, policy)
    if re.fullmatch(r"[-+]?\d{1,3}(?: \d{3})+(?:\.\d+)?", s):  # "1 000": a space groups thousands
        return Canon("number", _fast_number(s.replace(" ", "")), s)
    member = MEMBERSHIP.match(s)  # class membership-statement (kleval.verify.complements): `13824 \notin A`
    if member:
        return Canon("text", f"{member.group(1)} {member.group(2)} {member.group(3).replace(' ', '')}", s)
    time = forms.TIME_RE.match(s)
    if time and (time.group(2) == "00" or time.group(3) or time.group(4)):  # 12:00 is a clock time, not 12/0
        suffix = (time.group(4) or "").replace(".", "").lower()
        seconds = f":{time.group(3)}" if time.group(3) else ""
        return Canon("text", f"{int(time.group(1))}:{time.group(2)}{seconds}{suffix}", s)
    special = notations.special_form(s, policy)  # ratios, congruences, cases, `expr, k = 0, 1, 2`
    if special is not None:
        return special
    integer_builder = forms.INTEGER_SET_BUILDER.match(s)
    if integer_builder:
        return forms.integer_set(integer_builder, policy)
    family_builder = forms.FAMILY_SET_BUILDER.match(s)
    if family_builder:  # class set-builder-family: `\\{k\\pi \\mid k \\in \\mathbb{Z}\\}` is the family k*pi
        as_family = forms.family(f"{family_builder.group(1)}, {family_builder.group(2)} \\in \\mathbb{{Z}}", policy)
        if as_family is not None:
            return as_family
    builder = forms.SET_BUILDER.match(s)
    if builder:
        return canonicalize(builder.group(2), policy)
    family = forms.family(s, policy)
    if family is not None:
        return family
    if policy.comma != "list" and _THOUSANDS_RE.match(s):
        return Canon("number", _fast_number(s), s)
    if policy.comma == "thousands" and re.fullmatch(r"[-+]?\d[\d,]*(?:\.\d+)?", s):
        return Canon("number", _fast_number(s.replace(",", "")), s)
    if re.match(r"(?i)(?:yes|no)(?:[,.;:!]|$)", s):  # "Yes, it is possible": the answer is the yes
        return Canon("text", text_key(s, policy), s)
    s = approx.exact_of_chains(s, policy)  # class approx-chain: `9\pi \approx 28.27` answers 9\pi
    s = _split_words(s)
    if policy.equation_rhs:
        name, rhs = _drop_named_lhs(s)
        if name:
            return replace(canonicalize(rhs, policy), named=s, name=name)
    s = _simplify_relation_text(s, policy)

    if "\\setminus" in s and len(split_top_level(s)) == 1:
        return forms.set_difference(s, policy)
    union_parts = [p.strip() for p in re.split(r"\\cup", s)] if "\\cup" in s else []
    if len(union_parts) > 1 and all(union_parts):
        return Canon("union", tuple(canonicalize(p, policy) for p in union_parts), s)

    outer = _outer_brackets(s)
    if outer is not None:
        opener, closer, body = outer
        elements = split_top_level(body) if body else []
        if sequences.has_ellipsis(elements):  # class ellipsis-sequence: `\{1, 2, \dots, n\}`
            return sequences.sequence(elements, s, opener + closer, policy)
        if opener == "{":
            return Canon("set", _flatten(canonicalize(e, policy) for e in elements if e), s)
        if len(elements) > 1:
            return Canon("seq", tuple(canonicalize(e, policy) for e in elements), s, opener + closer)
        if opener == "(" and body:
            return canonicalize(body, policy)
    solutions = split_top_level(s, ";")
    if len(solutions) > 1 and all("=" in part and "," in part for part in solutions):
        # "p=5,q=2; p=7,q=2": each solution a tuple of its named values, in the order written
        tuples = []
        for part in solutions:
            members = canonicalize(part, policy)
            values = members.value if members.kind == "list" else (members,)
            tuples.append(Canon("seq", tuple(replace(v, name="", named="") for v in values), part, "()"))
        return Canon("list", tuple(tuples), s)
    parts = split_top_level(s)
    parts = [p for p in parts if p]  # "7, -2, \\text{ and } -5" leaves an empty slot
    if sequences.has_ellipsis(parts):  # class ellipsis-sequence: `1, 3, 5, \dots, 2n-1`
        return sequences.sequence(parts, s, "", policy)
    if len(parts) > 1:
        parts = labelled_members(parts)  # class labelled-members: `\text{length } 9, \text{width } 4`
        return Canon("list", _flatten(canonicalize(p, policy) for p in parts), s)
    if not parts:
        raise ParseFailure("only separators, no answer")
    s = parts[0]
    variants = forms.expand_pm(s)
    if len(variants) > 1:  # \frac{-3 \pm \sqrt{17}}{2}: the list of its values
        return Canon("list", _flatten(canonicalize(v, policy) for v in variants), s, expanded=True)
    if forms.UNIT_VECTOR.search(s):
        return forms.unit_vector_components(s)

    # (class base-n-parenthesised: also the digits in brackets, `(4343)_{6}`, as textbooks write a numeral and its base)
    base = _BASE_RE.match(re.sub(r"^\(([0-9A-Za-z]+)\)(?=_)", r"\1", s)) or _TEXT_BASE_RE.match(s)
    if base and (not base.group(1).isalpha() or _letter_digits(base.group(1), int(base.group(2)))):
        return Canon("base", (base.group(1).upper().lstrip("0") or "0", int(base.group(2))), s)
    fast = _fast_number(s)
    if fast is not None:
        return Canon("number", fast, s)
    if s in ("\\emptyset", "\\{\\}", "\\{ \\}"):
        return Canon("set", (), s)
    # class letter-terms: single letters joined by minus signs (`p - q`, `x - y - z`) are math, not words
    if _WORDS_RE.match(s) and len(s) > 1 and not re.fullmatch(r"[a-z]\w?|[A-Za-z](?: ?- ?[A-Za-z])+", s):
        return forms.text_value(text_key(s, policy), s, policy)  # "three hundred" is a number, "even" a word
    bare_words = re.sub(r"\\(?:begin|end|operatorname|mathrm|text)\{[^{}]*\}", " ", s)
    prose = [w for w in re.findall(r"(?<![\\A-Za-z])[A-Za-z]{3,}", bare_words) if w.lower() not in _FUNCTION_WORDS]
    if len(prose) >= 2 or (prose and len(prose[0]) >= 5):
        # words are never a product of symbols ("miles per hour" is not m*i*l*e*s*p*e*r*h*o*u*r)
        raise ParseFailure(f"prose, not math: {' '.join(prose[:4])!r}")
    too_big = check_size(s)
    if too_big is not None:
        return Canon("opaque", opaque_key(s), s)
    if _MATRIX_RE.search(s):
        import sympy

        depths = scan_brackets(s)
        members = [m for m in re.split(r"(?<![<>!\\])=", s) if m.strip()]
        if len(members) >= 2 and all(depths[i] == 0 for i, ch in enumerate(s) if ch == "=") and _MATRIX_RE.search(members[-1]) \
                and (len(members) >= 3 or _NAMED_LHS.match(members[0].strip())) \
                and _matrix_chain_agrees(s, [i for i, ch in enumerate(s) if ch == "=" and (i == 0 or s[i - 1] not in "<>!\\")],
                                         policy):
            # class matrix-chain: `\mathbf{M} = 6\cdot\frac16 A = \begin{pmatrix}..\end{pmatrix}` (a named matrix, or a
            # computation, ending in its value) is the value its last member writes, when every member between
            # evaluates to it (`_matrix_chain_agrees`: never `A = \begin{pmatrix}1&0\\0&1\end{pmatrix} = 3I`)
            return canonicalize(members[-1].strip(), policy)
        matrix = _latex_to_sympy(s)
        if isinstance(matrix, sympy.MatrixExpr) and not isinstance(matrix, sympy.MatrixBase):
            try:  # "2\begin{pmatrix}..\end{pmatrix}": a scalar times a matrix is a matrix
                matrix = matrix.as_explicit()
            except (TypeError, ValueError, AttributeError) as exc:
                raise ParseFailure(f"matrix expression did not evaluate: {exc}") from exc
        if not isinstance(matrix, sympy.MatrixBase):
            raise ParseFailure("matrix environment did not parse as a matrix")
        rows = tuple(tuple(_exactify(x) for x in matrix.row(r)) for r in range(matrix.rows))
        return Canon("matrix", rows, s)
    s = _simplify_relation_text(s)
    import sympy

    expr = _exactify(_latex_to_sympy(_parser_ready(s)))
    if _ODD_ROOT.search(s):
        expr = real_odd_roots(expr)
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


# forms.py builds on the names above (Canon, the number fast path, the parser entry point), so it is
# imported last; canonicalize reaches it through this module-level name.
from kleval.verify import forms, notations
