"""class locale-numbers: a completion written in a decimal-comma locale ("58.500" fifty-eight thousand five hundred,
"3{,}21" three point two one).

German, French, Spanish, Italian, Portuguese and Dutch write a point between thousands groups and a comma before the
decimals. "58.500" alone is ambiguous (58.5 in English), so the completion's own numbers decide its convention:

- decimal-comma evidence: a LaTeX decimal comma with other than three digits after it ("1{,}91"), a point-grouped
  number with a decimal comma ("1.234,5"), or a text in one of those languages (several of its common words, or its
  answer word) that writes point-grouped thousands ("65.000", "6.500");
- decimal-point evidence, which always wins: a point with other than three digits after it ("2.5", "0.125" after a
  zero, "3.14159"), an approximation to three places whose last digit is not 0 ("\\approx 1.414"), or a comma
  before exactly three digits in a text with no decimal-comma sign of its own.

Only a completion with decimal-comma evidence and no decimal-point evidence is rewritten, every number in it:
"58.500" -> "58500", "1.234,5" -> "1234.5", "3{,}21" -> "3.21", "1,5" -> "1.5" (a run of commas, "1,2,3", still
lists, and a pair in round or square brackets, "(2,3)", "[1,5]", is a point or an interval). Golds are never
rewritten; a gold keeps the benchmark's own convention.
"""
from __future__ import annotations

import re

# a cheap test first: the text writes some number that one of the conventions could read two ways
_CANDIDATE = re.compile(r"\d\{,\}\d|(?<![\d.,])[1-9]\d{0,2}\.\d{3}(?!\d)|\d,\d")
_LATEX_DECIMAL_COMMA = re.compile(r"\d\{,\}(?:\d{1,2}|\d{4,})(?!\d)")
_GROUPED_WITH_COMMA = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+,\d+(?!\d)")
_POINT_GROUPED = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?!\d|\.\d)")
# (also an approximation written with a point and three digits, the last not 0, and no money or head count after it,
# "\sqrt 2 \approx 1.414", "≈ 2.718": an approximate count of thousands is rounded, "≈ 1.500", "≈ 1.250 Euro", so
# these are decimals)
_POINT_DECIMAL = re.compile(r"(?<![\d.,{])\d+\.(?:\d{1,2}|\d{4,})(?![\d.])|(?<![\d.,])0\.\d+"
                            r"|(?:≈|\\approx)\s*[1-9]\d{0,2}\.\d{2}[1-9](?![\d.,])(?! ?(?:€|\\\$|Euro|EUR|Dollar|Einwohner|Menschen|Personen"
                            r"|habitants|personas|persone))")
_COMMA_THOUSANDS = re.compile(r"(?<![\d.,{])[1-9]\d{0,2}(?:,\d{3})+(?![\d,]|\.\d)")
_COMMA_DECIMAL = re.compile(r"(?<![\d.,])\d+,(?:\d{1,2}|\d{4,})(?![\d,])")
_FOREIGN_WORDS = re.compile(
    r"\b(?:und|ist|wir|nicht|ergibt|also|daher|antwort|insgesamt|nous|donc|avec|pour|est|sont|réponse|alors|ainsi|los|las"
    r"|una|por|entonces|respuesta|tenemos|che|della|sono|quindi|risposta|abbiamo|não|uma|então|portanto|resposta|temos"
    r"|het|een|zijn|dus|antwoord)\b", re.IGNORECASE)


# a pair in brackets, "(2,3)", "[1,5]", "\\boxed{2,3}": a point, an interval or a list as often as a decimal comma, so it is
# no evidence; a bracket pair is never rewritten, a boxed one only where the rest of the text writes decimal commas
_BRACKETED_PAIR = re.compile(r"(?<=[(\[{])\s*\d+,\d+\s*(?=[)\]}])")


def _decimal_comma_text(text: str) -> bool:
    text = _BRACKETED_PAIR.sub(" ", text)
    if _POINT_DECIMAL.search(text):
        return False
    if _LATEX_DECIMAL_COMMA.search(text) or _GROUPED_WITH_COMMA.search(text):
        return True
    foreign = len({w.lower() for w in _FOREIGN_WORDS.findall(text)}) >= 3
    if not foreign:
        return False
    return bool(_POINT_GROUPED.search(text) or _COMMA_DECIMAL.search(text)) and not _COMMA_THOUSANDS.search(text)


def _grouped(m: re.Match) -> str:
    return m.group(0).replace(".", "")


def locale_numbers(text: str) -> str:
    """`text` with its numbers in the decimal-point convention when it is written in a decimal-comma one."""
    if not _CANDIDATE.search(text) or not _decimal_comma_text(text):
        return text
    # (the points first, which group thousands; then the commas, which are decimal commas: one comma between two digit
    # runs, never a run of them, "1,2,3", which lists)
    text = re.sub(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?=,\d|(?!\d|\.\d))", _grouped, text)
    text = re.sub(r"(?<=\d)\{,\}(?=\d)", ".", text)

    def decimal(m: re.Match) -> str:
        bracketed = re.search(r"[(\[] ?$", text[: m.start()]) and re.match(r" ?[)\]]", text[m.end() :])
        return m.group(0) if bracketed else f"{m.group(1)}.{m.group(2)}"

    return re.sub(r"(?<![\d,])(\d+),(\d+)(?![\d,])", decimal, text)
