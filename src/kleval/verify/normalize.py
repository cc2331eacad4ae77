"""String-level clean-up of an answer span before it is parsed: LaTeX noise, units, separators.

Everything here is regex work on short strings. It removes what never changes the value
(`\\left`, `\\!`, `\\displaystyle`, `$`, `^\\circ`, trailing units) and leaves structure (brackets,
commas, `\\cup`) for kleval.verify.canonical to interpret.
"""
from __future__ import annotations

import re
import unicodedata

from kleval.verify import dates
from kleval.verify.angle_forms import cis_to_trig, dms_to_degrees
from kleval.verify.decimals import DOT_GROUPED_THOUSANDS, vulgar_fraction
from kleval.verify.policy import Policy
from kleval.verify.textblocks import is_text_wrapped, math_in_text, text_key, unwrap_command
from kleval.verify.units import answer_unit, compound_quantity, si_unit_of, unit_of, unit_ratio

# re-exported: core.py and canonical.py read these names from here
__all__ = ["answer_unit", "compound_quantity", "is_text_wrapped", "normalize_span", "text_key", "unit_of", "unit_ratio",
           "unwrap_command"]

_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))

_NOISE = re.compile(
    r"\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|\\middle(?![a-zA-Z])|\\big[lr]?(?![a-zA-Z])|\\Big[lr]?(?![a-zA-Z])"
    r"|\\displaystyle|\\textstyle|\\limits|\\!|\\,|\\;|\\:|\\quad|\\qquad"
)
# a closing brace belongs to a degree sign only when the sign opened one (`\\sin{30^\\circ}` keeps its brace)
_DEGREE_SIGN = r"\^\s*(?:\{\s*\\circ\s*\}|\\circ)|°|\\degree(?![a-z])"
# class temperature-unit: a degree sign with its scale letter ("−3°C", `-3^\circ C`, `25^{\circ}\mathrm{F}`) is one unit,
# never the degree sign and a symbol C; the letter goes with the sign (after a number only: `\angle C` stays)
_DEGREES = re.compile(rf"(?:{_DEGREE_SIGN})(?:\s*(?:\\(?:text|mathrm|textrm) ?\{{ ?[CFK] ?\}}|[CFK](?![A-Za-z])))?|"
                      rf"(?:{_DEGREE_SIGN})")
_UNIT_WORDS = (
    r"(?:square|sq\.?|cubic|cu\.?)?\s*(?:units?|(?:m|cm|mm|km|ft)/s(?:\^\{?2\}?|²)?|cm|mm|km|m|meters?|metres?|centimeters?|inch(?:es)?|in|feet|foot|ft|"
    r"yards?|yd|miles?|mi|mph|km/h|seconds?|secs?|s|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|"
    r"dollars?|cents?|pounds?|lbs?|ounces?|oz|grams?|g|kg|liters?|litres?|L|ml|mL|gallons?|degrees?|"
    r"radians?|rad|people|persons?|students?|eggs?|apples?|boxes|times|ways|points?|percent|marbles|"
    r"pages|books|cookies|games|tickets|cars|trees|cups|pieces|slices|hats|pairs|bottles|sheep|dogs|cats)"
    r"(?:\^\{?[23]\}?|\^\{?-?1\}?)?"
)
_TRAILING_UNIT = re.compile(rf"(?<=[\d}}.)])\s*(?:\\\s)?\s*{_UNIT_WORDS}\s*$")
# (class unit-exponent: a unit with a negative or inner exponent, `\\text{s}^{-1}`, `\\mathrm{m\\,s^{-1}}`, `\\text{ m s}^{-2}`)
_TRAILING_TEXT_BLOCK = re.compile(
    r"(?<=\S) ?\\(?:text|textbf|textnormal|textrm|textit|mbox|mathrm) ?\{[^{}]*(?:\{[^{}]*\}[^{}]*)?\} ?(?:\^\{?-?[1-4]\}?)? ?$")
