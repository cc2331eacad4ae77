"""class two-formats: an answer followed by the same value in another format, in parentheses.

Models restate an exact answer as a decimal, a percent or an approximation: "The answer is 3/4 (0.75).",
"\\\\boxed{\\\\frac{5}{8}\\\\ (0.625)}", "$\\\\frac{1}{3}$ (≈ 0.333)", "7/20 (35%)". The parenthetical is a
restatement, not a factor or a second answer: the value before it (the head) is the answer and decides.
Only a parenthetical that is one plain number (decimal, fraction, percent, optionally after `=`, `≈`,
`\\\\approx`, `~`, "about") after a head that ends in a value (a digit, `}` or `%`, never a function name
such as `\\\\sin (0.5)`) is dropped; "2 hours (120 minutes)" keeps its words. Linear time.
"""
from __future__ import annotations

import re
from fractions import Fraction

from kleval.verify.dates import worded_clock_as_digits

_NUMBER = r"-?(?:\d+(?:\.\d+)?|\.\d+)(?:/\d+)?(?: ?\\?%)?|-?\\[dt]?frac\{\d+\}\{\d+\}"
_SIGN = r"(?:=|≈|\\approx|~|about|approximately|approx\.?|or|i\.e\.,?)"
# (a comma before the parenthesis comes from joining two math blocks; it is kept only after an explicit sign)
_TRAILING = re.compile(
    rf"(?<=[\d}}%])(?:\\[ ,;!]|\\q?quad|~| |(?=,))+(?:\$ ?)?(?:\( ?(?:{_SIGN} ?)?({_NUMBER}) ?\)|, ?\( ?{_SIGN} ?({_NUMBER}) ?\))"
    rf"(?: ?\$)?[ .]*$")


# class value-remark: a parenthetical in words after a value remarks on it ("9 (not 10 — the fence has one fewer gap
# than posts)", "15 (since 3 × 5 = 15)"); the value is what was stated. "(or 13)" offers another value instead.
_REMARK = re.compile(r"(?<=[\d}%)])(?: |\\[ ,;]|~)+\((?!or\b)(?:[A-Za-z]{2,}|i\.e\.)(?=[ ,.:;])[^()]{0,300}\)[ .!]*$")


# class rejected-alternative: a parenthetical that sets aside another value it names ("b = 7 (b = -7 is rejected since
# lengths are positive)", "x = 3 (the root x = -2 is extraneous)") remarks on the value before it. Any other
# parenthetical that sets something aside ("x = -7 (rejected, since lengths must be greater than 0)", "12 (but 3 × 12 =
# 36 fails the check)") withdraws the value, which is then not read.
_SET_ASIDE_WORD = (r"(?:reject(?:ed|s)?|extraneous|discard(?:ed|s)?|invalid|impossible|ruled out|excluded|not (?:valid|allowed"
                   r"|possible|a solution)|(?:does not|doesn't|do not|don't) work|fails?)")
_SETS_ASIDE = re.compile(r"(?<=[\d}%])(?: |\\[ ,;]|~)+\((?=[^()]*\b" + _SET_ASIDE_WORD + r"\b)[^()]{0,200}\)[ .!]*$",
                         re.IGNORECASE)
# (the other value is what the bracket sets aside: "x = -2 is extraneous", "the other root, x = -2, is rejected",
# "we reject x = -2"; never a value it endorses, "(rejected; the valid root is x = 3)")
_NAMED_ALTERNATIVE = re.compile(r"\breject(?:s|ed)? (?:[a-z] ?= ?)?(-?\d+(?:\.\d+)?)(?![\d.])"
                                r"|(?:(?<![\w.=])|= ?)(-?\d+(?:\.\d+)?),? (?:is|was) (?:also )?" + _SET_ASIDE_WORD, re.IGNORECASE)


def set_aside_values(text: str) -> list[str]:
    """The values `text` names as set aside ("x = -2 is extraneous", "we reject x = -2"), as written."""
    return [m.group(1) or m.group(2) for m in _NAMED_ALTERNATIVE.finditer(text)]


def _setting_aside_bracket(text: str) -> tuple[str, bool] | None:
    """(the text before a closing bracket that sets something aside, whether that bracket withdraws the value before
    it: it names no other value it rejects, or names that one), or None without such a bracket."""
    rejected = _SETS_ASIDE.search(text[-320:])
    if rejected is None:
        return None
    head = text[: len(text) - len(text[-320:]) + rejected.start()].rstrip()
    named = set_aside_values(rejected.group(0))
    return head, not named or any(_same_number(head, n) for n in named)


def withdrawn_by_bracket(text: str) -> bool:
    """Whether `text` ends in a bracket that sets its value aside without naming another value it rejects
    (class rejected-alternative: "So x = -7 (rejected, since lengths must be greater than 0).")."""
    found = _setting_aside_bracket(text)
    return found is not None and found[1]


