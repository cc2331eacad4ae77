"""Answer forms beyond plain expressions: worded numbers and phrases, `\\pm` expansions, periodic
families, unit-vector notation, set-builder sets, set differences and clock times.

Each function turns one recognised written form into a kleval.verify.canonical.Canon (or a list
of strings to canonicalize), so canonical.py keeps the structure and these keep the vocabulary.
Nothing here evaluates model text: numbers go through the exact fast path, LaTeX through the
same latex2sympy2_extended entry point as everything else.
"""
from __future__ import annotations

import re
from typing import Any

from kleval.verify.canonical import (
    Canon,
    ParseFailure,
    _exactify,
    _fast_number,
    _latex_to_sympy,
    canonicalize,
)
from kleval.verify.normalize import DENOMINATOR_WORDS
from kleval.verify.policy import Policy
from kleval.verify.units import NOT_AN_ALTERNATIVE, WORDED_DURATION, worded_duration


def expand_pm(s: str, limit: int = 3) -> list[str]:
    """`a \\pm b` -> [`a + b`, `a - b`] (and \\mp the other way), for up to `limit` signs; [s] without one."""
    m = re.search(r"\\(pm|mp)(?![a-zA-Z])|±|∓", s)
    if m is None or limit == 0:
        return [s]
    first, second = ("-", "+") if m.group(0) in ("\\mp", "∓") else ("+", "-")
    head, tail = s[: m.start()], s[m.end() :]
    return [v for sign in (first, second) for v in expand_pm(f"{head} {sign} {tail}", limit - 1)]


_FAMILY_SUFFIX = re.compile(
    r"(?:,|;|\\text\{[^{}]{0,30}\})? ?(?:\\text\{ ?(?:for|where|with) ?(?:all|any|some|every)? ?(?:integers?)? ?\}|for|where)? ?"
    r"\(?([a-zA-Z])\)? ?(?:\\in ?\\mathbb ?\{?Z\}?|\\in ?\\Z\b|\\text\{ ?(?:is an|are|is any)? ?integers? ?\}|(?:is an|is any) integer)$"
    r"|(?:,|;)? ?\\text\{ ?(?:for|where) ?(?:all|any|some|every)? ?integers? ?\}? ?\(?([a-zA-Z])\)?\}?$")
SET_BUILDER = re.compile(r"^\\\{ ?([a-zA-Z]) ?(?:\\in ?\(-\\infty, ?\\infty\) ?)?(?:\\mid|\||:) ?(.+)\\\}$")
# class worded-constants: words for infinity and for "there is none" (the empty set of solutions)
_INFINITY_WORDS = {"infinity", "infinite", "positive infinity", "+infinity"}
# ("no solution", "There are no real solutions", "the equation has no integer roots", "the empty set")
_EMPTY_SET_WORDS = re.compile(r"(?:the )?empty set|(?:there (?:is|are|exists?) |(?:it|the equation|the system|the inequality)"
                              r" has )?no (?:real |integer |such |possible |valid )?(?:solutions?|roots?|values?|numbers?|x)")
# class set-builder-integers: `\\{n \\in \\mathbb{Z} : 1 \\le n \\le 4\\}` is the finite set {1, 2, 3, 4}
INTEGER_SET_BUILDER = re.compile(r"^\\\{ ?([a-zA-Z]) ?\\in ?\\mathbb ?\{?([ZN])\}? ?(?:\\mid|\||:) ?(.+)\\\}$")
FAMILY_SET_BUILDER = re.compile(r"^\\\{ ?(.+?) ?(?:\\mid|\||:) ?([a-zA-Z]) ?\\in ?\\mathbb ?\{?Z\}? ?\\\}$")
MAX_SET_MEMBERS = 1000


_INTEGER_SET_WORDS = re.compile(r"(?:all |the |any |every )?(?:(even|odd) (?:integers?|numbers?)|integers?|"
                                r"(?:integer )?multiples of (\d{1,6}))")