_MICRO_PREFIX = re.compile(r"(?<=[\d}.]) ?\\mu ?(\\(?:text|mathrm|mbox|textrm) ?\{ ?(?:A|V|m|s|g|L|F|N|J|W|C|Pa|mol|K|T|Hz|eV|Ω) ?\})$")
# Upright constants are math, not units: \mathrm{i} is the imaginary unit, \mathrm{e} Euler's number.
_UPRIGHT_CONSTANT = re.compile(r"\\(?:mathrm|text|operatorname)\{ ?([ie]) ?\}")
# Bold or upright *math* (a digit or a command inside) is the math itself: \mathbf{\frac{2}{5}}.
_STYLED_MATH = re.compile(r"\\(?:mathbf|boldsymbol|bm|textbf|mathrm|mathit)\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
_PERCENT_WORD = re.compile(r"(?<=[\d}]) ?(?:\\text\{ ?(?:percent|percentage|pct) ?\}|percent(?:age)?|pct)$")
# Words after a number are a unit or a label ("25 miles per hour", "17 apples"), never a product of
# symbols; math function names are not words here.
_WORD_TAIL = re.compile(r"(?<=[\d}.)]) ?((?:[A-Za-z][a-z]{1,15}\.?)(?:[ /\-][A-Za-z][a-z]{0,15}\.?){0,5})"
                        r"(?:\^\{?[23]\}?|²|³)?$")
_MATH_WORDS = {"pi", "sqrt", "sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "and", "or", "mod", "pmod",
               "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "infty", "inf", "deg", "ldots", "cdots", "dots"}
_ELLIPSIS_DECIMAL = re.compile(r"^([-+]?)(\d*)\.(\d+) ?(?:\\ldots|\\dots|\\cdots|\.\.\.|…)$")
_SPACES = re.compile(r"\s+")
_REALS = re.compile(r"\\mathbb\s*\{\s*R\s*\}|\\mathbb\s+R(?![a-zA-Z])|ℝ")


_SHORT_FRAC = re.compile(
    r"\\frac\s*(\d|\\[a-zA-Z]+|[a-zA-Z])\s*(\d|[a-zA-Z])|\\frac\s*(\d|\\[a-zA-Z]+)\s*(?=\{)|\\frac\s*(\{[^{}]*\})\s*(\d)"
)
_SHORT_SQRT = re.compile(r"\\sqrt\s*(\d|[a-zA-Z](?![a-zA-Z]))")


def _fix_short_commands(s: str) -> str:
    """`\\frac12` -> `\\frac{1}{2}`, `\\frac1{10}`, `\\frac{8\\pi}5`, `\\sqrt3` -> `\\sqrt{3}` (TeX's one-token arguments)."""
    def frac(m: re.Match) -> str:
        if m.group(1):
            return "\\frac{" + m.group(1) + "}{" + m.group(2) + "}"
        if m.group(3):
            return "\\frac{" + m.group(3) + "}"
        return "\\frac" + m.group(4) + "{" + m.group(5) + "}"

    if "\\frac" in s:
        s = _SHORT_FRAC.sub(frac, s)
    if "\\sqrt" in s:
        s = _SHORT_SQRT.sub(lambda m: "\\sqrt{" + m.group(1) + "}", s)
    return s


def strip_delimiters(span: str) -> str:
    """Remove one layer of surrounding `$...$`, `\\(...\\)`, `\\[...\\]` and trailing punctuation."""
    span = span.strip().rstrip(".").strip()
    for left, right in _DELIMITERS:
        if span.startswith(left) and span.endswith(right) and len(span) >= len(left) + len(right):
            span = span[len(left) : len(span) - len(right)].strip()
            break
    return span.strip().rstrip(".").strip()


def repeating_from_ellipsis(s: str) -> str:
    """`0.222\\ldots` -> `0.\\overline{2}`, `0.1666...` -> `0.1\\overline{6}`: the shortest period that
    repeats at least twice (three times for one digit) at the end; unchanged when there is none."""
    m = _ELLIPSIS_DECIMAL.match(s)
    if not m:
        return s
    sign, whole, digits = m.groups()
    for period in range(1, 7):
        repeats = 3 if period == 1 else 2
        if len(digits) >= period * repeats and digits[-period:] * repeats == digits[-period * repeats :]:
            head = digits[: -period * repeats]
            while head and head[-period:] == digits[-period:]:
                head = head[:-period]
            return f"{sign}{whole or 0}.{head}\\overline{{{digits[-period:]}}}"
    return s


# class si-unit-strip: an SI unit of two or more letters after a number is a unit like a unit word ("**253 kPa**", "4.2
# kJ", "3 MeV" against a gold without a unit); never a one-letter symbol, which may be the text's own variable ("$\boxed{12
# N}$" after "Let $N$ be the number of rows")


def _strip_si_unit(s: str) -> str:
    name = si_unit_of(s)
    if name is None or len(name) == 1:
        return s
    # (set apart from its number by a space or a text block: "253 kPa", `253\text{kPa}`; never glued, "1.5kT" is 1.5k T)
    m = re.search(rf"(\d|\}})(?: (?:\\(?:text|mbox|mathrm|textrm) ?\{{ ?)?|\\(?:text|mbox|mathrm|textrm) ?\{{ ?){re.escape(name)} ?\}}?\.?$",
                  s.replace("\\mu", "µ"))
    if m is None:
        return s
    return s.replace("\\mu", "µ")[: m.start() + 1].strip()


def _strip_word_tail(s: str) -> str:
    m = _WORD_TAIL.search(s)
    if not m or any(w.lower().strip(".") in _MATH_WORDS for w in re.split(r"[ /\-]", m.group(1))):
        return s
    return s[: m.start()].strip()


_DOUBLED_BACKSLASH = re.compile(r"(?<!\\)\\\\(?=(?:frac|dfrac|left|right|sqrt|pi|text|cdot|times|infty|le|ge|neq|in|cup|boxed|"
                                r"mathrm|mathbf|begin|end|alpha|beta|theta|circ|pm)(?![a-z]))")
_ARRAY_ENV = re.compile(r"\\begin\{array\}\{[lcr| ]*\}(.*?)\\end\{array\}", re.DOTALL)
_SMALL_MATRIX = re.compile(r"(?:\\left ?[(\[] ?)?\\begin\{smallmatrix\}(.*?)\\end\{smallmatrix\}(?: ?\\right ?[)\]])?", re.DOTALL)
_BRACKETED_MATRIX = re.compile(r"^[(\[] ?(\\begin\{[pbvBV]?matrix\}.*\\end\{[pbvBV]?matrix\}) ?[)\]]$", re.DOTALL)
_PLAIN_FUNCTIONS = re.compile(r"(?<![\\A-Za-z])(pi|sqrt|exp|arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|ln|log"
                              r"|infty)(?![A-Za-z])")
# class code-math: Python's math as datasets and models write it (`np.arcsin(10/13)`, `math.sqrt(2)*3`, `np.pi`):
# the module prefix names nothing; the function is the one LaTeX writes (never `np.` in prose, "np. 5")
_MODULE_PREFIX = re.compile(r"(?<![\w.])(?:np|numpy|math|sympy|sp|cmath)\.(?=[a-z]{2,8}\b)")


def _plain_math(s: str) -> str:
    """Plain-text math as models also write it: `pi/2`, `-1 + exp(16)`, `sqrt(2)`, `2*pi` -> LaTeX."""
    if "." in s:  # (numpy's and math's one-argument log is the natural log)
        s = _MODULE_PREFIX.sub("", re.sub(r"(?<![\w.])(?:np|numpy|math|cmath)\.log\((?![^()]*,)", r"\\ln(", s))
    s = re.sub(r"(?<![\\A-Za-z])sqrt\(([^()]{1,80})\)", r"\\sqrt{\1}", s)
    s = _PLAIN_FUNCTIONS.sub(lambda m: "\\" + m.group(1), s)
    return s.replace("**", "^") if "**" in s and not s.startswith("**") else s


# (LaTeX may space the suffix: `3:45\ \text{PM}`, `3:45\,\text{p.m.}`)
_CLOCK_12H = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?: |~|\\[ ,;:!])*(?:\\(?:text|mathrm)\{ ?([AaPp])\.? ?[Mm]\.? ?\}"
                        r"|([AaPp])\.? ?[Mm]\.?)(?![A-Za-z])")


def _to_24h(m: re.Match) -> str:
    hour, minute = int(m.group(1)), m.group(2)
    if not 1 <= hour <= 12 or int(minute) > 59:
        return m.group(0)
    hour = hour % 12 + (12 if (m.group(4) or m.group(5)).lower() == "p" else 0)
    seconds = f":{m.group(3)}" if m.group(3) and m.group(3) != "00" else ""
    return f"{hour}:{minute}{seconds}"


# class degrees-in-trig-argument: a degree sign inside a trig function's argument is an angle, not a unit to
# drop: `\\sin(90^\\circ - x)` is sin(pi/2 - x) == cos x, `\\cos 60^\\circ` is 1/2 (never cos of 60 radians).
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)(?![a-z])")
_DEGREE_VALUE = re.compile(rf"(\d+(?:\.\d+)?|\{{\d+(?:\.\d+)?\}})\s*(?:{_DEGREE_SIGN})")


