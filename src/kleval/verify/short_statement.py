"""class short-statement: a short plain-prose completion that states exactly one quantity.

Without any statement (box, answer phrase, `A:` line, ...) the math grammar never guesses from a number in
the text. A completion of one or two short sentences with no math, whose final sentence states exactly one
quantity, is the exception: the sentence is a bare statement of that quantity ("She has €45 left.", "She
walked 2 1/2 miles.", "There are twelve apples left.", "It takes 1 hour 30 minutes."). A quantity is a
number (with a currency sign, a percent sign, E-notation `3.2e-4` or a mixed-number fraction: `2 1/2`), a worded number ("twelve",
"twenty-one", "one-half", "three quarters"), or a compound quantity (`1 hour 30 minutes`, `5 ft 6 in`); the
unit word after it is kept, so that units still convert and mismatch. A value restated after "i.e." /
"that is" / "so" / "namely" ("It takes 2.5 hours, i.e. 150 minutes.", "Half of them, so one-half.") is the
answer when the restatement is only that quantity and its unit.

Never read: more than one quantity in the final sentence otherwise ("She had 45 euros but spent 20."), an
earlier sentence with a quantity of its own, a question ("Maybe 12?"), a negation, a bound or condition
("about", "at least", "more", "if", "could"; a soft hedge, "Maybe there are twelve.", "I think it is 5 m.", still states its value), a step or place number ("Part 2."), math, an equation, or a text over 160 characters. Linear time:
each pattern is one alternation scanned once over at most 160 characters.
"""
from __future__ import annotations

import re

from kleval.verify.dates import MONTH_HINT, trailing_date
from kleval.verify.decimals import DOT_GROUPED_THOUSANDS
from kleval.verify.forms import NUMBER_WORD_VOCABULARY, number_from_words
from kleval.verify.glued import glue
from kleval.verify.units import unit_of

MAX_CHARS = 160

_UNIT = (r"(?:hours?|hrs?|h|minutes?|mins?|min|seconds?|secs?|s|days?|weeks?|feet|foot|ft|inch(?:es)?|in|yards?|yd"
         r"|miles?|mi|pounds?|lbs?|lb|ounces?|oz|meters?|metres?|m|centimeters?|centimetres?|cm|millimeters?|mm"
         r"|kilograms?|kg|grams?|g|liters?|litres?|l|milliliters?|millilitres?|ml)")
_NUM = rf"(?:{DOT_GROUPED_THOUSANDS}|\d[\d,]*(?:\.\d+)?)"  # (class dot-grouped-thousands: "2.598.960")
_NUMBER_WORD = "|".join(sorted(NUMBER_WORD_VOCABULARY, key=lambda w: (-len(w), w)))  # longest first
# one quantity: a compound quantity, a mixed number, a number (currency, percent), or a run of number words
_QUANTITY = re.compile(
    rf"(?<![\w.])(?:(?P<compound>{_NUM} ?{_UNIT} (?:and )?{_NUM} ?{_UNIT})(?![\w])"
    rf"|(?P<mixed>\d+ \d+/\d+)(?![\w/])"
    # (class e-notation-statement: "3.2e-4 M" is one number, never 3.2 and a stray 4)
    rf"|(?P<number>[$€£]? ?-?(?:{_NUM}|\.\d+)(?:[eE][-+]?\d+(?![\w.])|(?:/\d+)?%?))"
    rf"|(?P<words>(?:an? )?(?:{_NUMBER_WORD})(?:[ \-](?:and )?(?:an? )?(?:{_NUMBER_WORD}))*(?![\w\-])))", re.IGNORECASE)