_IDENTITY_WORDS = re.compile(r"(?:the )?identity (?:function|map(?:ping)?)(?: f\(x\) ?= ?x)?(?: on \S{1,20})?")
_NAMED_SET_WORDS = re.compile(r"(?:all |the |every |any |the set of (?:all )?)?((?:positive|nonnegative|non-negative|negative) integer"
                              r"|(?:natural|rational|positive rational|complex) number)s?")
_NAMED_SETS = {"positive integer": "Z>0", "nonnegative integer": "Z>=0", "non-negative integer": "Z>=0",
               "negative integer": "Z<0", "natural number": "N", "rational number": "Q", "positive rational number": "Q>0",
               "complex number": "C"}
_REAL_LINE_WORDS = {"all real numbers", "all reals", "all real values", "every real number", "real numbers", "all real x"}
_NUMBER_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"])}
_NUMBER_WORDS.update({w: 10 * i for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2)})
# class number-words: the multipliers English numerals use ("three hundred", "two dozen", "2.5 million")
SCALE_WORDS = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_DOZEN = {"dozen": 12}
# class fraction-words: a count and a denominator word ("one half", "three quarters", "two-thirds")
_DENOMINATORS = DENOMINATOR_WORDS
# every word a worded number is made of (short_statement.py finds runs of them in prose)
NUMBER_WORD_VOCABULARY = frozenset(_NUMBER_WORDS) | frozenset(SCALE_WORDS) | frozenset(_DOZEN) | frozenset(_DENOMINATORS)
_NEGATIVE_WORDS = ("negative ", "minus ")
# class worded-number-in-sentence (kind `number` and concluding sentences): a cardinal in words that counts something
# is a number like its digits ("So in 15 minutes he will go ten miles." states 10, as "... go 10 miles." does; "she
# has twelve left"; "minus ten degrees" is -10). A run of cardinal and scale words becomes its digits ("twenty-five"
# 25, "three hundred and five" 305, "two thousand" 2000). Never a cardinal after a determiner, which names the
# problem's own things ("the three cups", "all four sides"), or after a preposition, whose phrase qualifies the
# statement ("... ways using two runways", "in three days"); never a lone "one", as often a pronoun ("No one took
# any"); "dozen" and the fraction words keep their word ("two dozen" is "2 dozen", read as digits are read) and a mixed
# number stays in words ("two and a half")
_CARDINAL_WORD = "|".join(sorted([*_NUMBER_WORDS, *SCALE_WORDS], key=lambda w: (-len(w), w)))
# ("a hundred and twenty" is 120, "two thousand, one hundred and five" 2105; a mixed number, "one and a half hours", is
# read whole: 1.5; so is a fraction, "three-fourths of her sandwich" 3/4, "two thirds" 2/3, but "two quarters" without
# its hyphen may be coins and stays words)
_MIXED_FRACTION = rf" and (?:an?|one|two|three|four|five|six|seven|eight|nine)[ \-](?:{'|'.join(_DENOMINATORS)})"
_CARDINAL_RUN = re.compile(rf"(?<![\w\-])(?P<sign>(?:negative|minus) )?(?P<words>(?:an? (?=(?:hundred|thousand|million|billion)\b))?"
                           rf"(?:{_CARDINAL_WORD})(?:(?:[ \-]| and |(?:(?<=thousand)|(?<=million)|(?<=billion)), )(?:{_CARDINAL_WORD}))*)"
                           rf"(?P<mixed>{_MIXED_FRACTION})?"
                           rf"(?P<fraction>-(?:{'|'.join(_DENOMINATORS)})| (?:{'|'.join(d for d in _DENOMINATORS if 'quarter' not in d)}))?"
                           rf"(?![\w\-])", re.IGNORECASE)
_DETERMINER_BEFORE = re.compile(r"\b(?:the|these|those|all|its|their|his|her|our|your|my|each|every|both|first|last|next"
                                r"|other|another|any|which|whose"
                                # (and after a preposition, a phrase that qualifies: "using two runways", "in three days")
                                r"|of|using|with|from|in|into|for|among|between|by|on|at|per|after|before|over|across|within"
                                r"|through|than)\s+$", re.IGNORECASE)
