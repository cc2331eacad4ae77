"""Units of answers: which known unit a span ends with, and conversion between units of one dimension.

normalize_span strips units; these helpers keep what the stripping would lose: two known units that
differ are a mismatch unless they convert (`5 cm` == `50 mm`), and a compound quantity
(`1 \\text{ hour } 30 \\text{ minutes}`) is one value in its last unit.
"""
from __future__ import annotations

import functools
import re
from fractions import Fraction

from kleval.verify.commitment import is_aside
from kleval.verify.dates import NUMBER_WORDS

_SPACES = re.compile(r"\s+")


# Units that normalize_span strips, grouped so that spelled-out and abbreviated forms agree.
# Two answers whose units are both known here and differ ("5 days" vs "5 weeks") are not equal,
# whatever their numbers: stripping units must never turn a unit error into a match.
_UNIT_CANON = {
    "cm": "cm", "centimeter": "cm", "centimetre": "cm", "mm": "mm", "millimeter": "mm", "km": "km",
    "kilometer": "km", "m": "m", "meter": "m", "metre": "m", "in": "in", "inch": "in", "ft": "ft",
    "foot": "ft", "feet": "ft", "yd": "yd", "yard": "yd", "mi": "mi", "mile": "mi",
    "s": "s", "sec": "s", "second": "s", "min": "min", "minute": "min", "h": "h", "hr": "h", "hour": "h",
    "day": "day", "week": "week", "month": "month", "year": "year",
    "g": "g", "gram": "g", "kg": "kg", "kilogram": "kg", "lb": "lb", "pound": "lb", "oz": "oz", "ounce": "oz",
    "l": "l", "liter": "l", "litre": "l", "ml": "ml", "milliliter": "ml", "gallon": "gallon",
    "dollar": "dollar", "cent": "cent", "degree": "degree", "radian": "rad", "rad": "rad",
}
_UNIT_AT_END = re.compile(r"(?:\\(?:text|mbox|mathrm)\s*\{\s*)?\s*(?:(square|sq\.?|cubic|cu\.?)\s*)?"
                          r"([A-Za-z]+)\s*\}?\s*(\^\{?[23]\}?)?\s*\.?\s*$")


# class rate-unit: a speed or an acceleration written with a slash ("19.8 m/s", "9.8 m/s^2", "60 km/h") is one unit,
# never its last letter (seconds); rates compare by name only, so "m/s" never equals "km/s"
_RATE_UNIT = re.compile(r"(?<=[\d}\s])(m|cm|mm|km|ft|mi)\s*/\s*(s|sec|h|hr|min)(\^\{?2\}?|²)?\s*\}?\s*\.?\s*$")


def unit_of(span: str) -> str | None:
    """The known unit an answer ends with (canonical, with its power), or None."""
    s = _SPACES.sub(" ", span.replace("$", " ").replace("\\,", " ").replace("\\ ", " ")).strip()[-200:]
    rate = _RATE_UNIT.search(re.sub(r"\\(?:text|mbox|mathrm) ?\{ ?", "", s))
    if rate is not None:
        return f"{rate.group(1)}/{rate.group(2)[:1] if rate.group(2) != 'min' else 'min'}" + ("^2" if rate.group(3) else "")
    m = _UNIT_AT_END.search(s)
    if not m or not re.search(r"[\d}]\s*(?:\\(?:text|mbox|mathrm)\s*\{)?\s*(?:square|sq|cubic|cu)?\.?\s*[A-Za-z]+\s*\}?\s*(\^\{?[23]\}?)?\s*\.?\s*$", s):
        return None
    unit = _unit_word(m.group(2))
    if unit is None:
        return None
    power = "^2" if (m.group(1) or "").startswith(("square", "sq")) else "^3" if m.group(1) else ""
    return unit + (power or (m.group(3) or "").replace("{", "").replace("}", ""))


# class unit-conversion: two answers in different known units of one dimension ("5 cm" vs "50 mm",
# "2 hours" vs "120 minutes") are the same quantity when their values agree after conversion. The factors
# come from sympy.physics.units; units it does not define are built from ones it does (a week is 7 days, an
# ounce 1/16 pound, a US gallon 231 cubic inches). Calendar units (month, year) and money never convert.
def _unit_quantities() -> dict:
    from sympy.physics import units as u

    return {"cm": u.centimeter, "mm": u.millimeter, "km": u.kilometer, "m": u.meter, "in": u.inch, "ft": u.foot,
            "yd": u.yard, "mi": u.mile, "s": u.second, "min": u.minute, "h": u.hour, "day": u.day,
            "week": 7 * u.day, "g": u.gram, "kg": u.kilogram, "lb": u.pound, "oz": u.pound / 16,
            "l": u.liter, "ml": u.milliliter, "gallon": 231 * u.inch**3, "degree": u.degree, "rad": u.radian}


