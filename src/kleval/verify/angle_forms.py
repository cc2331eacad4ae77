"""Angle notations rewritten before parsing (verifier 2.7.0).

- class dms-angle: degrees, minutes and seconds (`30^\\circ 15'`, `45° 30′ 36″`) are decimal degrees
  (30.25, 45.51): minutes are sixtieths of a degree, never digits glued to the degrees (`12°30′` was 1230).
- class polar-complex: `r \\operatorname{cis} \\theta` is `r(\\cos\\theta + i \\sin\\theta)`, so its degree sign
  is read as in any trig argument.
"""
from __future__ import annotations

import re
from fractions import Fraction

_DEGREE_SIGN = r"(?:\^ ?(?:\{ ?\\circ ?\}|\\circ)|°|\\degree(?![a-z]))"
_PRIME = r"(?:'(?!')|′|\^ ?\{? ?\\prime ?\}?(?!\\prime)|\\prime(?!\\prime))"
_DOUBLE_PRIME = r"(?:''|″|\"|\^ ?\{? ?\\prime ?\\prime ?\}?|\\prime ?\\prime)"
_VALUE = r"(\d+(?:\.\d+)?)"
_DMS = re.compile(rf"(?<![\d.]){_VALUE} ?{_DEGREE_SIGN} ?{_VALUE} ?{_PRIME}(?: ?{_VALUE} ?{_DOUBLE_PRIME})?")

_CIS = re.compile(r"\\(?:operatorname|text|mathrm) ?\{ ?cis ?\}|(?<![A-Za-z\\])cis(?![A-Za-z])")
_CIS_ARGUMENT = re.compile(r"(?: |\\[,;:!])*(\([^()]*\)|\{[^{}]*\}|\\frac ?\{[^{}]*\} ?\{[^{}]*\}|-?[\d.]*(?:\\pi|\\theta|[a-z])?"
                           rf"(?: ?/ ?\d+)?(?: ?{_DEGREE_SIGN})?)")


def _decimal_degrees(m: re.Match) -> str:
    value = Fraction(m.group(1)) + Fraction(m.group(2)) / 60 + Fraction(m.group(3) or 0) / 3600
    denominator = value.denominator
    for factor in (2, 5):
        while denominator % factor == 0:
            denominator //= factor
    if denominator == 1:  # a terminating decimal: written as one, so a trig argument still converts it
        places = 0
        while (value * 10 ** places).denominator != 1:
            places += 1
        text = f"{float(value):.{places}f}" if places else str(value.numerator)
    else:
        text = f"\\frac{{{value.numerator}}}{{{value.denominator}}}"
    return text + "^\\circ"


def dms_to_degrees(s: str) -> str:
    """Every degrees-minutes(-seconds) angle in s as decimal degrees with its degree sign."""
    return _DMS.sub(_decimal_degrees, s) if ("'" in s or "′" in s or "prime" in s) else s


def cis_to_trig(s: str) -> str:
    """`2\\operatorname{cis} 60^\\circ` -> `2(\\cos(60^\\circ) + i\\sin(60^\\circ))`."""
    if "cis" not in s:
        return s
    out, at = [], 0
    for m in _CIS.finditer(s):
        argument = _CIS_ARGUMENT.match(s, m.end())
        body = argument.group(1).strip() if argument else ""
        if not body:
            continue
        body = body[1:-1] if body[0] in "({" else body
        out.append(f"{s[at : m.start()]}(\\cos({body}) + i\\sin({body}))")
        at = argument.end()
    return "".join(out) + s[at:]