_NUMBER_BEFORE = re.compile(r"(?:\d|\b(?:" + _CARDINAL_WORD + r"))\s+$", re.IGNORECASE)


_DIGIT_NUMBER = re.compile(r"(?<![\w.,])\$?\d[\d,]*(?:\.\d+)?")
_WORD_AFTER = re.compile(r" (?:dozen|minus|plus|times|divided|over|to|or|point|out of|in (?:\d|" + _CARDINAL_WORD + r")"
                         r"|squared|cubed|factorial|(?:" + "|".join(_DENOMINATORS) + r"))\b|,? (?:" + _CARDINAL_WORD + r")\b"
                         r"|!", re.IGNORECASE)
_WORD_BEFORE = re.compile(r"\b(?:minus|plus|times|over|point)\s+$|(?:\d|\b(?:" + _CARDINAL_WORD + r")),?\s+(?:to|or|in|out of)\s+$"
                          r"|(?:\d|\b(?:" + _CARDINAL_WORD + r")),\s+$", re.IGNORECASE)
# (a sentence that doubts, bounds or denies its value keeps its words: "So maybe four apples.", "So nine is wrong.")
_WORD_GUARD = re.compile(r"\b(?:maybe|probably|perhaps|possibly|nearly|almost|about|approximately|around|roughly|over|under"
                         r"|at least|at most|more than|less than|fewer than|not|no(?! one)|never|cannot|wrong|if|unless|could|might"
                         r"|would|wait|unsure)\b|n't\b|\?", re.IGNORECASE)


# a sentence's conclusion follows its last "so"/"thus"/"which means": only that clause's digits can state the value
# ("10% of $1,000 is $100, so the new rent is eleven hundred dollars." states 1100)
# (and ", which is ..." states the result of the working before it: "500 + 1,500 + 125 blocks, which is two thousand, one
# hundred and twenty-five blocks", only after an operation with no result of its own, never after a stated value, "she
# needs 20 more dollars, which is four weeks of allowance", "12 + 15 = 27, which is nine students per team", nor a
# comparison or a share, "5 apples, which is two more than Tom has", "which is twenty percent of her income")
OPERATION = r"\d\s*(?:[-+×÷*/−]|\\times|\\cdot)\s*\$?\d"  # a number, an operation sign, a number ("12 + 15", "3 \\times 4")
_WORKING = re.compile(OPERATION)
_CONCLUDING_CLAUSE = re.compile(r"(?:[,;] (?:and )?| and )(?:so|thus|hence|therefore|which means|which gives|meaning"
                                r"|(?<=, )which (?:is|makes|comes to)(?! (?:[a-z]+ ){0,3}(?:more|less|fewer|greater|smaller|larger"
                                r"|than|times|longer|shorter|older|younger|as)\b))(?: that)?,? ", re.IGNORECASE)
# (and a fronted reason is no statement of value: the main clause after its comma states it)
_FRONTED_REASON = re.compile(r"\W{0,3}(?:since|because|as|given that)\b[^,;]{1,150}, ", re.IGNORECASE)
# a lone "one" is a count only where the sentence counts with it ("There is one person in purple.", "exactly one")
_ONE_COUNTS = re.compile(r"\b(?:there (?:is|was|will be|remains?)|there's|exactly|only|just)\s+$", re.IGNORECASE)


# class dozen-count: "a dozen eggs", "half a dozen", "a half dozen", "a dozen and a half", "two dozen roses" count 12, 6,
# 6, 18 and 24 (never "dozens of", an alternative, "a dozen or so", nor a count after a determiner, "the two dozen"; in
# digits, "7 dozen eggs", it stays 7, a count of dozens, as kind number reads it)
_DOZEN_COUNT = re.compile(r"(?<![\w-])(?:(half) an? dozen|an? (half )?dozen( and a half)?|(" + "|".join(
    w for w in _NUMBER_WORDS if 1 < _NUMBER_WORDS[w] <= 12) + r") dozen)\b(?! or\b| to\b|s\b| and a half\b)", re.IGNORECASE)