# class si-prefix: SI units with a metric prefix ("5 kN" == "5000 N", "250 mA" == "0.25 A", "3 MeV" vs "3 keV",
# "2000 µm" == "2 mm"),
# read case-sensitively (mN is not MN) from the unit that ends the span; factors from sympy.physics.units.
_SI_PREFIXES = {"k": 3, "M": 6, "G": 9, "T": 12, "m": -3, "u": -6, "µ": -6, "μ": -6, "n": -9, "p": -12, "c": -2}
_SI_UNIT_AT_END = re.compile(r"(?<![A-Za-z\\])((?:\\mu ?)?[A-Za-zΩµμ]{1,4})\s*\}?\s*\.?\s*$")


@functools.cache
def _si_bases() -> dict:
    from sympy.physics import units as u

    return {"N": u.newton, "J": u.joule, "W": u.watt, "V": u.volt, "A": u.ampere, "Pa": u.pascal, "Hz": u.hertz,
            "C": u.coulomb, "eV": u.electronvolt, "Ω": u.ohm, "mol": u.mol, "K": u.kelvin, "T": u.tesla,
            "m": u.meter, "g": u.gram, "s": u.second, "L": u.liter, "l": u.liter}


def _si_quantity(name: str):
    """The sympy quantity of an SI unit name with an optional prefix ("kN", "mA", "MeV"), or None."""
    import sympy

    bases = _si_bases()
    if name in bases:
        return bases[name]
    prefix, base = name[:1], name[1:]
    if prefix in _SI_PREFIXES and base in bases:
        return sympy.Integer(10) ** _SI_PREFIXES[prefix] * bases[base]
    return None


def si_unit_of(span: str) -> str | None:
    """The SI unit (with its prefix) an answer ends with after a number, or None (`5\\ \\text{kN}` -> "kN")."""
    s = _SPACES.sub(" ", span.replace("$", " ").replace("\\,", " ").replace("\\ ", " ").replace("~", " ")).strip()[-120:]
    s = re.sub(r"\\(?:text|mbox|mathrm|textrm) ?\{ ?", " ", s)
    m = _SI_UNIT_AT_END.search(s)
    if m is None or not re.search(r"\d\s*$", s[: m.start()]):
        return None
    name = m.group(1).replace("\\mu", "µ").replace(" ", "")
    return name if _si_quantity(name) is not None else None


def answer_unit(span: str) -> str | None:
    """The unit an answer or gold ends with, for comparison: a known unit word, else an SI unit with its prefix.
    (SI symbols are read only here: glued-number and short-statement reading keep to unit words, where a lone
    `A` or `C` after a number is rarely a unit.)"""
    return unit_of(span) or si_unit_of(span) or _sign_unit(span)


def unit_after(text: str, span: str, cue: str | None = None) -> str | None:
    """class unit-after-span: the unit word that follows the answer span on its line, where the completion last writes
    it ("The pine tree is **85** inches tall." answers 85 inches, "Answer: θ = 30 radians" 30 radians), or None. With
    `cue`, only a place the cue opens within 40 characters counts ("The answer is 1. Note: 1 foot of rope ..." reads
    the 1 after "answer", with no unit)."""
    number = re.search(r"\d[\d,.]*$", span.strip())
    if number is None:
        return None
    written = span.strip() if span.strip() in text else number.group(0)  # (`\theta = 30` is written "θ = 30")
    at = None
    for m in re.finditer(rf"(?<![\d.,]){re.escape(written)}(?![\d])", text):
        if cue is None or re.search(cue, text[max(0, m.start() - 40) : m.start()], re.IGNORECASE):
            at = m  # (the last place it is written)
    if at is None:
        return None
    return unit_word_at(text, at.end())


def unit_word_at(text: str, at: int) -> str | None:
    """The known unit of the word at `text[at]`, after spaces, `*`, `$`, `}` or `)` on the same line, else None."""
    after = re.match(r"[ \t*$})]{0,6}([A-Za-z]+(?:/[A-Za-z]+(?:\^2|²)?)?)", text[at : at + 40])
    if after is None:
        return None
    # (also an SI unit, "5 J", "253 kPa", so that a gold in kJ never equals it unconverted)
    si = si_unit_of("1 " + after.group(1)) if text[at : at + 1] in " \t$*}" else None
    return unit_of("1 " + after.group(1)) or (si if si and (len(si) > 1 or si in "JNWVK") else None)