_DIGITLESS_WORDS = re.compile(rf"\b(?:{_NUMBER_WORD})\b", re.IGNORECASE)
# words that doubt, bound or condition the value, or compare it with another (class more-quantity-statement: "more"
# before its noun counts the answer, "She needs twelve more cupcakes."; "15 or more", "more than" and a closing "more" bound it)
_GUARD = re.compile(r"\b(?:possibly|seems?|about|approximately|approx"
                    r"|around|roughly|nearly|almost|close to|at least|at most|or more|and more|more(?= (?:than|or|and)\b|[^ a-z]|$)"
                    r"|less|fewer|over|under|up to"
                    r"|between|if|unless|could|might|would|should|suppose|estimate|not|no|never|cannot|nor|but"
                    r"|instead|per|times|plus|minus|than|let|step|start|begin|assume|given|question|problem|need|find|compute"
                    r"|calculate|solve|first|then|next"
                    # a number that numbers a step or a place in the text, not a quantity ("Part 2.", "See figure 3.")
                    r"|part|chapter|section|case|exercise|example|figure|table|item|option|choice|round|stage|phase)\b|n't\b|[?=\\<>^{}]|\$(?!\d)|\d!", re.IGNORECASE)  # (`6!` may be a factorial)
_RESTATEMENT = re.compile(r",? (?:i\.e\.|ie|that is|so|namely|in other words),? ", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[a-z0-9%)][.!]) (?=[A-Z€$£])")


def _quantities(text: str) -> list[str] | None:
    """The quantities of `text` in order, or None when a run of number words is no number ("second one")."""
    found = []
    for m in _QUANTITY.finditer(text):
        if m.group("number") is not None and glue(text, m.start("number"), m.end("number")) == "glued":
            return None  # class glued-number: "She has n+2 apples." states an expression, not 2
        value = m.group(0).strip().rstrip(",")
        if m.group("words") is not None:
            words = re.sub(r"^(?:an?|and)[ \-]+|[ \-]+(?:and|an?)$", "", value.lower())
            if words in ("a", "an", "and") or not _DIGITLESS_WORDS.search(words):
                continue
            if number_from_words(words) is None:
                return None
            value = words
        found.append(value)
    return found


# words that are units only in a formula ("£45 in the end" is not 45 inches)
_NOT_UNITS = {"in", "at", "a", "am", "as", "s", "m", "h", "g", "l", "min"}


def _with_unit(text: str, quantity: str) -> str:
    """The quantity with the unit word that follows it, when that word is a known unit (for conversions)."""
    at = text.find(quantity)
    after = re.match(r" ?([A-Za-z]+)", text[at + len(quantity) :]) if at != -1 else None
    if after and after.group(1).lower() not in _NOT_UNITS and quantity[0] not in "$€£" \
            and unit_of(quantity + " " + after.group(1)):
        return quantity + " " + after.group(1)
    return quantity


def short_statement(region: str) -> str | None:
    """The one quantity a short plain-prose completion states in its final sentence, or None."""
    text = region.strip()
    if not text or len(text) > MAX_CHARS or "\n" in text or text.count("$") > 1 or _GUARD.search(text):
        return None
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    if len(sentences) > 2:
        return None
    if len(sentences) == 2 and _quantities(sentences[0]) != []:
        return None  # an earlier sentence with a quantity of its own: which one answers is a guess
    final = sentences[-1].strip().rstrip(".!").strip()
    restated = list(_RESTATEMENT.finditer(final))
    if restated:  # "It takes 2.5 hours, i.e. 150 minutes.": the restatement is only a quantity and its unit
        tail = final[restated[-1].end() :]
        found = _quantities(tail)
        if found and len(found) == 1 and re.fullmatch(r"[^A-Za-z]*(?:[A-Za-z]+[^A-Za-z]*){0,2}", tail.replace(found[0], " ")):
            return _with_unit(tail, found[0])
        return None
    found = _quantities(final)
    if not found or len(found) != 1:
        return None
    if MONTH_HINT.search(final):  # class date-after-phrase: "... lands on June 9." states the date, not the day
        return trailing_date(final, found[0])
    return _with_unit(final, found[0])
