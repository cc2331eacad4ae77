"""Unicode mathematics in model prose, rewritten as the LaTeX the answer grammar reads.

Models often write answers with Unicode symbols instead of LaTeX: "10π cm", "√2", "x ≤ −3, i.e.
(−∞, −3]", "x = ½", "Answer: –0.25". The grammar's patterns read ASCII numbers and `$...$` math, so
"10π" was read as the number 10 and "–0.25" as 0.25 (both false accepts). This step runs before the
grammar: a minus-like dash before a digit becomes `-`, and each run of mathematics written with
Unicode symbols outside `$...$` (numbers, single-letter variables, operators and brackets around
π, √, ≤, ×, ½, x², ...) becomes one inline `$...$` block in LaTeX. Symbol names come from the Unicode
database (`unicodedata`: Greek letter names, vulgar fractions, superscript digits); only the
operators have a table. Linear time; ASCII text is returned unchanged at once.
"""
from __future__ import annotations

import re
import unicodedata

from kleval.verify.extract import math_blocks

_OPERATORS = {"∞": r"\infty", "×": r"\times", "÷": r"\div", "·": r"\cdot", "⋅": r"\cdot", "≤": r"\le", "≥": r"\ge",
              "≠": r"\ne", "≈": r"\approx", "±": r"\pm", "∓": r"\mp", "∈": r"\in", "∪": r"\cup", "∩": r"\cap",
              "⩽": r"\le", "⩾": r"\ge", "√": r"\sqrt", "∛": r"\sqrt[3]"}
# class unicode-minus: U+2212 MINUS SIGN, U+2012 FIGURE DASH, U+FE63, U+FF0D always; an EN DASH only where it
# cannot be a range ("1–5"): before a digit and not after a letter or digit
_MINUS = re.compile(r"[\u2212\u2012\ufe63\uff0d](?=[\d.∞π√(a-zA-Z])|(?<![\w)])\u2013(?=\d|\.\d)")


def _symbol(ch: str) -> str | None:
    """The LaTeX for one Unicode math character, or None when it is not one."""
    if ch in _OPERATORS:
        return _OPERATORS[ch]
    name = unicodedata.name(ch, "")
    if name.startswith("GREEK SMALL LETTER ") and " " not in name[19:]:
        return "\\" + name[19:].lower()
    if name.startswith("GREEK CAPITAL LETTER ") and " " not in name[21:]:
        return "\\" + name[21:].capitalize()
    decomposition = unicodedata.decomposition(ch)
    if decomposition.startswith("<fraction>"):
        top, bottom = decomposition.split()[1:4:2]
        return rf"\frac{{{chr(int(top, 16))}}}{{{chr(int(bottom, 16))}}}"
    if decomposition.startswith("<super>"):
        return "^{" + chr(int(decomposition.split()[1], 16)) + "}"
    if decomposition.startswith("<sub>"):  # class named-value-list: "r₁ = 4" is r_{1} = 4
        return "_{" + chr(int(decomposition.split()[1], 16)) + "}"
    return None


def _is_symbol(ch: str) -> bool:
    return not ch.isascii() and _symbol(ch) is not None


def _is_math_char(ch: str) -> bool:
    """ASCII, a math symbol, or a minus-like dash (a dash the minus rule left is still part of a run: "−½")."""
    return ch.isascii() or _is_symbol(ch) or ch in "\u2212\u2012\ufe63\uff0d\u2013"


# A run of mathematics: numbers, single letters, symbols, operators, brackets and the spaces between them.
# (a single letter is a variable, never the "s" of "it's"; a superscript after a word or after a unit letter
# written after a number, "70 cm²", "5m²", is a unit's power and left to the unit rules; a subscript digit only
# indexes a single letter, "r₁", never a formula such as "CO₂")
_ATOM = (r"(?:\d+(?:[.,]\d+)*|(?<![A-Za-z'’])[A-Za-z](?![A-Za-z])|[-+=/^*<>()\[\]|]"
         r"|(?<![A-Za-z]{2})(?<![\d ][msg])[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]|(?<![A-Za-z]{2})[₀₁₂₃₄₅₆₇₈₉]|[^\x00-\x7f⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺₀₁₂₃₄₅₆₇₈₉])")
_RUN = re.compile(rf"{_ATOM}(?: ?{_ATOM}| ?, ?(?=[-\d(∞π√]){_ATOM})*")


