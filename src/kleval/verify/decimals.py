"""Decimal readings: a decimal comma (`1000,99`, `0,111`) and a decimal written to float precision.

Both are ways of writing one number that the plain parser reads as something else (a list of two
integers; a rational that differs from 1/12 in the 17th place). compare.py asks these helpers
only where one side is a number, so `1,2` stays a list of two answers everywhere else.
"""
from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from typing import Any

# class dot-grouped-thousands: "2.598.960", two or more groups of three after points, is one integer (a decimal has one
# point); "58.500" stays 58.5 (extraction in sentence_values.py and short_statement.py, normalization in normalize.py)
DOT_GROUPED_THOUSANDS = r"\d{1,3}(?:\.\d{3}){2,}(?!\d|\.\d)"
FLOAT_PRECISION_PLACES = 12  # a decimal with this many places is a float-precision value, not a rounding


def decimal_places(x: Any) -> int:
    """Places after the point of a rational written as a terminating decimal (its denominator 2^a 5^b)."""
    if x is None or not x.is_Rational or x.q == 1:
        return 0
    return _places(int(x.q))


def _places(q: int) -> int:
    """Places of the terminating decimal of 1/q (q reduced, above 1), or 0 when it does not terminate."""
    twos = fives = 0
    while q % 2 == 0 and twos < 140:  # reduced: 0.8660254037844386 is 4330127018922193/(2^15 5^16)
        q //= 2
        twos += 1
    while q % 5 == 0 and fives < 60:
        q //= 5
        fives += 1
    return max(twos, fives) if q == 1 else 0


def float_precision_places(x: Any) -> int:
    """The places of `x` when it is a decimal written to float precision, else 0.

    class float-precision-decimal: a decimal is a float rendering of an exact value (`0.3333333333333333`,
    `4.123105625617661`) when it prints at least FLOAT_PRECISION_PLACES *significant* digits (at most 20
    places); a short decimal (`3.14`, `0.333`) or one that is mostly leading zeros (`0.0000000000003`, one
    significant digit) is an approximation and never equals an exact value.
    """
    places = decimal_places(x)
    if not FLOAT_PRECISION_PLACES <= places <= 20:
        return 0
    digits = abs(x.p * (10**places // x.q))
    return places if len(str(digits)) >= FLOAT_PRECISION_PLACES else 0


def float_precision_decimal(a: Any, b: Any) -> bool:
    """`0.0833333333333333` for 1/12: a decimal of >= 12 places that equals the other value to its last place."""
    import sympy

    for x, other in ((a, b), (b, a)):
        places = float_precision_places(x)
        q = int(other.q)
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        repeating = q != 1  # 1/12 has no finite decimal; 2 or 2.5 do, so 2.000...01 is not them
        if repeating and places and abs(x - other) <= sympy.Rational(1, 10**places):
            return True
    return False


def decimal_comma(number: Any, pair: Any) -> bool | None:
    """`1000,99` or `0,111` (one comma, not a thousands group) against a non-integer number: a decimal comma."""
    if number.kind != "number" or pair.kind != "list" or len(pair.value) != 2 or number.value.is_integer:
        return None
    m = re.fullmatch(r"(-?\d+),(\d+)", pair.source.strip())
    if not m or (len(m.group(2)) == 3 and m.group(1) != "0"):
        return None
    import sympy

    return bool(number.value == sympy.Rational(f"{m.group(1)}.{m.group(2)}"))


# class rounds-to-gold: an answer the completion itself marks as rounded or approximate (≈, "approximately",
# "rounded", "to the nearest", "two decimal places") and writes with more places than a decimal gold states the
# gold's value more precisely when it rounds half-up to it ("≈ 7.18%" for 7.2%, "rounded, 4.142" for 4.14). The
# marker must stand in the answer's own sentence ("a round trip of 3.46 miles" marks nothing). Never otherwise: GSM8K
# and MATH decimal golds are mostly exact, so an unmarked 0.45 is no answer to 0.5. Never for a gold whose value is an
# integer ("2.0"), and never the other way (7.2 for a gold 7.18 is less precise than asked).
_APPROXIMATE = re.compile(r"≈|\\approx|\\sim|\b(?:approximately|approx\.?|rounded|rounding|to the nearest|(?:one|two|three|four"
                         r"|\d) decimal places?|significant (?:figures|digits))\b", re.IGNORECASE)


def marked_approximate(text: str, value: str) -> bool:
    """Whether the sentence where `text` last writes `value` marks it approximate ("Rounded to two places, x = 4.142",
    "r ≈ 4.17%"); a marker elsewhere ("round trip", an earlier rounded value) does not count."""
    at = text.rfind(value)
    if at == -1:
        return False
    start = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at)) + 1
    return bool(_APPROXIMATE.search(text[start : at + len(value)]))