def _dozen_digits(m: re.Match) -> str:
    if _DETERMINER_BEFORE.search(m.string[: m.start()]) or _WORD_BEFORE.search(m.string[: m.start()]):
        return m.group(0)
    # ("a half dozen" and "a dozen and a half" are read here; number_from_words reads the others)
    return "6" if m.group(2) else "18" if m.group(3) else str(number_from_words(m.group(0).lower()))


def _duration_digits(m: re.Match) -> str:
    """A duration in words as digits, "a quarter of an hour" -> "0.25 hours" (class duration-in-words, read in minutes too
    by kleval.verify.units, class compound-in-smaller-unit); never after a determiner or a preposition but "for" ("in
    half an hour" qualifies)."""
    before = m.string[: m.start()]
    if (_DETERMINER_BEFORE.search(before) and not re.search(r"\bfor\s+$", before)) or _WORD_BEFORE.search(before):
        return m.group(0)  # (but "bakes for half an hour" states how long)
    value, unit = worded_duration(m)
    return f"{float(value):g} {unit}s"

# class dollars-and-cents: "thirty-seven dollars and fifty cents", "37 dollars and 50 cents", "$37 and 50 cents" is $37.50
# (never a count of cents alone, "50 cents", nor "3 dollars and 150 cents")
_DOLLARS_AND_CENTS = re.compile(NOT_AN_ALTERNATIVE + r"(?:(?<![\w$])\$ ?(\d[\d,]*)|\b(\d[\d,]*) dollars?)"
                                r" and (\d{1,2}) cents?\b", re.IGNORECASE)


# class words-then-digits: a number in words that its digits follow in brackets ("one thousand two hundred (1,200)
# liters", "half a dozen (6) cupcakes") is those digits
_WORDS_THEN_DIGITS = re.compile(rf"\b(?:(?:{_CARDINAL_WORD}|dozen|half|quarter|and|an?)(?:[ -]|, ))*(?:{_CARDINAL_WORD}|dozen)"
                                r" \((\d[\d,]*(?:\.\d+)?)\)", re.IGNORECASE)


def worded_numbers_as_digits(text: str) -> str:
    """`text` with its numbers in words as digits (`_worded_numbers_as_digits`) and an amount in dollars and cents as one
    amount in dollars ("37.50 dollars")."""
    text = _WORDS_THEN_DIGITS.sub(r"\1", text)
    return _DOLLARS_AND_CENTS.sub(lambda m: f"${m.group(1)}.{int(m.group(3)):02d}" if m.group(1)
                                  else f"{m.group(2)}.{int(m.group(3)):02d} dollars", _worded_numbers_as_digits(text))