_ROOT = re.compile(r"([√∛]) ?(\d+(?:\.\d+)?|[A-Za-z]|\(([^()]{0,80})\)|[^\x00-\x7f])")
_SUPERSCRIPTS = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_SUBSCRIPTS = re.compile(r"[₀₁₂₃₄₅₆₇₈₉]+")


def _latex(run: str) -> str:
    """One run of Unicode mathematics in LaTeX: `√(x+1)` -> `\\sqrt{x+1}`, `x²³` -> `x^{23}`, `10π` -> `10\\pi`."""
    run = _ROOT.sub(lambda m: ("\\sqrt" if m.group(1) == "√" else "\\sqrt[3]")
                    + "{" + (m.group(3) if m.group(3) is not None else m.group(2)) + "}", run)
    run = _SUPERSCRIPTS.sub(lambda m: "^{" + unicodedata.normalize("NFKC", m.group(0)) + "}", run)
    run = _SUBSCRIPTS.sub(lambda m: "_{" + unicodedata.normalize("NFKC", m.group(0)) + "}", run)
    out = []
    for i, ch in enumerate(run):
        latex = _symbol(ch) if not ch.isascii() else None
        if latex is None:
            out.append(ch)
        else:  # a command followed by a letter or digit needs a space: `\\pi r`, not `\\pir`
            out.append(latex + (" " if latex[-1].isalpha() and i + 1 < len(run) and run[i + 1].isalnum() else ""))
    return "".join(out)


def _trimmed_run(run: str) -> str:
    """class run-brackets: a run without the prose at its ends. A bracket the run does not open is the prose's
    ("(since 3 × 5 = 15)": the `)` closes the remark, not the math); only brackets in excess go, so "(−∞, 3]"
    stays whole. An opening bracket never ends math, and a non-ASCII character that is no math symbol (an
    emoji "✅", a dash "—") is prose at either end."""
    while run and (run[-1] in "([" or not _is_math_char(run[-1])):
        run = run[:-1].rstrip()
    while run and not _is_math_char(run[0]):
        run = run[1:].lstrip()
    excess = sum(run.count(c) for c in ")]") - sum(run.count(c) for c in "([")  # closers minus openers
    while run and excess > 0 and run[-1] in ")]":
        run, excess = run[:-1].rstrip(), excess - 1
    while run and excess < 0 and run[0] in "([":
        run, excess = run[1:].lstrip(), excess + 1
    return run


_TAG = re.compile(r"(</?[A-Za-z][\w:-]{0,30}>)")


def _prose(segment: str) -> str:
    """Unicode math runs of a prose segment as `$...$` blocks."""
    def wrap(m: re.Match[str]) -> str:
        run = m.group(0).strip().lstrip("=").lstrip()  # "AB = (81*√2)/8": the value after the sign is the math
        # markdown bold around the math ("**Answer:** r₁ = 4", "**x = ½**") is not multiplication
        run = run.lstrip("* ").removesuffix("**").rstrip() if run.startswith("**") or run.endswith("**") else run
        run = _trimmed_run(run)
        if not any(_is_symbol(ch) for ch in run):
            return m.group(0)
        lead = m.group(0)[: m.group(0).index(run)]
        trail = m.group(0)[m.group(0).index(run) + len(run) :]
        return f"{lead}${_latex(run)}${trail}"

    # class tag-bounded-math: markup tags bound a run, never join it ("<answer>12 × 7 = 84</answer>": `>` and `<`
    # there are the tags' brackets, not comparisons)
    return "".join(part if i % 2 else _RUN.sub(wrap, part) for i, part in enumerate(_TAG.split(segment)))


def unicode_math(text: str) -> str:
    """`text` with its Unicode mathematics written as LaTeX (inline `$...$` outside existing math)."""
    if text.isascii():
        return text
    text = _MINUS.sub("-", text)
    if not any(_is_symbol(ch) for ch in text if not ch.isascii()):
        return text
    out, at = [], 0
    for start, end, _ in math_blocks(text):
        out.append(_prose(text[at:start]))
        out.append(_latex(text[start:end]))  # inside math as outside: `$√(x+1)$` is `$\sqrt{x+1}$`, `x⁻¹` is `x^{−1}`
        at = end
    out.append(_prose(text[at:]))
    return "".join(out)
