"""Statement-less short answers: a bold final line, an opening yes or no, a bare expression or phrase."""
from __future__ import annotations

import itertools
import re
from decimal import ROUND_HALF_UP, Decimal

from kleval.verify.answer_phrases import YES_NO_OPENING
from kleval.verify.clauses import reason_then_word
from kleval.verify.conclusions import conclusion, negated, sentence_value
from kleval.verify.dates import worded_clock_as_digits
from kleval.verify.extract import clean_span, math_blocks
from kleval.verify.forms import worded_numbers_as_digits
from kleval.verify.sentence_values import HEDGED, NEGATION, bounds, outside_math, permutations_value
from kleval.verify.statements import Statement, is_joiner, joined_math
from kleval.verify.textblocks import unwrap_text

BARE_MAX_CHARS = 200


# A yes or no that confirms a check ("Yes, that's right.", "Yes, I'm confident.") or answers a question the text asked
# itself after its first line ("Is that reasonable?\nYes, since ...") answers no question of the task.
_CONFIRMING = re.compile(r"^(?:\*\*)?(?:yes|no)(?:\*\*)?[,.!:;—]? *(?:(?:that'?s|that is|this is|it'?s|it is) (?:right|correct|true"
                         r"|confirmed|it)|i'?m (?:confident|sure|certain)|indeed|exactly|of course|definitely|it checks)\W*$",
                         re.IGNORECASE)
# (a self-asked check: "Is that reasonable?", "Could a different configuration give more?")
_CHECK_QUESTION = re.compile(r"(?:\b(?:is|does|did|would|could|can) (?:that|this|the (?:answer|result))\b"
                             r"|\b(?:a|any|another) (?:different|other|better)\b)[^?\n]*\?$", re.IGNORECASE)


def yes_no_opening(region: str) -> Statement | None:
    """The yes or no that opens the final paragraph (the statement-less path only), or its last line."""
    body = region.rstrip()
    paragraphs = [p for p in body[-1500:].split("\n\n") if p.strip()]
    if not paragraphs:
        return None
    # (the last line of a text written with single line breaks, "We check the partial sums.\nYes, the sequence is
    # bounded, because ...", only in the plain shape: a line before it that neither asks nor concludes, and no value
    # of its own before its justification, "Yes, so she has 12 apples." states 12)
    lines = [line.strip() for line in paragraphs[-1].strip().split("\n") if line.strip()]
    if len(lines) > 1:
        last, before = lines[-1], lines[-2]
        m = YES_NO_OPENING.match(last)
        bare = m is not None and not last[m.end() :].strip(" .!*")  # a lone "No." answers after any line but a question
        # (never "Yes, so she has 12 apples." nor "Yes, $5$.": a conclusion or a value after the yes is the statement)
        states_value = m is not None and (re.match(r"\W*(?:so|thus|hence|therefore)\b", last[m.end() :], re.IGNORECASE)
                                          or not re.search(r"[A-Za-z]{2,}", last[m.end() :]) and re.search(r"\d", last))
        if m and not before.endswith("?") and not states_value and not _CONFIRMING.match(last) \
                and (bare or not re.match(r"(?:so|thus|hence|therefore)\b", before, re.IGNORECASE)):
            return Statement(m.group(1), "yes-no-opening", len(region))
    opening = paragraphs[-1].strip()
    m = YES_NO_OPENING.match(opening)
    if m is None or _CONFIRMING.match(opening):
        return None
    earlier = body[: body.rfind(opening)].rstrip()
    if _CHECK_QUESTION.search(earlier) and "\n" in earlier.strip():  # a check the text asked itself ("Is that reasonable?")
        return None
    return Statement(m.group(1), "yes-no-opening", len(region))


def bold_final_line(region: str) -> Statement | None:
    """A markdown-bold answer that is the whole last non-empty line (e.g. `**42**`)."""
    lines = [line.strip() for line in region.rstrip()[-400:].split("\n") if line.strip()]
    if not lines:
        return None
    m = re.fullmatch(r"\*\*([^*]{1,200})\*\*\.?", lines[-1])
    if m is None:
        return None
    content = clean_span(m.group(1))
    # class bold-final-sentence: a bold closing sentence ("**The price increased by 15%.**") states its value
    value = value_of_sentence(content)
    return Statement(value, "bold-final-sentence", len(region)) if value else Statement(content, "bold-final-line", len(region))