def _worded_numbers_as_digits(text: str) -> str:
    """`text` with each run of English cardinal words that counts something written as its digits ("ten miles" ->
    "10 miles"; "a hundred and twenty sheep" -> "120 sheep"; "one and a half hours" -> "1.5 hours"; "the three cups"
    stays). A text whose digits state a value of their own ("Mary spent $24 buying eight pencils.", "It takes 6 hours
    if two workers help.") keeps its words: only digits in a qualifying phrase ("in 15 minutes") or before the
    sentence's concluding clause ("$100, so the new rent is eleven hundred dollars") leave the words to state the
    value. Words next to an operation, a range, a ratio, a decimal point, a fraction word or an alternative ("ten
    minus three", "twenty to thirty", "five out of six", "two point five", "two thirds", "seven or eight", "five,
    six") and a count of dozens stay words (but "a dozen", "two dozen" count 12 and 24: class dozen-count), and so does a sentence that doubts, bounds or denies ("maybe four",
    "nearly nine", "nine is wrong")."""
    clauses = [c for c in _CONCLUDING_CLAUSE.finditer(text)
               if not re.search(r"which (?:is|makes|comes)", c.group(0), re.IGNORECASE)
               or _WORKING.search(text[: c.start()]) and not re.search(r"=\s*\$?-?\d", text[: c.start()])
               and not re.match(r"[^,.;]*\b(?:per|percent|of)\b", text[c.end() :], re.IGNORECASE)]
    start = clauses[-1].end() if clauses else 0
    if not clauses and (fronted := _FRONTED_REASON.match(text)):
        start = fronted.end()  # "Since 3/2 of an hour is 90 minutes, the drive takes one and a half hours."
    if _WORD_GUARD.search(text, start):  # (only where the value is stated: "Since at least one plays, ..., so six play")
        return text
    for number in _DIGIT_NUMBER.finditer(text, start):
        if not _DETERMINER_BEFORE.search(text[: number.start()]):
            return text

    text = text[:start] + _DOZEN_COUNT.sub(_dozen_digits, text[start:])  # class dozen-count: "He has a dozen eggs left."
    text = text[:start] + WORDED_DURATION.sub(_duration_digits, text[start:])  # "She waits a quarter of an hour."

    def digits(m: re.Match) -> str:
        words, sign = m.group("words"), m.group("sign") or ""
        before = text[: m.start()]
        if m.start() < start or words.lower() == "one" and not (m.group("mixed") or m.group("fraction") or _ONE_COUNTS.search(before)) \
                or _DETERMINER_BEFORE.search(before) or _WORD_AFTER.match(text, m.end()) or _WORD_BEFORE.search(before):
            return m.group(0)
        fraction = m.group("fraction") or ""
        if fraction and (re.search(rf"(?:{'|'.join(w for w in _NUMBER_WORDS if _NUMBER_WORDS[w] >= 20)}|hundred|thousand)$",
                                   words, re.IGNORECASE) or (words.lower() in ("one", "a")) == fraction.endswith("s")):
            return m.group(0)  # an ordinal ("twenty-fifth", "December twenty-third") or no fraction ("three fourth")
        value = number_from_words(words.replace(",", "") + (m.group("mixed") or fraction))
        if value is None:
            return m.group(0)
        if sign.lower().startswith("minus") and _NUMBER_BEFORE.search(before):
            return m.group(0)  # "ten minus three" subtracts: an operation stays words
        shown = str(value) if value.q == 1 else str(float(value)) if 10**6 % value.q == 0 and not m.group("fraction") \
            else f"{abs(value.p)}/{value.q}"
        return f"-{shown}" if sign else shown

    return _CARDINAL_RUN.sub(digits, text)

# label words that end a worded number ("twelve apples") must be nouns, never an operation or a relation
_NOT_A_LABEL = {"of", "more", "less", "than", "times", "per", "percent", "or", "and", "plus", "minus", "over",
                "divided", "by", "squared", "cubed", "to", "the", "a", "an", "point", "root", "power", "degrees"}
TIME_RE = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))? ?(a\.?m\.?|p\.?m\.?)?$", re.IGNORECASE)
UNIT_VECTOR = re.compile(r"\\(?:mathbf|vec|hat|boldsymbol)\{ ?\\?([ijk]|imath|jmath) ?\}")