# class sign-unit: a degree sign closing a plain angle (`30^\circ`, `30°`) is the unit degree, so that "30 radians" is
# not 30 degrees; an escaped dollar sign opening it (`\$5.40`) is the unit dollar, so that it is not "5.4 cents"
_DEGREE_VALUE = re.compile(r"\$?\s*-?\d+(?:\.\d+)?\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree)\s*\.?\s*\$?")
_DOLLAR_AT_START = re.compile(r"^\$?\s*(?:\\text\{\s*)?\\\$\s*\}?\s*-?\d")


# (class temperature-unit: a degree sign with its scale letter, "25°C", `25^\circ \text{F}`, is that scale, so that 25 °C
# is never 25 °F; the two scales do not convert by a ratio)
_TEMPERATURE_VALUE = re.compile(r"\$?\s*-?\d+(?:\.\d+)?\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree)\s*"
                                r"(?:\\(?:text|mathrm|textrm) ?\{ ?([CF]) ?\}|([CF]))\s*\.?\s*\$?")


def _sign_unit(span: str) -> str | None:
    s = span.strip()
    temperature = _TEMPERATURE_VALUE.fullmatch(s)
    if temperature:
        return "degree Celsius" if (temperature.group(1) or temperature.group(2)) == "C" else "degree Fahrenheit"
    if _DEGREE_VALUE.fullmatch(s):  # (a plain angle; never a trig value such as `\sin 30^\circ`)
        return "degree"
    if _DOLLAR_AT_START.match(s) and not re.search(r"[A-Za-z]{2,}\s*\}?\s*\.?\s*$", s):
        return "dollar"
    return None


def unit_ratio(unit: str, target: str):
    """How many `target` one `unit` is (`unit_ratio("cm", "mm")` is 10), exact; None when they do not convert."""
    import sympy
    from sympy.physics.units import convert_to

    quantities = _unit_quantities()
    (name, _, power), (target_name, _, target_power) = unit.partition("^"), target.partition("^")
    si, target_si = _si_quantity(name), _si_quantity(target_name)
    if si is not None and target_si is not None and not power and not target_power:  # class si-prefix
        ratio = sympy.nsimplify(convert_to(si, target_si) / target_si)
        return ratio if ratio.is_number and ratio.is_positive else None
    if name not in quantities or target_name not in quantities or (power or "1") != (target_power or "1"):
        return None
    exponent = int(power or 1)
    ratio = sympy.nsimplify(convert_to(quantities[name] ** exponent, quantities[target_name] ** exponent)
                            / quantities[target_name] ** exponent)
    return ratio if ratio.is_number and ratio.is_positive else None


_COMPOUND = re.compile(r"^(\d+(?:\.\d+)?) ?([A-Za-z]+)\.?,? (?:and )?(\d+(?:\.\d+)?) ?([A-Za-z]+)\.?$")


def _unit_word(word: str) -> str | None:
    """The canonical unit a unit word names ("Miles" -> "mi"), or None. A plural `s` is dropped only from a word of
    three letters or more ("cms", "hrs", "kgs"): "ms" is milliseconds, read with SI prefixes by si_unit_of, never
    metres."""
    word = word.lower()
    for candidate in (word, word.removesuffix("s"), word.removesuffix("es")) if len(word) >= 3 else (word,):
        if candidate in _UNIT_CANON:
            return _UNIT_CANON[candidate]
    return None


def compound_quantity(s: str) -> str:
    """class compound-quantity: `1 \\text{ hour } 30 \\text{ minutes}`, `5 ft 6 in` is one quantity in its last
    unit (`90 minutes`, `66 in`) when the first unit is a larger unit of the same dimension; unchanged otherwise."""
    if not re.search(r"\d.*[A-Za-z].*\d", s):
        return s
    plain = _SPACES.sub(" ", re.sub(r"\\(?:text|mathrm|mbox|textrm) ?\{|\}", " ", s)).strip()
    m = _COMPOUND.match(plain)
    if not m:
        return s
    big, small = _unit_word(m.group(2)), _unit_word(m.group(4))
    ratio = unit_ratio(big, small) if big and small else None
    if ratio is None or ratio <= 1:
        return s
    import sympy

    total = sympy.Rational(m.group(1)) * ratio + sympy.Rational(m.group(3))
    return f"{total} \\text{{ {m.group(4)}}}"


