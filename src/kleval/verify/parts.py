"""class multi-part-lines: a completion that answers a question of several parts, one labelled part per line.

"(a) The mean is 14.\\n(b) The median is 12.\\n(c) The mode is 10." answers a gold of three values with
three parts; the grammar alone reads only the last part (10). Read only when the gold asks for that many
values (the caller checks), and only when the answer section ends with exactly that many parts labelled
(a), (b), ... in order ("(a)", "a)", "**(a)**", "Part (a):"); each part's answer is what the final-answer
grammar finds in its own text, and part i is compared with the gold's value i (parts are ordered: a mean,
median and mode are no set). Without a value in every part nothing is read. Linear time.
"""
from __future__ import annotations

import re

from kleval.verify import grammar

_LABEL = re.compile(r"(?:^|\n)[ \t>*#-]{0,6}(?:part[ \t]*)?\(?([a-h])\)(?:\*\*)?[ \t]*[:.]?(?:\*\*)?[ \t]*"
                    r"|(?:^|\n)[ \t>*#-]{0,6}part[ \t]+\(?([a-h])\)?(?:\*\*)?[ \t]*[:.](?:\*\*)?[ \t]*",
                    re.IGNORECASE)
MAX_PARTS = 8
PART_MAX_CHARS = 1500


def part_answers(text: str, parts: int) -> list[str] | None:
    """The answers of the final `parts` labelled parts (a), (b), ... of the answer section, in order, or None."""
    if parts < 2 or parts > MAX_PARTS:
        return None
    region = grammar.answer_region(text)
    labels = list(_LABEL.finditer(region[-parts * PART_MAX_CHARS :]))
    if len(labels) < parts:
        return None
    offset = max(0, len(region) - parts * PART_MAX_CHARS)
    chosen = labels[-parts:]
    letters = [(m.group(1) or m.group(2)).lower() for m in chosen]
    if letters != [chr(ord("a") + i) for i in range(parts)]:
        return None  # not the run (a), (b), ... of exactly `parts` parts
    if len(labels) > parts and (labels[-parts - 1].group(1) or labels[-parts - 1].group(2)).lower() == chr(ord("a") + parts):
        return None
    answers = []
    for i, m in enumerate(chosen):
        end = chosen[i + 1].start() if i + 1 < parts else len(region) - offset
        body = region[offset + m.end() : offset + end]
        if not body.strip() or len(body) > PART_MAX_CHARS:
            return None
        span, _ = grammar.find_math_answer(body)
        if not span:
            return None
        answers.append(span)
    return answers
