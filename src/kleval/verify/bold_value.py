"""class bold-value-then-aside (kind number): a bold value that closes a sentence of the final line is the answer
when what follows it on that line is commentary.

Chatty completions end "So Kwame is left with **$55**. 🎉 Not bad, considering the balance was $270 just before the
purchase!", and the last number of the line is then an intermediate restated as an aside. A bold value closes its
sentence when a `.`/`!` or the end of the line follows it; the rest of the line is commentary when it holds no other
bold, no retraction ("wait", "actually") and no number that the text before the bold value does not already hold (a
new number there may be a new result: "**$40** at first. After the gift he has $60." keeps 60). The bold value is
one number (a currency sign allowed) or one `$...$` math value with at most two unit words ("**$\\frac{5}{2}$ hours**").
Linear time: one scan for bold groups over the line, one for numbers.
"""
from __future__ import annotations

import re

from kleval.verify.commitment import RETRACTION

_BOLD = re.compile(r"\*\*([^*\n]{1,120})\*\*")
_VALUE = re.compile(r"\$?(-?\d[\d,]*(?:\.\d+)?)"
                    r"|\$([^$\n]{1,80})\$((?: [A-Za-z]{1,15}){0,2})")
_NUMBER = re.compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?")
_CLOSES = re.compile(r"\s*(?:[.!]|$)")
# (or a phrase that qualifies it closes the sentence: "leaves remainder **2** when divided by 7.")
_QUALIFIED = re.compile(r"\s+(?:when|after|for|in|per|on|at|with|from|by|out of)\b[^*.!?\n]{1,60}(?:[.!]|$)")


def _numbers(text: str) -> set[str]:
    return {m.group(0).replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)}


def closing_bold_value(line: str, before: str = "") -> str | None:
    """The bold value that closes a sentence of `line` when the rest of the line is commentary, else None.
    `before` is the text before `line` (its numbers count as already stated)."""
    last = None
    for last in _BOLD.finditer(line):
        pass
    if last is None:
        return None
    value = _VALUE.fullmatch(last.group(1).strip())
    if value is None or not (_CLOSES.match(line, last.end()) or _QUALIFIED.match(line, last.end())):
        return None
    rest = line[last.end():]
    if RETRACTION.search(rest):
        return None
    if not _numbers(rest) <= _numbers(before + "\n" + line[: last.start()]):
        return None
    if value.group(1) is not None:
        return value.group(1).rstrip(",")
    return (value.group(2).strip() + value.group(3)).strip()


def math_value_with_unit(span: str) -> str | None:
    """`\\frac{5}{2} hours` for a span that is one `$...$` math value and at most two unit words (the bold of
    "**$\\frac{5}{2}$ hours**"), so that the value is the math, never the last digit inside it; else None."""
    value = _VALUE.fullmatch(span.strip())
    if value is None or value.group(2) is None or not re.search(r"\d", value.group(2)):
        return None
    return (value.group(2).strip() + value.group(3)).strip()