# class option-value-line: a math answer written as the option that holds it, on the last line ("D) 128", "C. 5.5",
# "(D) [8, -14]"): the value after the label (never a line of an option list, which another label line opens before it)
_OPTION_LABEL = r"(?:\([A-J]\)|[A-J][.)])"  # "(D)", "D)", "D."
# (the line may name the option, "Option (B) 12", "选项 (B) 3.3 MeV。", and the value may close with its unit)
_OPTION_VALUE_LINE = re.compile(rf"(?:(?:Option|Choice|选项|選項)[ \t]*)?\**{_OPTION_LABEL}\**[ \t]+"
                                r"([^A-Za-z\n]*\d[^A-Za-z\n]*?(?:\\(?:mathrm|text) ?\{ ?[A-Za-z]{1,5} ?\}|[A-Za-z]{1,5})?[^A-Za-z\n。]*)[。．]?")


def option_value_line(region: str) -> Statement | None:
    """The value of a final line that is an option label and a value."""
    lines = [line.strip() for line in region.rstrip().split("\n") if line.strip()]
    m = _OPTION_VALUE_LINE.fullmatch(lines[-1]) if len(lines) >= 2 and "?" not in lines[-1] else None
    if m is None or lines[-2].rstrip(" *").endswith(":") \
            or any(re.match(rf"\**{_OPTION_LABEL}\s", line) for line in lines[:-1]):
        return None  # (never the last line of a list or a review of the options, "(A) 12\nThis gives 48.\n(B) 16")
    value = clean_span(m.group(1))
    earlier = conclusion(region[: region.rstrip().rfind("\n")])
    if earlier is not None and earlier.span.strip() != value and not _rounds_to(earlier.span, value):
        return None  # (never over another value the text concluded: "the perimeter is 16.\n\nE) 18"; "≈ 3.26 MeV" then
        # "(B) 3.3 MeV" is that value rounded to the option's places)
    return Statement(value, "option-value-line", len(region)) if value else None


def _rounds_to(earlier: str, value: str) -> bool:
    """Whether the last number of `earlier` rounds to the one number of `value` at `value`'s decimal places."""
    before, option = re.findall(r"\d+(?:\.\d+)?", earlier), re.findall(r"\d+(?:\.\d+)?", value)
    if not before or len(option) != 1:
        return False
    places = len(option[0].partition(".")[2])
    rounded = Decimal(before[-1]).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)  # (2.25 -> 2.3, as by hand)
    return rounded == Decimal(option[0]) and len(before[-1].partition(".")[2]) > places


# class option-label-answer: a math gold that is an option's value, answered by the option ("Answer: B" after the list
# "(B) 12", "The correct choice is **(D) 3/8**", "Answer: (B) trapezoid"): the option's value. Only a letter that one
# line of the completion's own list labels, and never for a gold that is itself a label ("\\text{(C)}")
_LABEL_ONLY = re.compile(r"[*_]{0,2}\(?([A-J])\)?[*_]{0,2}\.?")
_LABEL_AND_VALUE = re.compile(rf"[*_]{{0,2}}{_OPTION_LABEL}[*_]{{0,2}}\s+([^\n]{{1,80}}?)[*_]{{0,2}}\.?")


def option_label_answer(span: str, completion: str) -> str | None:
    """The value of the option a span names by its label, else None."""
    m = _LABEL_AND_VALUE.fullmatch(span.strip())
    if m is not None:
        return clean_span(m.group(1)) or None
    m = _LABEL_ONLY.fullmatch(span.strip())
    if m is None:
        return None
    label = _OPTION_LABEL.replace("[A-J]", m.group(1))
    listed = re.findall(rf"(?m)^[ \t]*[-*]?[ \t]*\**{label}\**[ \t]+([^\n]{{1,80}}?)[ \t]*$", completion)
    return (clean_span(listed[0]) or None) if len(listed) == 1 else None


# class label-gold-option-answer: a gold that is an option's label ("\\text{(D)}", AMC's golds in MATH), answered by
# the label and the option's value ("$\\boxed{\\textbf{(D)}\\ 125}$", "So the answer is (D) 125."): the label. Only a
# parenthesised label, and only one that opens the answer or stands right before its value on the same line
_LABEL_THEN_VALUE = re.compile(r"[*_]{0,2}\(([A-J])\)[*_]{0,2}[,:]?(?:\s|\\[ ,;!]|~)+\S[^\n]{0,80}")
_LABEL_BEFORE = re.compile(r"[*_]{0,2}\(([A-J])\)[*_]{0,2}[,:]?(?:[ \t]|\\[ ,;!]|~|\$)*[*_]{0,2}$")


def label_gold(gold: str) -> str | None:
    """The letter of a gold that is a parenthesised option label ("(D)", "\\text{(D)}", "\\textbf{(D)}"), else None."""
    m = re.fullmatch(r"\$?\s*\(([A-J])\)\s*\$?", unwrap_text(gold.strip()))
    return m.group(1) if m else None


