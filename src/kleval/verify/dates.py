"""Calendar dates written in words: `June 9`, `\\text{June 9}`, `9 June`, `Oct. 3`, `July 4th`, `June 9, 2025`.

class dates: a month name (or its usual abbreviation) with a day number, in either order, with an
ordinal suffix or not and an optional year, is one date, never a product of the letters J, u, n, e
and 9, nor the bare day number. Its comparison key is the full month name, the day and the year
when one is written (`june 9`, `june 9, 2025`), compared as text: `June 9` == `\\text{June 9th}` ==
`9 June`, but `June 9` != `June 10`, != `July 9`, != `9`, and a date with a year never equals one
without (`June 9, 2025` != `June 9`). A day beyond the month's length (`June 31`) is no date.
"""
from __future__ import annotations

import re

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DAYS_IN = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
MONTH_NAMES = {name: number for number, name in enumerate(_MONTHS, 1)}
MONTH_NAMES.update({name[:3]: number for name, number in list(MONTH_NAMES.items())})
MONTH_NAMES["sept"] = 9
_MONTH = "|".join(sorted(MONTH_NAMES, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,? (\d{4}))?"
_MONTH_DAY = re.compile(rf"^({_MONTH})\.? ?{_DAY}{_YEAR}$")
_DAY_MONTH = re.compile(rf"^(?:the )?{_DAY} (?:of )?({_MONTH})\.?{_YEAR}$")
# a cheap look before any date is read: a month word next to a digit
MONTH_HINT = re.compile(rf"(?i)(?<![A-Za-z])(?:{_MONTH})(?![a-z])")


# class numeric-date: a date in digits with its four-digit year, month first as BIG-Bench Hard's date questions write
# it (`12/25/1937`), or in ISO 8601 (`1937-12-25`), is the date `december 25, 1937`; never a fraction of three numbers
_NUMERIC_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def date_key(text: str) -> str | None:
    """The comparison key of a date written in words or digits (`june 9`, `june 9, 2025`), else None.

    `text` is a text key (commands unwrapped, lower case); spaces around punctuation are tolerated."""
    t = re.sub(r"\s+", " ", text.lower().replace("~", " ")).strip().rstrip(".").strip()
    t = re.sub(r" ?, ?", ", ", t)
    if len(t) > 40:
        return None
    m = _MONTH_DAY.match(t)
    numeric, iso = _NUMERIC_DATE.match(t), _ISO_DATE.match(t)
    if m:
        month, day, year = m.group(1), m.group(2), m.group(3)
    elif numeric or iso:
        month_number, day, year = (numeric.group(1), numeric.group(2), numeric.group(3)) if numeric else \
            (iso.group(2), iso.group(3), iso.group(1))
        if not 1 <= int(month_number) <= 12:
            return None
        month = _MONTHS[int(month_number) - 1]
    else:
        m = _DAY_MONTH.match(t)
        if not m:
            return None
        day, month, year = m.group(1), m.group(2), m.group(3)
    number = MONTH_NAMES[month]
    if not 1 <= int(day) <= _DAYS_IN[number - 1]:
        return None
    return f"{_MONTHS[number - 1]} {int(day)}" + (f", {year}" if year else "")


_WRAPPER = re.compile(r"\\(?:text|textrm|textnormal|mathrm|mbox|textbf|textit) ?\{|[{}$\\]")


def as_text_block(span: str) -> str:
    """A whole span that is a date in words as the text block of its key (`3 \\text{ October}` ->
    `\\text{october 3}`), so that no later clean-up drops the month as a unit; other spans unchanged."""
    bare = span.strip("$ ")
    if (MONTH_HINT.search(span) is None and not _NUMERIC_DATE.match(bare) and not _ISO_DATE.match(bare)) \
            or not re.search(r"\d", span) or len(span) > 80:
        return span
    key = date_key(_WRAPPER.sub(" ", span))
    return span if key is None else f"\\text{{{key}}}"



# class date-after-phrase: a date that ends an answer phrase or a sentence ("**Answer:** June 9", "... lands on
# June 9.", "... is 9 June 2025") is read whole, never as its bare day number. The month name must be
# capitalized (never "it may 5"), and the date must be a real one (`date_key`).
_TRAILING_DATE = re.compile(rf"(?i)(?<![A-Za-z])(?:(?:{_MONTH})\.? ?\d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?"
                            rf"|(?<!\d)\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTH})\.?(?:,? \d{{4}})?)$")


# class weekday-before-date: an answer "Sunday, April 6" is the date April 6 for a date gold and the weekday Sunday for
# a weekday gold (a gold that itself names both is compared whole)
_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.IGNORECASE)
_WEEKDAY_BEFORE_DATE = re.compile(rf"\**({_WEEKDAY.pattern}),? (\**(?:(?:{_MONTH})\.? ?{_DAY}|{_DAY} (?:of )?(?:{_MONTH})\.?)"
                                  rf"(?:,? \d{{4}})?\**)\.?", re.IGNORECASE)