def _cardinal(words: list[str]) -> int | None:
    """`three hundred five` -> 305, `a dozen` -> 12, `two million` -> 2000000, else None.

    Word order is checked the way English numerals are built, so `three five` or `five twenty` is not a number.
    """
    if not words:
        return None
    total, current, last = 0, 0, ""  # last: the kind of the previous word (unit, teen, tens, hundred, scale)
    for index, word in enumerate(words):
        if word in ("a", "an") and index == 0 and len(words) > 1:
            current, last = 1, "unit"
        elif word in _NUMBER_WORDS:
            value = _NUMBER_WORDS[word]
            kind = "tens" if value >= 20 else "teen" if value >= 10 else "unit"
            if last in ("unit", "teen") or (last == "tens" and kind != "unit") or (word == "zero" and len(words) > 1):
                return None
            current, last = current + value, kind
        elif word == "hundred" and current and last in ("unit", "teen"):
            current, last = current * 100, "hundred"
        elif word in _DOZEN and current and last not in ("dozen",):
            current, last = current * 12, "dozen"
        elif word in SCALE_WORDS and word != "hundred" and current:
            if total and total < SCALE_WORDS[word] * current:
                return None  # "two thousand three million": scales must decrease
            total, current, last = total + current * SCALE_WORDS[word], 0, "scale"
        else:
            return None
    return total + current


def number_from_words(text: str):
    """An English worded number as an exact sympy Rational, else None: `seventeen`, `twenty-one`,
    `three hundred and five`, `a dozen`, `two million`, `negative five`, `one half`, `three quarters`,
    `two and a half`."""
    import sympy

    text = re.sub(r"\s+", " ", text.lower().strip())
    sign = 1
    for word in _NEGATIVE_WORDS:
        if text.startswith(word):
            sign, text = -1, text[len(word) :]
            break
    scaled = re.fullmatch(r"(.+?) (?:of )?an? (dozen|hundred|thousand|million|billion)", text)
    if scaled and _fraction_words(scaled.group(1)) is not None:  # "half a dozen", "a quarter of a million"
        return sign * _fraction_words(scaled.group(1)) * (SCALE_WORDS.get(scaled.group(2)) or _DOZEN[scaled.group(2)])
    whole, fraction = text, ""
    m = re.fullmatch(r"(.+?) and (an? [a-z\-]+|(?:one|two|three|four|five|six|seven|eight|nine)[ \-][a-z]+)", text)
    if m and _fraction_words(m.group(2)) is not None:
        whole, fraction = m.group(1), m.group(2)  # class mixed-number-words: "two and a half"
    elif _fraction_words(text) is not None:
        return sign * _fraction_words(text)
    words = [w for w in re.split(r"[\s\-]+", whole.replace(" and ", " ")) if w]
    if len(words) > 10:
        return None
    value = _cardinal(words)
    if value is None:
        return None
    return sign * (sympy.Integer(value) + (_fraction_words(fraction) if fraction else 0))


def _fraction_words(text: str):
    """`one half`, `a third`, `three-quarters`, `half` -> the Rational, else None."""
    import sympy

    words = [w for w in re.split(r"[\s\-]+", text) if w]
    if not words or words[-1] not in _DENOMINATORS:
        return None
    denominator = _DENOMINATORS[words[-1]]
    if len(words) == 1:
        return sympy.Rational(1, 2) if words[0] == "half" else None
    count = _cardinal(words[:-1]) if words[:-1] not in (["a"], ["an"], ["one"]) else 1
    if not count:
        return None
    return sympy.Rational(count, denominator)


def worded_quantity(key: str):
    """A number written with words: all words (`three hundred`), a numeral with a scale word
    (`2.5 million`, `3 dozen`), or either followed by a short noun label (`twelve apples`); else None."""
    import sympy

    value = number_from_words(key)
    if value is not None:
        return value
    m = re.fullmatch(r"([-+]?(?:\d+(?:\.\d+)?|\.\d+)) ?(hundred|thousand|million|billion|trillion|dozen)s?"
                     r"((?: [a-z]{2,15}){0,3})", key)
    if m and not set(m.group(3).split()) & (_NOT_A_LABEL | set(SCALE_WORDS) | set(_DOZEN)):
        scale = SCALE_WORDS.get(m.group(2)) or _DOZEN[m.group(2)]
        return sympy.Rational(_fast_number(m.group(1))) * scale
    m = re.fullmatch(r"(\d+) ?([a-z]+)", key)
    if m and m.group(2) in _DENOMINATORS:  # class fraction-words: "3 fifths", "1 thousandth"
        return sympy.Rational(int(m.group(1)), _DENOMINATORS[m.group(2)])
    words = key.split()
    for cut in range(len(words) - 1, 0, -1):  # the longest worded number followed by a noun label
        label = words[cut:]
        if len(label) > 3 or set(label) & _NOT_A_LABEL or any(
                w in _NUMBER_WORDS or w in SCALE_WORDS or w in _DOZEN or w in _DENOMINATORS for w in label):
            continue
        value = number_from_words(" ".join(words[:cut]))
        if value is not None:
            return value
    return None


