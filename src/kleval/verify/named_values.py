"""class named-value-list: an answer line that names each of several values ("x = 2, y = 3", "a_1 = 5 and a_2 = 7").

After an answer phrase, a plain-text line of `name = value` pairs joined by commas, semicolons or "and" is
one list answer; reading only its last pair ("y = 3") answered a gold 3 that the line does not state.
A name is a letter or a TeX command with an optional subscript (`r_1`, `a_{12}`, `\\\\alpha`); a value is a
number, a fraction or a short expression without spaces. (Unicode subscripts, "r₁ = 4", are rewritten
to `r_{1}` by kleval.verify.unicode_math first.) Linear time: one bounded full match per line.
"""
from __future__ import annotations

import re

_NAME = r"(?:[A-Za-z]|\\[A-Za-z]{2,10})(?:_\{?\w{1,4}\}?)?'?"
_VALUE = r"-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?|-?\\[dt]?frac\{[^{}]{1,20}\}\{[^{}]{1,20}\}|[^\s,;=]{1,30}"
_PAIR = rf"{_NAME} ?= ?(?:{_VALUE})"
_LIST = re.compile(rf"(?:{_PAIR})(?:(?: ?[,;] ?| and | ?, and ){_PAIR}){{1,7}}")


def named_value_list(segment: str) -> str | None:
    """The whole `segment` when it is two or more `name = value` pairs (and at most a closing period), else None."""
    text = segment.strip().rstrip(".").strip()
    if len(text) > 200 or "=" not in text:
        return None
    return text if _LIST.fullmatch(text) else None