def degrees_in_trig_to_radians(s: str) -> str:
    """Every `N^\\circ` in a trig function's argument (from the function to the next `=`, `,`, `<`, `>`)
    written as `(N\\pi/180)`; an inverse function's value (`\\sin^{-1}(0.5) = 30^\\circ`) and other degree
    signs are left alone."""
    if _TRIG.search(s) is None:
        return s
    parts, at = [], 0
    for trig in _TRIG.finditer(s):
        if trig.start() < at:
            continue
        if re.match(r"\s*\^\s*\{?\s*-\s*1", s[trig.end() :]):  # an inverse: its argument is not an angle
            continue
        stop = re.search(r"=|,|<|>|\\approx|\\[lg]eq?(?![a-z])", s[trig.end() :])
        end = trig.end() + stop.start() if stop else len(s)
        parts.append(s[at : trig.start()])
        parts.append(_DEGREE_VALUE.sub(lambda m: "(" + m.group(1).strip("{}") + "\\pi/180)", s[trig.start() : end]))
        at = end
    return "".join(parts) + s[at:]


# class degrees-implied: where the gold writes its trig arguments in degrees (`\\tan 15^\\circ`), the question is in
# degrees, and an answer's bare numeric arguments (`tan 15`, `\\sin(40)`) are degrees too; an answer with any degree
# sign, a pi or a radian of its own says what it means and is not re-read.
_BARE_TRIG_ARGUMENT = re.compile(r"(?<![A-Za-z])(\\?(?:sin|cos|tan|cot|sec|csc))(?![a-z]) ?(?:\( ?(\d+(?:\.\d+)?) ?\)|(\d+(?:\.\d+)?)(?![\d.^A-Za-z(]))")