def text_value(key: str, source: str, policy: Policy) -> Canon:
    """A worded answer: a number word, a number with a label (`17 apples`), the real line, yes/no, or words."""
    import sympy

    number = worded_quantity(key)
    if number is None:  # class roman-numeral: `\\text{XIV}` is 14 (kleval.verify.notations)
        from kleval.verify.notations import roman_numeral

        roman = roman_numeral(source)
        number = sympy.Integer(roman) if roman is not None else None
    if number is None:  # class percent-words: "twenty-five percent" is 25 with a percent sign (25\\%)
        percent = re.fullmatch(r"(.+?) ?(?:percent|per cent|%)", key)
        number = number_from_words(percent.group(1)) if percent else None
    if number is not None:
        return Canon("number", number, source)
    if re.fullmatch(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+) ?(?:hundred|thousand|million|billion|trillion|dozen)s?\b.*", key):
        raise ParseFailure(f"a scaled number with words after it: {key[:40]!r}")  # never the bare numeral
    if key in _INFINITY_WORDS:
        return Canon("number", sympy.oo, source)
    if _EMPTY_SET_WORDS.fullmatch(key):
        return Canon("set", (), source)
    m = re.fullmatch(r"([-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)) ?[a-z][a-z \-]{0,30}", key)
    if m and _fast_number(m.group(1).replace(",", "")) is not None:
        return Canon("number", _fast_number(m.group(1).replace(",", "")), source)
    if key in _REAL_LINE_WORDS:
        return canonicalize("(-\\infty,\\infty)", policy)
    if _IDENTITY_WORDS.fullmatch(key):  # class named-function: "the identity function" is x -> x, under any name
        return canonicalize("x", policy)
    named = _NAMED_SET_WORDS.fullmatch(key)
    if named:  # class number-set: "all positive integers" is the set written \mathbb{Z}^+ (kleval.verify.notations)
        return Canon("numberset", _NAMED_SETS[named.group(1)], source)
    integers = _INTEGER_SET_WORDS.fullmatch(key)
    if integers:  # class prose-set: "all even integers" is the family 2k, k an integer
        k = sympy.Symbol("k")
        kind, step = integers.group(1), integers.group(2)
        expr = 2 * k if kind == "even" else 2 * k + 1 if kind == "odd" else int(step) * k if step else k
        return Canon("family", ("k", (expr,)), source)
    yes_no = re.match(r"^(yes|no)\b(?:[,.;!:]|$)", key)
    if yes_no:  # "Yes, it is possible": the answer is the yes
        return Canon("text", yes_no.group(1), source)
    return Canon("text", key, source)


def integer_set(m: re.Match, policy: Policy) -> Canon:
    """The integers (or naturals) satisfying a one-variable condition, as a finite set; ParseFailure when it
    is not finite or has more than MAX_SET_MEMBERS members."""
    import sympy

    from kleval.verify.compare import _as_set

    condition = canonicalize(m.group(3), policy)
    region = _as_set(condition)
    if region is None:
        raise ParseFailure("a set-builder condition that is not one variable's inequality")
    integers = sympy.S.Integers if m.group(2) == "Z" else sympy.S.Naturals0  # N: whether 0 counts is left to
    members = sympy.Intersection(region, integers)  # the bounds, which in answers exclude or include it explicitly
    if not members.is_finite_set or (isinstance(members, sympy.Range) and members.size > MAX_SET_MEMBERS):
        raise ParseFailure("a set-builder set of integers that is infinite or too large to list")
    values = list(members) if isinstance(members, (sympy.Range, sympy.FiniteSet)) else None
    if values is None or len(values) > MAX_SET_MEMBERS:
        raise ParseFailure("a set-builder set of integers that could not be listed")
    return Canon("set", tuple(Canon("number", sympy.Integer(v), m.group(0)) for v in values), m.group(0))


