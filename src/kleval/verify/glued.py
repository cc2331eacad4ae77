"""class glued-number: a number glued to an expression is part of that expression, never a value by itself.

A sentence that ends in mathematics written as plain text, without `$...$` ("Thus the answer is x^2.", "The
answer is n+1.", "So the area is 3*pi.", "So a_7."), used to lend one of its numbers to the grammar's readers:
the 2 of `x^2`, the 1 of `n+1`, the 3 of `3*pi`. A number is *glued* when a letter, an underscore, a caret, a
factorial sign, a bracket or an operator touches it (a binary operator also across one space: the 3 of
`2 + 3`), and a glued number is never read as a value. Where a sentence ends in (or an answer phrase opens with)
such an expression, the answer is the whole expression: a maximal run of plain-math tokens (letters, digits,
operators and brackets; a space only next to a binary operator or inside brackets, `2 + sqrt(3)`, `(2, 3)`),
read by normalize.py's plain-text functions (`pi/2`, `sqrt(2)`, `exp(16)`), or no value where the sentence does
not state it.

Never glued: a unit after a number and the unit's power (`12 cm`, `12cm^2`, `5 m^2`), an ordinal (`3rd`), a
clock suffix (`3pm`), the digits of a fraction (`1/2`), a rate (`18/hour`), the value of a name (`x = 2`,
`x=2`), money (`$18`), percent, decimals, thousands (`1,000`), times (`12:30`), list commas (`1, 2 and 3`).

Linear time: at most SCAN characters are looked at, split once into tokens at spaces, each token matched once.
"""
from __future__ import annotations

import re

from kleval.verify.extract import exclamation
from kleval.verify.units import unit_of

SCAN = 300  # a plain expression that answers is shorter than this

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_PLAIN_TOKEN = re.compile(r"[A-Za-z0-9_^!()\[\]{}*/+\-×·÷.,=<>≤≥≠±√π|'\\]+")
_LETTERS = re.compile(r"[A-Za-z]{3,}")
# words that plain-text math is written with (a longer letter run is prose: "Figure", "apples")
_MATH_WORDS = {"sqrt", "cbrt", "exp", "sin", "cos", "tan", "cot", "sec", "csc", "log", "arcsin", "arccos", "arctan",
               "sinh", "cosh", "tanh", "mod", "frac", "dfrac", "tfrac", "cdot", "times", "div", "binom", "choose",
               "infty", "floor", "ceil", "max", "min", "gcd", "lcm", "det", "lim", "abs", "leq", "geq", "neq",
               "pi", "theta", "alpha", "beta", "gamma", "phi", "omega"}  # class unenclosed-latex: "9\\pi" is one value
