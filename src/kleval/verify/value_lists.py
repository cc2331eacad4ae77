"""class list-after-copula: a final sentence that ends in a list of numbers after a copula.

"The primes are 2, 3, 5 and 7.", "So the solutions are 1 and 4.", "The integer roots are -2, 0, and 2."
state a list answer; the one-number reading of a final sentence found no single value there and read
nothing. The list is two to twelve plain numbers joined by commas and "and" (with or without the Oxford
comma), right after `is`/`are`/`was`/`were`/`be` or a colon, closing the sentence (a unit word or two may
follow). Never after `=` ("2 + 3 = 5, and 7" is no list) and never with "or" (alternatives are not a list).
Linear time: the pattern is anchored at the sentence end and its repetitions are bounded.
"""
from __future__ import annotations

import re

_NUMBER = r"-?\$?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?%?"
_LIST = re.compile(rf"(?:\b(?:is|are|was|were|be)|:) (?:(?:exactly|precisely|simply|just|then|thus|therefore|now|also) )*"
                   rf"((?:{_NUMBER})(?:(?:, |,? and ){_NUMBER}){{1,11}})(?: [A-Za-z][A-Za-z.\-]{{0,15}}){{0,2}}$",
                   re.IGNORECASE)


def list_after_copula(sentence: str) -> str | None:
    """The numbers of a list closing the sentence after a copula, joined by ", ", or None."""
    m = _LIST.search(sentence[-300:])
    if m is None:
        return None
    return ", ".join(re.split(r",? and |, ", m.group(1)))