def drop_restatement(span: str) -> str:
    """`span` without a trailing parenthetical restatement of its value (`3/4 (0.75)` -> `3/4`) or remark on it."""
    if "(" not in span[-320:]:
        return span
    aside = _setting_aside_bracket(span)
    if aside is not None:
        head, withdrawn = aside
        # (the value itself set aside, or something the reader cannot tell, keeps the bracket: nothing is read)
        return head if head.count("(") == head.count(")") and not withdrawn else span
    remark = _REMARK.search(span[-320:])
    if remark is not None:
        head = span[: len(span) - len(span[-320:]) + remark.start()].rstrip()
        if re.search(r"\d", head) and head.count("(") == head.count(")") and head.count("{") == head.count("}"):
            return head
    m = _TRAILING.search(span[-80:])
    if m is None:
        return span
    head = span[: len(span) - len(span[-80:]) + m.start()].rstrip()
    if not re.search(r"\d", head) or head.count("(") != head.count(")") or head.count("{") != head.count("}"):
        return span
    if re.search(r"\\[A-Za-z]+(?:\^\{[^{}]*\}|\^\w)?$", head):
        return span  # a function and its argument ("\\tan^{-1} (2)", "\\sin (0.5)"), not a restatement
    if re.match(r"\( ?or\b", m.group(0).lstrip(" ~\\,;!$")) and not _same_number(head, m.group(1) or m.group(2)):
        return span  # class parenthetical-alternative: "12 (or 13)" offers a second value; "100 (or 100.0)" restates it
    return head


# class equal-value-bracket: a closing bracket in words that restates the value before it in another form ("... is
# $\frac{3}{8}$ (which is 0.375 as a decimal).", "7.5 cups (7 1/2 cups)", "3/8 (that's 37.5%)") is no second value: the
# two are one number, so the bracket is read past. Never a bracket that corrects, doubts or supposes ("(not 0.375)",
# "(or rather 0.4)", "(if rounded, 0.38)"), nor one whose value differs ("(0.4 as a decimal)" restates nothing).
_SIMPLE_VALUE = re.compile(r"(-?)(?:\\[dt]?frac\{(\d+)\}\{(\d+)\}|(\d+)\s+(\d+)/(\d+)|(\d+)/(\d+)|(\d[\d,]*(?:\.\d+)?|\.\d+))\s*(\\?%|percent)?")
_EQUAL_BRACKET = re.compile(r"\(([^()]{1,120})\)[ .!]*$")
_BRACKET_TURNS = re.compile(r"\b(?:not|no|but|wrong|incorrect|actually|correct(?:ed|ion)?|rather|instead|if|would|could|might|maybe"
                            r"|perhaps|or so|wait|hmm|than|minus|plus|times|each|per)\b|n't\b|[=+×*·?]", re.IGNORECASE)


def _values(text: str) -> list:
    out = []
    for m in _SIMPLE_VALUE.finditer(text.replace("$", " ")):
        sign = -1 if m.group(1) else 1
        if m.group(2):
            whole, n, d = 0, int(m.group(2)), int(m.group(3))
        elif m.group(4):
            whole, n, d = int(m.group(4)), int(m.group(5)), int(m.group(6))
        elif m.group(7):
            whole, n, d = 0, int(m.group(7)), int(m.group(8))
        else:
            whole, n, d = 0, Fraction(m.group(9).replace(",", "")), 1
        if d == 0:
            continue
        value = sign * (whole + Fraction(n) / d)
        out.append((m.start(), m.end(), value / 100 if m.group(10) else value))
    return out


_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})(?:\s*([ap])\.?\s?m\b\.?)?", re.IGNORECASE)


def _clocks(text: str) -> list:
    """(start, end, (minutes past 12, am or pm or None)) of each clock time ("4:15 PM", "16:15")."""
    out = []
    for m in _CLOCK.finditer(text):
        hours, minutes = int(m.group(1)), int(m.group(2))
        if hours > 23 or minutes > 59:
            continue
        half = m.group(3).lower() if m.group(3) else ("p" if hours >= 12 else None)
        out.append((m.start(), m.end(), ((hours % 12) * 60 + minutes, half)))
    return out