# class compound-in-smaller-unit: one quantity in two units, "3 hours 24 minutes", "2 minutes and 5 seconds", "1 dollar
# and 25 cents", or a duration in words, "a quarter of an hour", "an hour and a half", "two and a half hours", is read
# in its larger unit where it is extracted (3.4 hours, $1.25); it answers a gold counted in the smaller unit too (204
# minutes, 125 cents), never a part of it (the 3, the 24)
# (never one of two amounts, "between 5 dollars and 50 cents", "either 2 hours or ...")
NOT_AN_ALTERNATIVE = r"(?<!between )(?<!either )(?<!from )(?<!or )"
_COMPOUND_IN_TEXT = re.compile(NOT_AN_ALTERNATIVE + r"(?<![\w.,])(\$ ?)?(\d+) ?([A-Za-z]+)\.?,? (?:and )?(\d+) ?([A-Za-z]+)\b")
# (never a compound compared, "..., 1 minute 30 seconds less than last year")
_COMPARED_AFTER = re.compile(r"\W{0,3}(?:less|more|longer|shorter|faster|slower|earlier|later|before|after|ago|than)\b", re.IGNORECASE)
# ("an hour and 15 minutes" is "1 hour and 15 minutes")
_ONE_LARGER_UNIT = re.compile(r"\b(?:an?|one) (hour|minute|foot|pound|dollar) and (?=\d{1,2} ?[A-Za-z])", re.IGNORECASE)
# class duration-in-words: "a quarter of an hour", "half an hour", "three quarters of an hour", "an hour and a half",
# "two and a half hours" (never "half an hour or so", "half an hour to an hour")
WORDED_DURATION = re.compile(r"(?<![\w-])(?:(?P<quarter>(?:a|one) quarter|three quarters|half) (?:of )?an? (?P<q_unit>hour|minute)"
                             r"|an? (?P<unit>hour|minute) and a half"
                             rf"|(?P<count>an?|{'|'.join(NUMBER_WORDS[1:11])}|\d+) and a half (?P<c_unit>hours|minutes))"
                             r"\b(?! or\b| to\b)", re.IGNORECASE)
_SMALLER = {"h": ("minutes", 60), "min": ("seconds", 60)}  # (the smaller unit's word, and how many make one)


def worded_duration(m: re.Match) -> tuple[Fraction, str]:
    """(how many, "hour" or "minute") a `WORDED_DURATION` match states ("an hour and a half" -> (3/2, "hour"))."""
    unit = (m.group("q_unit") or m.group("unit") or m.group("c_unit")).lower().removesuffix("s")
    if m.group("quarter"):
        return {"half": Fraction(1, 2), "three quarters": Fraction(3, 4)}.get(m.group("quarter").lower(), Fraction(1, 4)), unit
    count = (m.group("count") or "a").lower()
    return (int(count) if count.isdigit() else 1 if count in ("a", "an") else NUMBER_WORDS.index(count)) + Fraction(1, 2), unit


def _compounds(text: str):
    """(value in the larger unit, total in the smaller unit, the smaller unit's word, where it ends, where it starts) of
    each compound quantity of `text`."""
    import sympy

    at = 0
    while (m := _COMPOUND_IN_TEXT.search(text, at)) is not None:
        at = m.start(4)  # (overlapping: "25 minutes, 1 minute 30 seconds" holds the compound "1 minute 30 seconds")
        big, small = _unit_word(m.group(3)), _unit_word(m.group(5))
        if m.group(1):
            big, small = ("dollar", small) if big in (None, "dollar") else (None, None)
        money = big == "dollar" and small == "cent"
        ratio = sympy.Integer(100) if money else unit_ratio(big, small) if big and small else None
        if ratio is None or ratio <= 1 or int(m.group(4)) >= ratio:
            continue
        at = m.end()
        total = sympy.Integer(m.group(2)) * ratio + sympy.Integer(m.group(4))
        yield total / ratio, total, m.group(5), m.end(), m.start()
    for m in WORDED_DURATION.finditer(text):
        big, unit = worded_duration(m)
        smaller, ratio = _SMALLER[_unit_word(unit)]
        yield sympy.Rational(big.numerator, big.denominator), big * ratio, smaller, m.end(), m.start()


def closing_compound(sentence: str) -> str | None:
    """The compound quantity a sentence closes on ("So Maya is 5 feet 6 inches tall." -> "5 feet 6 inches"), when it is the
    sentence's one value (any other compound in it states the same quantity), else None (class compound-in-smaller-unit)."""
    plain = _ONE_LARGER_UNIT.sub(r"1 \1 and ", sentence)
    found = sorted(_compounds(plain), key=lambda compound: compound[4])
    if not found or len({compound[1] for compound in found}) != 1:
        return None
    rest = plain
    for compound in reversed(found):
        rest = rest[: compound[4]] + " " + rest[compound[3] :]
    if re.search(r"\d", rest) or _COMPARED_AFTER.match(plain, found[-1][3]):
        return None  # (never one compared, "..., 1 minute 30 seconds less than last year")
    return plain[found[-1][4] : found[-1][3]]


