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

from kleval.verify.statements import Statement

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


# class comma-list-not-thousands: a comma-grouped answer ("\boxed{70,110}") is the list of its groups when the text
# states each group as the value of a step or an unknown ("x = 70^\circ and x = 110^\circ") and never the grouped
# number ("70110", "70{,}110" elsewhere); a first group of one digit ("1,500", "2,500"), a group with a leading zero
# ("1,050") or any other text keeps the thousands reading ("3 \times 400 = 1200, so \boxed{1,200}" is 1200)
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+")


def comma_list(span: str, completion: str) -> str | None:
    """The list `a, b` a comma-grouped `span` stands for, else None (read as thousands)."""
    span = span.strip()
    if not _GROUPED.fullmatch(span):
        return None
    groups = span.split(",")
    if any(len(g) > 1 and g.startswith("0") for g in groups[1:]):
        return None
    plain = span.replace(",", "")
    text = re.sub(r"(?<=\d)(?:\{,\}|\\,|,)(?=\d{3}(?!\d))", "", completion)  # every grouped number as its digits
    numbers = re.findall(r"(?<![\d.])\d+(?![\d.])", text)
    if numbers.count(plain) > 1 or len(groups[0]) < 2:  # (the box itself is one; "1,500", "2,500" stay thousands)
        return None
    # (each group the value of a step or an unknown, "x = 70^\circ", "= 110^\circ": not merely a number in the text)
    stated = set(re.findall(r"=\s*\$?\s*(\d+)(?![\d.,])", text))
    return ", ".join(groups) if all(g in stated for g in groups) else None


# class asked-part: a closing summary that lists several labelled values ("- Per day: $60", "- Per week: $300", "- Per
# month: $1,200") after the text says which one the question asks ("The question asks how much she earns in one week.")
# answers with the item whose label the question names: "Per week", $300. The label is read without a bracket ("Per
# month (4 weeks)" is "per month"), words are compared without a plural s, and exactly one item's label must have all
# its words in the question ("Cookies baked" is not named by "how many cookies are left"); otherwise the summary is
# read as before
_SUMMARY_ITEM = re.compile(r"^[ \t]*[-*•][ \t]+\**([^:\n*]{1,40}?)\**[ \t]*:\**[ \t]*([^\n]{1,60}?)[ \t.]*$", re.MULTILINE)
_ASKS = re.compile(r"\b(?:the question (?:asks|is asking|wants)|we (?:are|were) asked|(?:the problem|it) asks)\b([^.\n?]{1,120})",
                   re.IGNORECASE)
_LABEL_STOPWORDS = {"per", "the", "a", "an", "of", "in", "for", "total", "each", "and", "one", "value", "amount", "how",
                    "much", "many", "what", "is", "she", "he", "they", "it", "to", "do", "does", "earn", "earns"}


def _words(text: str) -> set[str]:
    return {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]{2,}", re.sub(r"\([^()]*\)", " ", text))} - _LABEL_STOPWORDS


def asked_part(region: str) -> Statement | None:
    """The value of the summary item the question names (class asked-part), else None."""
    tail = region.rstrip()[-1200:]
    lines = tail.split("\n")
    items: list[re.Match] = []
    for line in reversed(lines):
        m = _SUMMARY_ITEM.match(line)
        if m is None:
            break
        items.append(m)
    asks = list(_ASKS.finditer(tail))
    if len(items) < 2 or not asks:
        return None
    asked = _words(asks[-1].group(1))
    named = [m for m in items if _words(m.group(1)) and _words(m.group(1)) <= asked]
    if len(named) != 1 or not re.search(r"\d", named[0].group(2)):
        return None
    return Statement(named[0].group(2).strip(), "asked-part", len(region))