def without_equal_restatement(sentence: str) -> str:
    """`sentence` without a closing bracket that restates, in words, the value just before it (class equal-value-bracket;
    also a clock in words and its digits, "at quarter past four in the afternoon (4:15 PM)")."""
    m = _EQUAL_BRACKET.search(sentence)
    if m is None or _BRACKET_TURNS.search(m.group(1)) or len(m.group(1).split()) > 8:
        return sentence
    head = sentence[: m.start()].rstrip()
    inner_clocks = _clocks(m.group(1))
    if inner_clocks:
        before = _clocks(worded_clock_as_digits(head))
        if len(inner_clocks) != 1 or not before or before[-1][2][0] != inner_clocks[0][2][0] \
                or None not in (before[-1][2][1], inner_clocks[0][2][1]) and before[-1][2][1] != inner_clocks[0][2][1]:
            return sentence
        return head + m.group(0)[len(m.group(1)) + 2 :]
    inner, before = _values(m.group(1)), _values(head)
    if len(inner) != 1 or not before or len(head[before[-1][1] :].split()) > 4 or re.search(r"\d", head[before[-1][1] :]):
        return sentence
    return head + m.group(0)[len(m.group(1)) + 2 :] if before[-1][2] == inner[0][2] else sentence


def _same_number(head: str, other: str) -> bool:
    """Whether the plain number ending `head` and the plain number `other` are one value (False when either is not
    a plain decimal)."""
    from fractions import Fraction

    m = re.search(r"-?(?:\d+(?:\.\d+)?|\.\d+)$", head)
    if m is None or not re.fullmatch(r"-?(?:\d+(?:\.\d+)?|\.\d+)", other.strip()):
        return False
    return Fraction(m.group(0)) == Fraction(other.strip())


# class ie-restatement: a final sentence that describes its answer in words and closes by restating it after
# "i.e." / "that is" / "namely" / "in other words" ("All integers n with 1 ≤ n ≤ 4, i.e. {1, 2, 3, 4}.",
# "Every x with x ≥ 2 and x < 5, that is, $[2, 5)$."): the restated value is the answer. Read only when the
# sentence states no value otherwise, and only a value that closes the sentence: a math block, a roster in
# braces, a tuple or interval, or a number.
# (class rounded-restatement: also a value rounded as asked, "an increase of 33.1%, i.e. about $33\\,\\%$ to the
# nearest whole number", "..., or 33% to the nearest percent": that rounding is the answer)
_ROUNDED_AS_ASKED = r"(?: (?:to the nearest|rounded to|correct to|to) (?:[a-z]+ ){0,2}(?:number|integer|percent|tenth|hundredth|thousandth" \
                    r"|cent|dollar|unit|degree|place|places|figures?|digits?|meter|inch|foot|minute|second|hour)s?| when rounded| rounded)"
_IE_VALUE = re.compile(
    r"(?:,|;|\()? ?(?:(?:i\.e\.|ie\.|that is|namely|in other words),? (?:the (?:[a-z]+ ){0,4}(?:is|are) )?"
    r"(?:the (?:ordered |unordered )?(?:pair|triple|tuple|set|interval|point|vector) )?"
    r"(?:about |approximately |roughly )?"
    rf"|or (?:about |approximately |roughly )?(?=[^,;]*{_ROUNDED_AS_ASKED}[ .]*$))"
    r"(\$[^$]{1,200}\$|\\\((?:[^\\]|\\(?!\)))*?\\\)|\\?\{[^{}]{1,200}\\?\}|[\[(][^()\[\]]{1,100}[\])]"
    rf"|-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?%?)(?:{_ROUNDED_AS_ASKED})?\)?[ .]*$", re.IGNORECASE)


def restated_value(sentence: str) -> str | None:
    """The value a sentence restates at its end after "i.e." and its kin, or None."""
    m = _IE_VALUE.search(sentence[-300:])
    if m is None or not re.search(r"\d", m.group(1)):
        return None
    value = m.group(1)
    if value.startswith("$") and value.endswith("$"):
        value = value[1:-1]
    elif value.startswith("\\(") and value.endswith("\\)"):
        value = value[2:-2]
    return value.strip() or None


# (the two values of a rounded restatement, "33.1%, i.e. about $33\\,\\%$ to the nearest whole number", are one answer:
# the exact value and the rounding asked for; a gold that is either is answered)
_ROUNDED_PAIR = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)\s*(?:\\?%|percent)?\$?,? (?:i\.e\.|ie\.|that is|or),? (?:about |approximately |roughly )?"
                           r"\$?(-?\d[\d,]*(?:\.\d+)?)[^.\n]{0,12}?" + _ROUNDED_AS_ASKED, re.IGNORECASE)


def rounded_pair(completion: str, span: str) -> str | None:
    """The other value of the closing rounded restatement whose exact value or rounding is the answer `span`, else None."""
    number = re.match(r"-?\d[\d,]*(?:\.\d+)?", span.strip().lstrip("$"))
    pairs = list(_ROUNDED_PAIR.finditer(completion[-400:]))
    if number is None or not pairs:
        return None
    exact, rounded = pairs[-1].group(1), pairs[-1].group(2)
    return rounded if number.group(0) == exact else exact if number.group(0) == rounded else None

