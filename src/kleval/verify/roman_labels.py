"""class choice-roman-labels: options labelled with Roman numerals ("I only", "II and III", "(iv)").

Questions that list statements I, II, III and ask which hold, and options numbered (i)-(x), take a Roman numeral
as the gold ("III", "(iv)"). Their labels are numbers, so the completion's Roman labels are read as the digit
labels 1-9 ("Answer: III" is the label 3) and the digit-label reader chooses among them. A single "I" is left to
the letter reading unless the gold is a longer numeral: MMLU-Pro's ten options run A-J, and its gold "I" is a letter.
The pronoun I is never a label: "I'm sure", "I think it is II" (I and a word that does not continue a label).
"""
from __future__ import annotations

import re

# (to IX: the digit labels are one character each, and a lone "x" is a variable far more often than a label)
_VALUES = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9}
_NUMERAL = "viii|vii|iii|vi|iv|ix|ii|i|v"
# a word after a capital I that continues a label ("I is true", "I and III", "I only"); any other word makes it the pronoun
_LABEL_CONTINUES = (r"is|are|was|holds?|fails?|only|and|or|alone|both|with|which|since|because|as|must|seems|looks"
                    r"|fits|works|matches|correct|true|false|right|wrong|nor")
_UPPER = re.compile(rf"(?<![A-Za-z'’_\\])(?-i:(VIII|VII|III|VI|IV|IX|II|V|I))(?![A-Za-z'’_])"
                    rf"(?!(?<=I)\s(?!(?:{_LABEL_CONTINUES})\b)[a-z]{{2,}})")
# lower-case numerals only as labels: bracketed "(iii)", "iii)" or after the word that names a label ("option iv")
_LOWER = re.compile(rf"\((?-i:({_NUMERAL}))\)|(?<![A-Za-z(])(?-i:({_NUMERAL}))\)"
                    rf"|\b(?:option|choice|statement|answer is|answer:) (?-i:({_NUMERAL}))(?![A-Za-z])", re.IGNORECASE)


def roman_gold(gold: str) -> int | None:
    """The label a Roman-numeral gold names ("III" -> 3, "(iv)" -> 4, "\\text{(II)}" -> 2); None for any other gold
    and for a lone "I" or "V" in capitals, which are option letters."""
    text = re.sub(r"^\\text(?:bf)?\{(.*)\}$", r"\1", gold.strip()).strip()
    m = re.fullmatch(rf"\(?({_NUMERAL})\)?\.?", text, re.IGNORECASE)
    if m is None or (len(m.group(1)) == 1 and m.group(1).isupper()):
        return None
    return _VALUES[m.group(1).lower()]


def roman_as_digits(text: str) -> str:
    """`text` with each Roman option label written as its digit label ("Answer: III" -> "Answer: 3")."""
    def bracketed(m: re.Match) -> str:
        group = next(i for i in range(1, 4) if m.group(i))
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        return m.group(0)[:start] + str(_VALUES[m.group(group).lower()]) + m.group(0)[end:]

    text = _LOWER.sub(bracketed, text)
    return _UPPER.sub(lambda m: str(_VALUES[m.group(1).lower()]), text)

