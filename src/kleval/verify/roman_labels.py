"""class choice-roman-labels: options labelled with Roman numerals ("I only", "II and III", "(iv)").

Questions that list statements I, II, III and ask which hold, and options numbered (i)-(x), take a Roman numeral
as the gold ("III", "(iv)"). The completion's Roman labels are written as the one-character Unicode numerals
U+2160-U+2168 ("Answer: III" becomes "Answer: Ⅲ") and the option reader chooses among those nine characters. Never
as the digits 1-9: the completion's own digits are values ("\\boxed{3}", "f(2)", an equation tag "(2)"), not
labels. A single "I" is left to the letter reading unless the gold is a longer numeral: MMLU-Pro's ten options run A-J, and its gold "I" is a letter.
The pronoun I is never a label: "I'm sure", "I think it is II" (I and a word that does not continue a label).
"""
from __future__ import annotations

import re

# (to IX: a lone "x" is a variable far more often than a label)
_VALUES = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9}
_NUMERAL = "viii|vii|iii|vi|iv|ix|ii|i|v"
LABELS = "".join(chr(0x2160 + n) for n in range(9))  # Ⅰ Ⅱ Ⅲ ... Ⅸ, one character per label
_NAMES = {LABELS[value - 1]: name.upper() for name, value in _VALUES.items()}
# a word after a capital I that continues a label ("I is true", "I and III", "I only"); any other word makes it the pronoun
# (a verb the pronoun also takes, "I was", "I must", only before a verdict: "I was correct" is the label, "I was unsure",
# "I must go with III" the pronoun)
_LABEL_CONTINUES = (r"is|are|holds?|fails?|only|and|or|alone|both|which|since|because|seems|looks|fits|works|matches"
                    r"|correct|true|false|right|wrong|nor|(?:was|must be|must|would be|could be|can be)"
                    r"(?= (?:not |also |then |the |indeed )?"
                    r"(?:true|false|correct|incorrect|right|wrong|valid|invalid|the (?:answer|correct|right|best)))")
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


def ascii_labels(text: str | None) -> str | None:
    """`text` with each label character written as its Roman numeral in ASCII capitals ("Ⅲ" -> "III")."""
    return None if text is None else "".join(_NAMES.get(ch, ch) for ch in text)


def roman_as_labels(text: str) -> str:
    """`text` with each Roman option label written as its label character ("Answer: III" -> "Answer: Ⅲ")."""
    def bracketed(m: re.Match) -> str:
        group = next(i for i in range(1, 4) if m.group(i))
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        return m.group(0)[:start] + LABELS[_VALUES[m.group(group).lower()] - 1] + m.group(0)[end:]

    text = _LOWER.sub(bracketed, text)
    return _UPPER.sub(lambda m: LABELS[_VALUES[m.group(1).lower()] - 1], text)