def degrees_implied(gold: str, answer: str) -> str | None:
    """`answer` with its bare numeric trig arguments marked as degrees when the gold's are in degrees, else None."""
    if not (_TRIG.search(gold) and _DEGREE_VALUE.search(gold)) or re.search(rf"{_DEGREE_SIGN}|\\pi|π|rad", answer):
        return None
    marked = _BARE_TRIG_ARGUMENT.sub(
        lambda m: "\\" + m.group(1).lstrip("\\") + "{" + (m.group(2) or m.group(3)) + "^\\circ}", answer)
    return marked if marked != answer else None


# class units-in-list-members: a list or tuple whose members carry units (`35 \\text{ cm}, 4`,
# `(2\\text{ cm}, 3\\text{ cm})`, `12 m, 18 m`) is the list of the numbers; a unit is a text block or a
# known unit word right after a number and right before a separator or closing bracket.
_MEMBER_TEXT_UNIT = re.compile(r"(?<=[\d}])\s*(?:\\\s)?\s*\\(?:text|mathrm|mbox|textrm)\s*\{\s*[A-Za-z][A-Za-z .]{0,20}\}"
                               r"(?:\^\{?[23]\}?)?(?=\s*(?:,|\)|\]|$))")
_MEMBER_WORD_UNIT = re.compile(rf"(?<=\d)\s*{_UNIT_WORDS}(?=\s*(?:,|\)|\]|$))")


def strip_member_units(s: str) -> str:
    """Units after each member of a comma-separated list or tuple (`{35 cm,4}` is `{35,4}`)."""
    if "," not in s:
        return s
    return _MEMBER_WORD_UNIT.sub("", _MEMBER_TEXT_UNIT.sub("", s))


# class scale-words: "2.5 million", "3\\text{ dozen}", "4 thousand dollars": a scale word after a numeral multiplies
# it (it is never a unit to drop: gold 2.5 must not accept 2.5 million)
_SCALED_NUMERAL = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) ?(?:\\(?:text|mbox|mathrm|textrm) ?\{ ?)?"
                             r"(hundred|thousand|million|billion|trillion|dozen)s?(?![a-z])( ?\})?")