def weekday_or_date(span: str, gold: str) -> str | None:
    """The weekday or the date of an answer that names both, as the gold asks for one of them, else None."""
    m = _WEEKDAY_BEFORE_DATE.fullmatch(span.strip())
    if m is None or (_WEEKDAY.search(gold) and MONTH_HINT.search(gold)):
        return None
    return m.group(1) if _WEEKDAY.search(gold) else m.group(2)


def trailing_date(text: str, value: str) -> str | None:
    """The date that ends `text` when `value` is one of its numbers (its day or year), else None."""
    if not re.fullmatch(r"\d{1,4}", value) or MONTH_HINT.search(text[-40:]) is None:
        return None
    m = _TRAILING_DATE.search(text.rstrip(" .!*")[-40:])
    if m is None or value not in re.findall(r"\d+", m.group(0)) or date_key(m.group(0)) is None:
        return None
    month = re.search(r"[A-Za-z]{3,}", m.group(0).removeprefix("the "))
    if month is None or not month.group(0)[0].isupper():
        return None
    return m.group(0).strip()


# class clock-without-meridiem: a gold clock time with its a.m. or p.m. ("4:51:06 p.m.", `\text{3:45 p.m.}`) is answered by
# the same reading of the twelve-hour clock without it ("4:51:06", "3:45"): the question fixed the half of the day, the
# answer reads the clock. Never a different reading, and never an answer that names the other half ("3:45 a.m.") or a
# gold without a meridiem (a 24-hour "16:51" is not answered by "4:51").
_MERIDIEM_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:[ap]\.?\s?m\.?)", re.IGNORECASE)
_BARE_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")


def _clock_source(source: str) -> str:
    s = re.sub(r"\\[!,;: ]|\\text\{|\\mathrm\{|[{}$]", "", source)
    return " ".join(s.split())


# (the half of the day the text itself gives the reading: "7:20 in the morning", "quarter past noon", "7:20 a.m.")
# (a.m. and p.m. only after a clock reading, "7:20 a.m.", "7am": never the verb in "I am sure")
_MORNING = re.compile(r"\d ?a\.? ?m\b|\b(?:in the morning|midnight|before noon)\b", re.IGNORECASE)
_AFTERNOON = re.compile(r"\d ?p\.? ?m\b|\b(?:in the (?:afternoon|evening)|at night|tonight|noon|midday)\b", re.IGNORECASE)


def clock_without_meridiem(gold_source: str, pred_source: str, completion: str = "") -> bool | None:
    """Whether a bare clock answer reads a twelve-hour gold's clock; None unless the gold has a meridiem and the answer
    is a bare clock time on the twelve-hour dial, and the text says nothing of the other half of the day. Never a
    24-hour reading ("04:51") for p.m., never a bare "12:xx" (noon to most readers) for a.m., and never an answer the
    text places in the other half ("7:20 in the morning ... Final answer: 7:20" for 7:20 p.m.)."""
    g = _MERIDIEM_CLOCK.fullmatch(_clock_source(gold_source))
    p = _BARE_CLOCK.fullmatch(_clock_source(pred_source))
    if g is None or p is None or not 1 <= int(p.group(1)) <= 12:
        return None
    evening = re.search(r"p\.?\s?m", g.group(0), re.IGNORECASE) is not None
    if (evening and p.group(1).startswith("0")) or (not evening and int(p.group(1)) == 12) \
            or (_MORNING if evening else _AFTERNOON).search(completion[-600:]):
        return None
    return (int(g.group(1)), g.group(2), g.group(3) or "00") == (int(p.group(1)), p.group(2), p.group(3) or "00")