def larger_unit_value(span: str) -> str | None:
    """The value in its larger unit of a span whose one value is one quantity in two units ("7 hours 30 minutes" -> "7.5",
    "2 minutes 5 seconds" -> "2.08333", "5 feet 6 inches" -> "5.5", as six digits), else None."""
    value = closing_compound(span)
    if value is None:
        return None
    big = next(_compounds(value))[0]
    return f"{float(big):.6g}"


def compound_in_smaller_unit(completion: str, span: str) -> str | None:
    """The total in the smaller unit ("204 minutes") of the last compound quantity of the completion's final lines whose
    value in the larger unit is the answer `span` ("3.4"; "7.33333" for 7 hours 20 minutes, as six digits), else None."""
    number = re.fullmatch(r"\$?(-?\d+(?:\.\d+)?)", span.strip())
    if number is None:
        return None
    import sympy

    value = sympy.Rational(number.group(1))
    tail = _ONE_LARGER_UNIT.sub(r"1 \1 and ", completion[-400:])
    found = sorted(_compounds(tail), key=lambda compound: compound[3])[-1:]
    after = re.sub(rf"\(\s*{found[0][1]}\s*[A-Za-z]*\s*\)", "", tail[found[0][3] :]) if found else ""
    if not found or abs(found[0][0] - value) > abs(value) / 10**5 or re.search(r"\d", after):
        return None  # (only the quantity that closes the text, nothing counted after it but its total, "(204 minutes)")
    return f"{found[0][1]} {found[0][2]}"


# class unit-restatement: an answer that states one quantity in two units, the second converting the first ("It takes her
# 300 seconds, that is, 5 minutes.", "$1.50, or 150 cents", "2.5 km (2500 m)"), answers in either unit: the second
# value, only when the two units convert and the values agree by that ratio (never two different quantities, "300
# seconds, that is, 6 minutes", nor "5 apples, or 3 pears")
_NUMBER_UNIT = r"(-?\d[\d,]*(?:\.\d+)?) ?([A-Za-z]+)"
_RESTATED_UNIT = re.compile(_NUMBER_UNIT + r"\b,? ?(?:\(|(?:(?:that is|or|which is|which equals|equivalently|exactly)\b|i\.e\.),? ?)"
                            r"(?:about |exactly )?" + _NUMBER_UNIT + r"\b")


_MONEY = {("dollar", "cent"): "100", ("cent", "dollar"): "1/100"}  # (currencies convert by no physical unit)


def unit_restatement(completion: str, span: str) -> str | None:
    """The second value, with its unit ("5 minutes"), where the completion last writes the answer `span` as the first of
    one quantity stated in two units, else None."""
    if not re.fullmatch(r"-?\d[\d,]*(?:\.\d+)?", span.strip()):
        return None
    plain = re.sub(r"\\(?:text|mathrm|mbox|textrm) ?\{ ?([A-Za-z]+) ?\}", r"\1", completion)
    # (a price written with its sign, "$1.50, or 150 cents", is in dollars)
    plain = re.sub(r"(?<![\w$])\\?\$ ?(\d[\d,]*(?:\.\d+)?)(?=,? ?(?:or|i\.e\.|that is|which is|\())", r"\1 dollars", plain)
    plain = plain.replace("$", "")
    places = [m.start() for m in re.finditer(rf"(?<![\d.,]){re.escape(span.strip())}(?![\d])", plain)]
    m = _RESTATED_UNIT.match(plain, places[-1]) if places else None
    if m is None or is_aside(plain[plain.rfind("\n", 0, m.start()) + 1 :].split("\n", 1)[0]):
        return None  # (never in a remark after the answer, "(For reference, the route is 3 km, or 3000 m, long.)")
    first, second = _unit_word(m.group(2)), _unit_word(m.group(4))
    import sympy

    money = _MONEY.get((first, second))
    ratio = (sympy.Rational(money) if money else unit_ratio(first, second)) if first and second and first != second else None
    if ratio is None:
        return None

    if sympy.Rational(m.group(1).replace(",", "")) * ratio != sympy.Rational(m.group(3).replace(",", "")):
        return None
    return f"{m.group(3)} {m.group(4)}"