# the denominator words of English fractions ("three quarters", "two-thirds"; forms.py reads worded fractions)
DENOMINATOR_WORDS = {"half": 2, "halves": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6,
                     "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "twelfth": 12, "hundredth": 100,
                     "thousandth": 1000}
DENOMINATOR_WORDS.update({w + "s": d for w, d in list(DENOMINATOR_WORDS.items()) if not w.endswith("s")})
# class fraction-words after a numeral: "3 fifths", "1\\text{ thousandth}" is a fraction (never the bare numeral)
_NUMERAL_DENOMINATOR = re.compile(r"(?<![\w.])(\d+) ?(?:\\(?:text|mbox|mathrm|textrm) ?\{ ?)?([a-z]+)( ?\})?(?![\w{])")


def _numeral_denominator(m: re.Match) -> str:
    if m.group(2) not in DENOMINATOR_WORDS or ("{" in m.group(0)) != bool(m.group(3)):
        return m.group(0)
    return f"\\frac{{{m.group(1)}}}{{{DENOMINATOR_WORDS[m.group(2)]}}}"


_SCALE_POWERS = {"hundred": "10^{2}", "thousand": "10^{3}", "million": "10^{6}", "billion": "10^{9}",
                 "trillion": "10^{12}", "dozen": "12"}


_COLOURING = re.compile(r"\\(?:color|textcolor) ?\{[^{}]*\}|\\underline(?![a-zA-Z])|\\(?:hl|emph)(?![a-zA-Z])")
# class scientific-e-notation: `1.2\text{E}{+}4`, `3\mathrm{e}-5` are the calculator notation 1.2e+4, 3e-5
# (an upright lower-case e is Euler's number, `3\\mathrm{e}-5` is 3e - 5: it is the notation only with a braced sign)
_E_NOTATION = re.compile(r"(\d)\s*\\(?:text|mathrm)\s*(?:\{\s*E\s*\}\s*(?:\{\s*([-+])\s*\}|([-+]))?|\{\s*e\s*\}\s*\{\s*([-+])\s*\})"
                         r"\s*\{?\s*(\d+)\s*\}?(?![\d.])")


def _group_end(s: str) -> int:
    """The index of the brace that closes the one opening s (-1 when it never closes)."""
    depth = 0
    for i, ch in enumerate(s):
        depth += 1 if ch == "{" else -1 if ch == "}" else 0
        if depth == 0:
            return i
    return -1


def _scaled_numeral(m: re.Match) -> str:
    scaled = f"{m.group(1)} \\times {_SCALE_POWERS[m.group(2)]}"
    if "{" in m.group(0) and not m.group(3):
        return scaled + " \\text{"  # "\\text{ million dollars}": the block goes on with a unit
    return scaled


# class unicode-math: models also write math with Unicode characters (√2, x², ½, 3·4, α, ≤, €5). Each is
# rewritten to its LaTeX spelling by its Unicode character data (decomposition and name), not by a case list.
_UNICODE_COMMANDS = {"·": "\\cdot ", "⋅": "\\cdot ", "∙": "\\cdot ", "÷": "\\div ", "≤": "\\leq ", "≥": "\\geq ",
                     "≠": "\\ne ", "∈": "\\in ", "∪": "\\cup ", "∩": "\\cap ", "∅": "\\emptyset ", "⁄": "/",
                     "√": "\\sqrt", "∛": "\\sqrt[3]", "∜": "\\sqrt[4]", "−": "-", "∞": "\\infty ", "×": "\\times ",
                     "⩽": "\\leq ", "⩾": "\\geq ", "ℤ": "\\mathbb{Z}", "ℕ": "\\mathbb{N}", "∣": "|", "…": "\\ldots ", "π": "\\pi ",
                     "∠": "\\angle "}  # class angle-name: `∠ABC = 72°` names the angle, as `\angle ABC` does