_OPERATORS = set("+-*/×·÷=<>≤≥≠±^")
_OPERATOR_TOKEN = re.compile(r"(?:[+\-*/×·÷=<>≤≥≠±^]|\\(?:times|cdot|div|pm|mp|le|ge|leq|geq|neq))+")
_OPERATOR_WORD_BEFORE = re.compile(r"\\(?:times|cdot|div|pm|mp) ?$")
_OPERATOR_WORD_AFTER = re.compile(r" ?\\(?:times|cdot|div|pm|mp)(?![A-Za-z])")
_GLUE_BEFORE = set("_^([{)]}*×·÷√π\\!+<>≤≥≠±")  # touching a number's left side
_GLUE_AFTER = set("_^!([{)]}*×·÷√π+<>≤≥≠±")  # touching its right side
_SPACED_BINARY = set("+-*/×·÷<>≤≥≠±^")  # across one space ("2 + 3"); never `=` ("x = 2" names a value)
_SUFFIX = re.compile(r"(?:st|nd|rd|th|am|pm|a\.m\.|p\.m\.)(?![A-Za-z])", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_UNIT_POWER = re.compile(r"\d ?([A-Za-z]{1,12})\^$")


# a markup tag right against a number (`<FINAL_ANSWER>18</FINAL_ANSWER>`, `<b>7</b>`) delimits it; it is no `<` or `>`
_TAG_BEFORE = re.compile(r"<[A-Za-z_][\w:-]{0,40}(?: [^<>]{0,80})?>$")
_TAG_AFTER = re.compile(r"</?[A-Za-z_][\w:-]{0,40}(?: [^<>]{0,80})?>")


def _letter(c: str) -> bool:
    """A Latin or Greek letter (never a CJK character: "共7个" is prose around a number)."""
    return c.isalpha() and (c.isascii() or "\u0370" <= c <= "\u03ff")


def _unit_after(number: str, word: str) -> bool:
    return unit_of(f"{number} {word}") is not None


def glue(text: str, start: int, end: int) -> str | None:
    """How the number `text[start:end]` sits in `text`: "glued" (part of an expression), "unit-power" (the power
    of a unit after a number, `12 cm^2`), or None (a value of its own)."""
    if text[start : start + 1] == "$":  # money: the sign is no glue
        start += 1
    if text[start : start + 1] == "-" and start + 1 < end:  # a sign is part of the number; a binary minus glues ("x-1")
        left = text[start - 1] if start else " "
        if left.isdigit() or _letter(left) or left in ")]}!":
            return "glued"
        start += 1
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    bold_left = before == "*" and text[start - 2 : start - 1] == "*"  # markdown bold `**5**`, not a product
    bold_right = after == "*" and text[end + 1 : end + 2] == "*"
    before, after = (" " if bold_left else before), (" " if bold_right else after)
    if before == ">" and _TAG_BEFORE.search(text[max(0, start - 128) : start]):
        before = " "  # an opening tag, not "greater than"
    if after == "<" and _TAG_AFTER.match(text, end):
        after = " "  # a closing tag, not "less than"
    if before == "^":
        unit = _UNIT_POWER.search(text[max(0, start - 16) : start])
        if unit and _unit_after("1", unit.group(1)):
            return "unit-power"  # `12 cm^2`: the power of a unit after a number
    if _letter(before) or before in _GLUE_BEFORE:
        return "glued"
    if before == "/" and start >= 2 and not text[start - 2].isdigit():
        return "glued"  # `a/2`, `pi/2`, `(x+1)/2`; never the denominator of `1/2`
    if before == "=" and start >= 2 and text[start - 2] in "<>!":
        return "glued"  # `n>=1`
    if before == " " and not bold_left and start >= 2 and (text[start - 2] in _SPACED_BINARY
                                         or _OPERATOR_WORD_BEFORE.search(text[max(0, start - 8) : start - 1])):
        return "glued"  # `2 + 3`, `3 \\times 4`
    if _letter(after):
        rest = text[end : end + 16]
        word = _WORD.match(rest)
        if _SUFFIX.match(rest) or (word and _unit_after(text[start:end], word.group(0))):
            return None  # `3rd`, `3pm`, `12cm`
        return "glued"
    if after == "\\" and (command := _COMMAND.match(text, end)) and command.group(1) in _MATH_WORDS:
        return "glued"  # class unenclosed-latex: `9\\pi`, `2\\sqrt{3}` (never `18\\$`, `12\\,cm`, `5\\%`)
    if after == "!" and exclamation(text, end):
        return None  # class exclamation-after-number: "The answer is 42!"
    if after in _GLUE_AFTER:
        return "glued"
    if after == "/":
        nxt = text[end + 1 : end + 2]
        rate = _WORD.match(text[end + 1 : end + 20])
        if nxt.isdigit() or (rate and len(rate.group(0)) >= 3 and rate.group(0).lower() not in _MATH_WORDS):
            return None  # the numerator of `1/2`, a rate `18/hour`
        return "glued"
    if after == "-" and end + 1 < len(text) and (text[end + 1].isalnum() or text[end + 1] in "([{"):
        return "glued"  # `3-x`, `3-digit`
    if text[end : end + 1] == " " and not bold_right and ((text[end + 1 : end + 2] in _SPACED_BINARY and text[end + 1 : end + 2] != ""
                          and (text[end + 2 : end + 3] in (" ", "") or text[end + 2].isalnum() or text[end + 2] in "(\\"))
                         or _OPERATOR_WORD_AFTER.match(text, end)):
        return "glued"  # `2 + 3`, never the tag of `7 </answer>`
    return None


def unit_power(text: str, start: int, end: int) -> bool:
    """Whether the number `text[start:end]` is the power of a unit after a number (`12 cm^2`): no number at all."""
    return glue(text, start, end) == "unit-power"


def standalone(text: str, start: int, end: int) -> bool:
    """Whether the number `text[start:end]` is a value of its own (neither glued nor a unit's power)."""
    return glue(text, start, end) is None


# two-letter English words that are prose, not a product of two letters ("(as 3+4=7)", "(or 2x)")
_SHORT_WORDS = re.compile(r"(?<![A-Za-z])(?:as|is|at|if|in|of|or|to|on|be|by|we|so|it|an|no|do|up|us|my|he|me)(?![A-Za-z])",
                          re.IGNORECASE)


def _plain(token: str) -> bool:
    if not token or "**" in token or not _PLAIN_TOKEN.fullmatch(token) or _SHORT_WORDS.search(token):
        return False  # (`**` is markdown bold)
    return all(m.group(0).lower() in _MATH_WORDS for m in _LETTERS.finditer(token))


def _operator_end(token: str) -> bool:
    return token[-1] in _OPERATORS or bool(_OPERATOR_TOKEN.fullmatch(token))


def _operator_start(token: str) -> bool:
    return token[0] in _OPERATORS or bool(_OPERATOR_TOKEN.fullmatch(token))


def _depth(token: str) -> int:
    return sum(token.count(c) for c in "([{") - sum(token.count(c) for c in ")]}")


_LAST_EQUALS = re.compile(r"(?<![<>!=])=(?!=)")


def _has_glued_number(text: str, start: int, end: int) -> bool:
    """Whether the stated side of `text[start:end]` (after its last `=`: `36 / 9 = 4` states 4) holds a glued
    number."""
    for m in _LAST_EQUALS.finditer(text, start, end):
        start = m.end()
    return any(glue(text, m.start(), m.end()) == "glued" for m in _NUMBER.finditer(text, start, end))


def trailing_expression(sentence: str) -> tuple[int, str] | None:
    """(start, expression) of the plain-math run that ends `sentence` (a final `.` dropped) when the run holds a
    glued number, else None. `start` indexes `sentence`."""
    body = sentence.rstrip(" .\n")
    cut = max(0, len(body) - SCAN)
    tokens = body[cut:].split(" ")
    first = len(tokens) - 1
    if not _plain(tokens[first]):
        return None
    depth = -_depth(tokens[first])  # closing brackets not yet opened: inside a bracket
    while first > 0:
        prev, nxt = tokens[first - 1], tokens[first]
        if not _plain(prev) or (prev[-1] in ",;" and depth <= 0):
            break
        if not (depth > 0 or _operator_end(prev) or _operator_start(nxt)):
            break
        first -= 1
        depth -= _depth(prev)
    while first < len(tokens) - 1 and _OPERATOR_TOKEN.fullmatch(tokens[first]):
        first += 1  # a leading `=` belongs to the sentence ("... $x$ = 2^k"), not to the expression
    if depth != 0:
        return None
    start = cut + sum(len(t) + 1 for t in tokens[:first])
    if not _has_glued_number(body, start, len(body)):
        return None
    return start, body[start:]


def leading_expression(segment: str) -> tuple[int, str] | None:
    """(end, expression) of the plain-math run that opens `segment` when it holds a glued number, else None;
    the run stops at a comma or semicolon outside brackets and at a sentence's final `.`."""
    text = segment[:SCAN]
    tokens = text.split(" ")
    if not _plain(tokens[0]):
        return None
    last, depth = 0, _depth(tokens[0])
    while last + 1 < len(tokens):
        prev, nxt = tokens[last], tokens[last + 1]
        if depth <= 0 and prev[-1] in ",;.":
            break
        if not _plain(nxt) or not (depth > 0 or _operator_end(prev) or _operator_start(nxt)):
            break
        last += 1
        depth += _depth(nxt)
    if depth != 0:
        return None
    end = sum(len(t) + 1 for t in tokens[:last]) + len(tokens[last])
    run = text[:end].rstrip(",;.")
    if not run or not _has_glued_number(text, 0, len(run)):
        return None
    return len(run), run