_DECIMAL_LITERAL = re.compile(r"-?\d+\.(\d+)")


def rounds_to_gold(gold_source: str, pred_source: str) -> bool:
    """Whether the decimal answer `pred_source`, with more places than the decimal gold, rounds half-up to it."""
    from decimal import ROUND_HALF_UP, Decimal

    g, p = _DECIMAL_LITERAL.fullmatch(gold_source.strip()), _DECIMAL_LITERAL.fullmatch(pred_source.strip())
    if not g or not p or len(p.group(1)) <= len(g.group(1)) or len(p.group(1)) > 12 or Decimal(g.group(0)) % 1 == 0:
        return False
    if Decimal(p.group(0)) == Decimal(g.group(0)):
        return False  # (the same value with trailing zeros, 0.50 for 0.5, is equal already)
    return Decimal(p.group(0)).quantize(Decimal(1).scaleb(-len(g.group(1))), rounding=ROUND_HALF_UP) == Decimal(g.group(0))


def vulgar_fraction(ch: str) -> tuple[str, str] | None:
    """(numerator, denominator) of a vulgar fraction character by its Unicode data ("½" -> ("1", "2")), else None."""
    if not unicodedata.decomposition(ch).startswith("<fraction>"):
        return None
    numerator, _, denominator = unicodedata.normalize("NFKC", ch).partition("\u2044")
    return (numerator, denominator) if numerator.isdigit() and denominator.isdigit() else None


# class fraction-in-final-line (kind number): a final line's value written as a fraction or a mixed number is one value,
# never its last digits: "Ben needs $7\frac{1}{2}$ cups", "7 1/2 cups", "7½ cups", "$\frac{15}{2}$ cups" state 7.5
# (a fraction in a computation, "3/4 × 10 = 7.5", "1/2 of 15", is no value of the line's own and stays as written; "1/3
# of the pizza" is one)
_VULGAR = "".join(chr(c) for c in (*range(0xBC, 0xBF), *range(0x2150, 0x215F)) if vulgar_fraction(chr(c)))
_FRACTION_TOKEN = re.compile(
    # (each alternative starts at a digit run's first digit or at a sign of its own, and each run is bounded: linear time)
    r"(?<![\w.,/^=+×*·$\\-])(?:\$ ?|\\\( ?)?(?:(?P<whole>\d{1,9}) ?)?(?:\\[dt]?frac\{(?P<n1>\d{1,9})\}\{(?P<d1>\d{1,9})\}"
    r"|\\[dt]?frac(?P<n2>\d)(?P<d2>\d)|(?P<n3>\d{1,9})/(?P<d3>\d{1,9})"
    rf"|(?P<v>[{_VULGAR}]))(?: ?\$| ?\\\))?(?![\w/^=+×*·(-]|\s{{0,3}}(?:[=+×*·/-]|\\times|\\cdot|of\s{{1,3}}\$?\d))")


def fractions_as_decimals(line: str, repeating: str | None = " a fraction ") -> str:
    """`line` with each fraction or mixed number that stands as a value of its own written as its terminating decimal
    ("7 1/2" -> "7.5"); one that does not terminate ("1/3") becomes `repeating` (the words "a fraction", so no digit of
    it is read), or stays as written when `repeating` is None."""
    def decimal(m: re.Match) -> str:
        if m.group("v"):
            n, d = (int(part) for part in vulgar_fraction(m.group("v")))
        else:
            n, d = (int(m.group(g)) for g in (("n1", "d1") if m.group("n1") else ("n2", "d2") if m.group("n2") else ("n3", "d3")))
        whole = int(m.group("whole") or 0)
        if d == 0 or (whole and n >= d) or (m.group("whole") and m.group("n3") and not re.search(r"\s", m.group(0).strip("$ \\()"))):
            return m.group(0)  # (no mixed number: "4 10/3"; "12/5" glued to its whole is no "1 2/5")
        value = Fraction(whole * d + n, d)
        places = _places(value.denominator) if value.denominator != 1 else 0
        if value.denominator != 1 and places == 0:
            return m.group(0) if repeating is None else repeating
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator / value.denominator:.{places}f}"
    return _FRACTION_TOKEN.sub(decimal, line)