# a figure dash or en dash right before a number is a minus sign (`‒3`, `–0.25`); between words it is prose
_DASH_MINUS = re.compile(r"(?<![\w)])[‒–](?= ?[\d.])")
_CURRENCY_SIGNS = re.compile(r"[€£¥₹₩₽]")
_SCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿ]+|[₀₁₂₃₄₅₆₇₈₉₊₋]+")
# the radicand after a root sign: a braced or bracketed group, a command, or a run of digits / one letter
_ROOT_SIGN = re.compile(r"\\sqrt(\[\d\])? ?(\{|\(|\\[a-zA-Z]+|\d+(?:\.\d+)?|[a-zA-Z])")


def _unicode_char(ch: str) -> str:
    if ch in _UNICODE_COMMANDS:
        return _UNICODE_COMMANDS[ch]
    if (fraction := vulgar_fraction(ch)) is not None:  # ½ -> \frac{1}{2}
        return f"\\frac{{{fraction[0]}}}{{{fraction[1]}}}"
    name = unicodedata.name(ch, "")
    if name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ")) and "FINAL" not in name and " WITH " not in name:
        letter = name.rsplit(" ", 1)[1].lower()
        return "\\" + (letter.capitalize() if "CAPITAL" in name else letter) + " "
    return ch


def _root_argument(s: str) -> str:
    """`\\sqrt(x+1)` -> `\\sqrt{x+1}`, `\\sqrt3` -> `\\sqrt{3}` where a root sign was spelled out."""
    out, at = [], 0
    for m in _ROOT_SIGN.finditer(s):
        if m.start() < at:
            continue
        out.append(s[at : m.start()] + "\\sqrt" + (m.group(1) or ""))
        token = m.group(2)
        if token in ("{", "("):
            closer, depth, j = ("}" if token == "{" else ")"), 0, m.start(2)
            while j < len(s):
                depth += 1 if s[j] == token else -1 if s[j] == closer else 0
                j += 1
                if depth == 0:
                    break
            out.append("{" + s[m.start(2) + 1 : j - 1] + "}")
            at = j
        else:  # a command (`\sqrt\frac{1}{2}` keeps its own argument), digits or one letter
            out.append(token if token.startswith("\\") else "{" + token + "}")
            at = m.end()
    return "".join(out) + s[at:]


def unicode_to_latex(s: str) -> str:
    """Unicode math as LaTeX: `2√3` -> `2\\sqrt{3}`, `x²` -> `x^{2}`, `½` -> `\\frac{1}{2}`, `α` -> `\\alpha`."""
    if s.isascii():  # (a root spelled `\sqrt(x+1)` in LaTeX is drawn over the bracket: its radicand is x+1)
        return _root_argument(s) if "\\sqrt(" in s else s
    s = _DASH_MINUS.sub("-", s)
    s = _SCRIPT_RUN.sub(lambda m: ("^{" if unicodedata.decomposition(m.group(0)[0]).startswith("<super>") else "_{")
                        + unicodedata.normalize("NFKC", m.group(0)) + "}", s)
    root_sign = any(ch in s for ch in "√∛∜")
    s = "".join(ch if ch.isascii() else _unicode_char(ch) for ch in s)
    return _root_argument(s) if root_sign else s


# class mixed-numbers: a whole answer "2 2/3" written in plain text is the mixed number 2 + 2/3 when the
# fraction is proper (numerator below denominator); "4 10/3" is no mixed number and stays as written.
_PLAIN_MIXED = re.compile(r"^([-+]?)(\d+) (\d+) ?/ ?(\d+)$")


def _plain_mixed(m: re.Match) -> str:
    numerator, denominator = int(m.group(3)), int(m.group(4))
    if not 0 < numerator < denominator:
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}\\frac{{{numerator}}}{{{denominator}}}"


# class quoted-answer: an answer wholly inside one pair of double quotes (`\boxed{"3.14"}`, `Answer: "Evelyn"`) is the
# quoted text; quotes only mark it as a string (modelscope/evalscope#1537). Single quotes stay: `f'` is a prime.
_QUOTED = re.compile(r'^"([^"\n]{1,500})"$|^\u201c([^\u201c\u201d\n]{1,500})\u201d$')