# class clock-in-words: a final sentence that reads the clock in words ("The movie ends at half past seven.", "a quarter
# to nine", "twenty minutes past 3", "seven o'clock") states that time in digits (7:30, 8:45, 3:20, 7:00). Only a
# twelve-hour hour (1 to 12) and minutes 1 to 59 that say "minutes", "half" or "quarter" ("ten past three" needs no
# "minutes"); never "10 to 12" nor "five to seven" (a range)
# the number words up to twelve, each at its value (also read by kleval.verify.units)
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_HOUR = r"(?P<hour>1[0-2]|0?[1-9]|" + "|".join(NUMBER_WORDS[1:]) + ")"
# (and the half of the day said in words after it: "a quarter to four in the afternoon" is 3:45 p.m.)
_WORDED_CLOCK = re.compile(r"\b(?:(?:(?P<half>half)|(?:a )?(?P<quarter>quarter)|(?P<minutes>\d{1,2}|[a-z]+(?:[ \-][a-z]+)?) minutes?|(?P<plain>five|ten|twenty|twenty-five)(?= past))"
                           rf" (?P<relation>past|after|to|before) {_HOUR}\b(?![:\d]| ?(?:minutes?|hours?|days?|o'clock))"
                           rf"|{_HOUR.replace('hour', 'whole')} o'clock\b)"
                           r"(?: in the (?P<morning>morning)| in the (?P<evening>afternoon|evening)| (?P<night>at night))?", re.IGNORECASE)


# ("at noon" is 12:00 p.m. and "at midnight" 12:00 a.m., after a preposition of time only)
_NOON = re.compile(r"\b(at|by|until|till) (noon|midday|midnight)\b", re.IGNORECASE)


def worded_clock_as_digits(sentence: str) -> str:
    """`sentence` with each clock reading in words written as digits ("half past seven" -> "7:30")."""
    from kleval.verify.forms import number_from_words

    def hour(text: str) -> int:
        return int(text) if text.isdigit() else NUMBER_WORDS.index(text.lower())

    def digits(m: re.Match) -> str:
        if m.group("whole"):
            h, minutes = hour(m.group("whole")), 0
        elif m.group("half"):
            if m.group("relation").lower() not in ("past", "after"):
                return m.group(0)  # ("half to seven" is no English reading)
            minutes = 30
        elif m.group("quarter"):
            minutes = 15
        else:
            words = m.group("minutes") or m.group("plain")
            value = int(words) if words.isdigit() else number_from_words(words)
            if value is None or not 1 <= value <= 59 or value != int(value):
                return m.group(0)
            minutes = int(value)
        if not m.group("whole"):
            h = hour(m.group("hour"))
        if not m.group("whole") and m.group("relation").lower() in ("to", "before"):
            h, minutes = (h - 2) % 12 + 1, 60 - minutes
        # (written without its closing dot, which the sentence's full stop may give: "at 8:45 p.m.")
        night_morning = m.group("night") and (h == 12 or h < 6)  # ("half past twelve at night" is 0:30, a.m.)
        meridiem = " a.m" if m.group("morning") or night_morning else " p.m" if m.group("evening") or m.group("night") else ""
        return f"{h}:{minutes:02d}{meridiem}"

    sentence = _NOON.sub(lambda m: f"{m.group(1)} 12:00 {'a.m' if m.group(2).lower() == 'midnight' else 'p.m'}", sentence)
    return _WORDED_CLOCK.sub(digits, sentence)