def family(s: str, policy: Policy) -> Canon | None:
    """`x = k\\pi, k \\in \\mathbb{Z}` -> a family: expressions in one integer parameter."""
    m = _FAMILY_SUFFIX.search(s)
    if not m:
        return None
    parameter = m.group(1) or m.group(2)
    body = s[: m.start()].strip().rstrip(",;").strip()
    if not body or parameter not in body:
        return None
    members = canonicalize(body, policy)
    parts = members.value if members.kind == "list" else (members,)
    exprs = []
    for part in parts:
        if part.kind not in ("expr", "number"):
            return None
        exprs.append(part.value)
    return Canon("family", (parameter, tuple(exprs)), s, name=members.name or (parts[0].name if parts else ""))


def unit_vector_components(s: str) -> Canon | None:
    """`5\\mathbf{i} - 3\\mathbf{j}` -> the column (5, -3): coefficients of the unit vectors."""
    import sympy

    replaced = UNIT_VECTOR.sub(lambda m: {"i": " u_{1}", "j": " u_{2}", "k": " u_{3}", "imath": " u_{1}",
                                           "jmath": " u_{2}"}[m.group(1)], s)
    expr = _exactify(_latex_to_sympy(replaced))
    units = [sympy.Symbol(f"u_{n}") for n in (1, 2, 3)]
    size = 3 if units[2] in expr.free_symbols else 2
    expanded = sympy.expand(expr)
    coefficients = [expanded.coeff(u) for u in units[:size]]
    rest = sympy.expand(expanded - sum(c * u for c, u in zip(coefficients, units)))
    if rest != 0 or any(c.free_symbols & set(units) for c in coefficients):
        raise ParseFailure("unit-vector notation with terms that are not along i, j, k")
    return Canon("seq", tuple(Canon("number" if c.is_number else "expr", c, str(c)) for c in coefficients), s, "()")


def canon_of_set(value: Any, source: str) -> Canon:
    """A sympy set (interval, finite set or union of them) as a Canon; ParseFailure for anything else."""
    import sympy

    if isinstance(value, sympy.Interval):
        ends = (Canon("number" if e.is_number else "expr", e, source) for e in (value.start, value.end))
        return Canon("seq", tuple(ends), source, ("(" if value.left_open else "[") + (")" if value.right_open else "]"))
    if isinstance(value, sympy.FiniteSet):
        return Canon("set", tuple(Canon("number" if m.is_number else "expr", m, source) for m in value.args), source)
    if isinstance(value, sympy.Union):
        return Canon("union", tuple(canon_of_set(part, source) for part in value.args), source)
    if value == sympy.S.EmptySet:
        return Canon("set", (), source)
    raise ParseFailure(f"a set difference that is not intervals and points: {value}")


def set_difference(s: str, policy: Policy) -> Canon:
    """class set-difference: `(0,36) \\setminus \\{9\\}` is the set it denotes, `(0,9) \\cup (9,36)`."""
    import sympy

    from kleval.verify.compare import _as_set

    left, _, right = s.partition("\\setminus")
    sets = []
    for part in (left, right):
        canon = canonicalize(part.strip(), policy)
        if canon.kind == "set" and all(m.kind == "number" for m in canon.value):
            sets.append(sympy.FiniteSet(*(m.value for m in canon.value)))
        else:
            as_set = _as_set(canon)
            if as_set is None:
                raise ParseFailure("a set difference of something that is not a set")
            sets.append(as_set)
    return canon_of_set(sympy.Complement(sets[0], sets[1]), s)