def answered_label(span: str, completion: str) -> str | None:
    """The label "(X)" an answer span opens with, or that stands right before the span on its line, else None."""
    plain = unwrap_text(span.strip())
    m = _LABEL_THEN_VALUE.fullmatch(plain)
    if m is not None:  # (never two options, "(D) 125 or (E) 150", "(A) and (D)")
        return None if _OTHER_OPTION.search(plain, m.end(1) + 1) else f"({m.group(1)})"
    at = completion.rfind(span.strip()) if span.strip() else -1
    if at <= 0 or _OTHER_OPTION.search(completion, at + len(span.strip())):
        return None  # (nor a label that another one follows: "(B) 12 is only the smaller triangle; ... (D) 16.")
    line = completion[completion.rfind("\n", 0, at) + 1 : at]
    m = _LABEL_BEFORE.search(unwrap_text(line))
    return f"({m.group(1)})" if m else None


_OTHER_OPTION = re.compile(r"\([A-J]\)|\b(?:or|and)\b")


def value_of_sentence(content: str) -> str | None:
    """The value a marked-up answer sentence states (a bold line, `<answer>` tags), as a concluding sentence states
    it; None when the content is no sentence (under three prose words), is hedged or states no single value, so
    the content stays the (worded) answer."""
    if len(_PROSE_WORD.findall(outside_math(content, math_blocks(content)))) < 3 or HEDGED.search(content):
        return None
    # (its clock and its numbers in words are read as a closing sentence's are: "He must leave at a quarter to nine.")
    content = worded_numbers_as_digits(worded_clock_as_digits(content))
    value, _ = sentence_value(content, True)
    return clean_span(value) if value and not negated(content, value) else None


_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_UNIT_OR_PERCENT = {"percent", "percentage", "pct", "cm", "mm", "km", "m", "kg", "g", "units", "degrees", "dollars",
                    "cents", "meters", "miles", "hours", "minutes", "seconds", "days", "feet", "inches", "sqrt", "pi",
                    "frac", "sin", "cos", "tan", "log", "ln", "exp", "cot", "sec", "csc", "arcsin", "arccos", "arctan"}


_GLUED_CONNECTIVE = re.compile(r"(?<=[\d)}])(or|and)(?=[A-Za-z] ?[(=])")


def bare_answer(region: str) -> Statement | None:
    """The whole (short) completion when it is an expression, a math block or a short phrase."""
    text = region.strip()
    if not text or len(text) > BARE_MAX_CHARS or text.count("\n") > 2:
        return None
    blocks = math_blocks(text)
    if blocks and (HEDGED.search(text) or re.search(r", but\b", text) or NEGATION.search(text)):
        return None  # class hedged-statement: "Thus $x = 7$ is a candidate, but it fails ...", "the answer isn't $5$"
    if blocks and (worded := reason_then_word(text, blocks[-1][1])):  # class since-clause-conclusion (kleval.verify.clauses)
        return Statement(worded, "bare-phrase", 0)
    if blocks:
        outside = text[: blocks[0][0]] + " " + text[blocks[-1][1] :]
        joined = all(is_joiner(text[a[1] : b[0]]) for a, b in itertools.pairwise(blocks))
        bounded = bounds(text[: blocks[0][0]], text[blocks[-1][1] :])  # "is at least $\frac{1}{2}$."
        if not re.search(r"\d", outside) and len(_PROSE_WORD.findall(outside)) <= 12 and joined and not bounded:
            value = joined_math(text, from_start=False)
            # class permutations-of-tuple: "... $(2,2,3)$ and its permutations." answers every ordering
            value = value and (permutations_value(text.rstrip(".! ")) or value)
            return Statement(value, "bare-math", 0) if value else None
        return None  # class bare-math-with-prose: blocks with prose between them are a sentence, not an answer
    # class glued-connective: whitespace-stripped "W(x)=1orW(x)=-1" is "W(x)=1 or W(x)=-1"
    text = _GLUED_CONNECTIVE.sub(r" \1 ", text)
    words = [w for w in _PROSE_WORD.findall(text) if w.lower() not in _UNIT_OR_PERCENT]
    if not words or (set(map(str.lower, words)) <= {"or", "and"} and re.search(r"[\d=]", text)):
        # an expression: "1 000", ".4", "\\frac{10}{9}", "28 percent", "x=1 or x=-1"
        return Statement(clean_span(text), "bare-answer", 0)
    if len(words) <= 4 and not re.search(r"[\d=]", text):  # a short word answer: "Evelyn", "even"
        return Statement(clean_span(text), "bare-phrase", 0)
    return None