def normalize_span(span: str, policy: Policy) -> str:
    """A cleaned LaTeX string with the same value as `span` under `policy` (no parsing happens here)."""
    s = _SPACES.sub(" ", strip_delimiters(span))  # whitespace runs first: every pattern below sees single spaces
    s = _DOUBLED_BACKSLASH.sub(lambda m: "\\", s)  # `\\frac` from a doubly escaped string is `\frac`
    s = _QUOTED.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), s.strip())  # class quoted-answer
    s = unicode_to_latex(s)
    s = cis_to_trig(dms_to_degrees(s))  # classes dms-angle and polar-complex (kleval.verify.angle_forms)
    s = strip_delimiters(s) if s.startswith(("$", "\\(", "\\[")) else s
    s = math_in_text(s)  # class text-math: `\text{$\infty$}` is \infty (kleval.verify.textblocks)
    s = dates.as_text_block(s)  # class dates: `June 9`, `3 \text{ October}` are dates (kleval.verify.dates)
    s = _ARRAY_ENV.sub(lambda m: "\\begin{pmatrix}" + m.group(1) + "\\end{pmatrix}", s)
    # class row-spacing: `\\\\[2pt]` ends a matrix row as `\\\\` does, with extra space that changes no entry
    s = re.sub(r"\\\\\[ ?-?\d*\.?\d+ ?(?:pt|em|ex|mm|cm|in|mu|bp|sp|pc)? ?\]", lambda m: "\\\\", s)
    # class small-matrix: `\left(\begin{smallmatrix}0&1\\1&0\end{smallmatrix}\right)` is that matrix
    s = _SMALL_MATRIX.sub(lambda m: "\\begin{pmatrix}" + m.group(1) + "\\end{pmatrix}", s)
    # class brace-separator: `10{,}000` groups thousands wherever it stands (a fraction's denominator, a tuple's
    # member), so the digits join before any comma could split a list; `3{,}14` (no group of three) stays a comma
    s = re.sub(r"(?<![\d,.])\d{1,3}(?: ?\{ ?, ?\} ?\d{3})+(?![\d.])", lambda m: re.sub(r"\D", "", m.group(0)), s)
    # class dot-grouped-thousands (kleval.verify.decimals): "2.598.960" is 2598960
    s = re.sub(rf"(?<![\d.,]){DOT_GROUPED_THOUSANDS}", lambda m: m.group(0).replace(".", ""), s)
    # (and a thin space that groups thousands, `\dfrac{20\,000}{\pi}`, `1\,234\,567`; never `2\,3`, no group of three)
    s = re.sub(r"(?<![\d,.])\d{1,3}(?:\\[,;:!]\d{3})+(?![\d])", lambda m: re.sub(r"\D", "", m.group(0)), s)
    s = re.sub(r"(?<=\d) ?\{ ?, ?\} ?(?=\d)", ",", s)  # 14{,}916 and 14 {, }916
    # class clock-time: "8:34 \text{ P.M.}" is 20:34 and "20:34:00" is 20:34 (a 12-hour suffix is never a unit)
    # (class clock-time-spacing: `8\!:\!34` and `13{:}03` space or brace the colon of 8:34 and 13:03)
    s = re.sub(r"(?<=\d)(?:\\[!,;] ?)?(?:\{:\}|:)(?: ?\\[!,;])?(?=\d{2}(?!\d))", ":", s)
    s = _CLOCK_12H.sub(_to_24h, s)
    s = re.sub(r"(?<![\d:])(\d{1,2}:\d{2}):00(?![\d:])", r"\1", s)
    # class grouped-number-in-braces: "\mathrm{1,000}" or "{1,000}" inside a fraction is one number
    s = re.sub(r"\\(?:mathrm|text|mbox)\{ ?(\d{1,3}(?:,\d{3})+) ?\}", lambda m: m.group(1).replace(",", ""), s)
    s = _plain_math(s)
    s = _E_NOTATION.sub(lambda m: f"{m.group(1)}e{m.group(2) or m.group(3) or m.group(4) or ''}{m.group(5)}", s)
    s = _UPRIGHT_CONSTANT.sub(lambda m: m.group(1), s)
    for _ in range(2):
        s = _STYLED_MATH.sub(lambda m: m.group(1) if re.search(r"[\d\\]", m.group(1)) else m.group(0), s)
    s = _COLOURING.sub("", s)  # class styling: colour and underline change the look of an answer, never its value
    while s.startswith("{") and s.endswith("}") and _group_end(s) == len(s) - 1 and "," not in s:
        s = s[1:-1].strip()  # `{\frac{9}{4}}`: a brace group around one value only groups (`{1,2}` may be a set)
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("\\cfrac", "\\frac")
    s = s.replace("{,}", ",").replace("\\varnothing", "\\emptyset").replace("\\lbrace", "\\{")
    s = s.replace("\\rbrace", "\\}").replace("\\lbrack", "[").replace("\\rbrack", "]")
    s = s.replace("\\infin", "\\infty").replace("\\le ", "\\leq ").replace("\\ge ", "\\geq ")
    s = s.replace("\\leqslant", "\\leq").replace("\\geqslant", "\\geq").replace("\\neq", "\\ne")
    s = s.replace("−", "-").replace("∞", "\\infty").replace("×", "\\times").replace("π", "\\pi")
    s = s.replace("\\%", "%").replace("\\$", "$")
    s = _REALS.sub(r"(-\\infty,\\infty)", s)  # the real line is an interval
    s = _fix_short_commands(s)
    s = re.sub(r"(?<=\d),\\!\s*(?=\d{3})", "", s)  # MATH writes thousands as 5,\!525
    s = re.sub(r"\\phantom\s*(?:\{[^{}]*\}|\S)", "", s)  # invisible alignment characters
    s = re.sub(r"^(?:\\approx|\\sim|=)\s*", "", s.strip())  # "\approx 8.24": the value is what follows
    s = re.sub(r"(?<!\\)\\ ", " ", s)
    if s.count("=") >= 2:  # "x_1 = 2 \quad x_2 = 5": a spacing command separates listed assignments
        s = re.sub(r" ?,? ?\\q?quad ?", ", ", s)
    s = _SPACES.sub(" ", _NOISE.sub(" ", s)).strip()
    bracketed = _BRACKETED_MATRIX.match(s)  # "\left[\begin{array}..\end{array}\right]" is the matrix itself
    if bracketed:
        s = bracketed.group(1)
    if not is_text_wrapped(s):
        s = _SCALED_NUMERAL.sub(_scaled_numeral, s)
        s = _NUMERAL_DENOMINATOR.sub(_numeral_denominator, s)
    s = _PLAIN_MIXED.sub(_plain_mixed, s)
    s = repeating_from_ellipsis(s.strip())
    if policy.percent_equals_number:
        s = _PERCENT_WORD.sub("%", s.strip())
    s = degrees_in_trig_to_radians(s)
    if policy.strip_units:
        s = compound_quantity(s)
        s = _DEGREES.sub("", s)
        s = strip_member_units(s)
        s = s.replace("$", "")
        # class currency: a currency sign or ISO code before or after the amount is its unit ("€5", "USD 5", "Rs. 5")
        s = _CURRENCY_SIGNS.sub("", s)
        s = re.sub(r"^(?:\\(?:text|mathrm|mbox) ?\{ ?)?(?:USD|US ?\$?|EUR|GBP|INR|JPY|CAD|AUD|Rs\.?|RMB) ?\}? ?(?=[-\d.])",
                   "", s.strip())
        s = re.sub(r"(?<=[\d.}]) ?(?:USD|EUR|GBP|INR|JPY|CAD|AUD|RMB)$", "", s)
        # class si-prefix: the micro prefix written as the Greek letter before a unit block (`250\ \mu\text{A}`) belongs to
        # the unit; a bare `\mu` stays a symbol (`2\mu mg` is a friction force)
        s = _MICRO_PREFIX.sub(r"\1", s)
        if not is_text_wrapped(s):
            for _ in range(2):
                s = _TRAILING_TEXT_BLOCK.sub("", s).strip()
                s = _TRAILING_UNIT.sub("", s).strip()
                s = _strip_word_tail(s)
                s = _strip_si_unit(s)
    if policy.percent_equals_number:
        s = re.sub(r"(?<=[\d}])\s*%$", "", s.strip())
    s = re.sub(r"(?<!\\)\\ ", " ", s).replace("~", " ")
    s = _SPACES.sub(" ", s).strip()
    # class mixed-number-unit: `2 1/2 \text{ miles}` is a mixed number once its unit is gone
    s = _PLAIN_MIXED.sub(_plain_mixed, s.strip().rstrip(".").strip())
    return s
