"""Find the final-answer span in a completion: boxed answers, GSM8K `####`, answer phrases, letters.

Every function here is pure string work (no sympy) and returns `None` when nothing that looks
like a final answer is present; none of them guess from a stray number unless asked to
(`last_number`, used only by the GSM8K policy).
"""
from __future__ import annotations

import re

_BOX_COMMANDS = ("\\boxed", "\\fbox")


def _match_brace(text: str, open_index: int) -> int | None:
    """Index of the `}` closing the `{` at open_index, skipping escaped braces; None if unclosed."""
    depth = 0
    i = open_index
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in "{}":
            i += 2  # `\{` and `\}` are literal braces (set notation), not grouping
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _box_starts(text: str) -> list[tuple[int, str]]:
    starts = []
    for command in _BOX_COMMANDS:
        start = text.find(command)
        while start != -1:
            after = start + len(command)
            # `\boxed` must not be a prefix of a longer command name (e.g. a made-up `\boxedx`).
            if after >= len(text) or not text[after].isalpha():
                starts.append((start, command))
            start = text.find(command, after)
    return sorted(starts)


def all_boxed(text: str) -> list[str]:
    """Contents of every complete `\\boxed{...}` / `\\fbox{...}` / `\\boxed 5`, in text order."""
    found = []
    for start, command in _box_starts(text):
        i = start + len(command)
        while i < len(text) and text[i] == " ":
            i += 1
        if i < len(text) and text[i] == "{":
            end = _match_brace(text, i)
            if end is not None:
                found.append(text[i + 1 : end])
        elif i > start + len(command):
            # `\boxed 5`: TeX takes the next token; we take up to the next space, `$` or end.
            m = re.match(r"[^\s$]+", text[i:])
            if m:
                found.append(m.group(0))
    return found


def last_boxed(text: str) -> str | None:
    """Content of the last complete `\\boxed{...}` or `\\fbox{...}` (nested braces kept), or None.

    The last box wins because models correct themselves; an unclosed (truncated) box is ignored.
    """
    if "\\boxed" not in text and "\\fbox" not in text:
        return None
    boxes = all_boxed(text)
    return boxes[-1].strip() if boxes else None


_GSM8K_MARK = re.compile(r"####\s*([^\n]*)")


def gsm8k_final(text: str) -> str | None:
    """The value after the last `####` (GSM8K's answer marker), commas and `$` kept, or None."""
    matches = _GSM8K_MARK.findall(text)
    if not matches:
        return None
    value = matches[-1].strip()
    return value or None


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


def last_number(text: str) -> str | None:
    """The last number in the text (thousands commas allowed), or None. Only the GSM8K policy uses it."""
    matches = _NUMBER.findall(text)
    if not matches:
        return None
    return matches[-1].rstrip(",").rstrip(".") or None


# ---------------------------------------------------------------------------------------------
# Finding the answer span in a whole completion, per policy.

_STRONG_PHRASE = re.compile(
    r"(?:(?:final\s+answer|the\s+answer)\s*(?:is\s*:?|:|=)|(?<![A-Za-z])answer\s*:)\s*", re.IGNORECASE
)
_INLINE_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_TRAILING_JUNK = " \t\n.;:,!*"


def _first_math(segment: str) -> str | None:
    m = _INLINE_MATH.search(segment)
    if not m:
        return None
    return next(g for g in m.groups() if g is not None).strip()


def _clean_span(span: str) -> str:
    span = span.strip()
    for _ in range(3):
        span = span.strip(_TRAILING_JUNK)
        if span.startswith("**") and span.endswith("**"):
            span = span[2:-2]
    return span.strip()


def answer_phrase(text: str) -> str | None:
    """The answer after the last "final answer is" / "the answer is" / "Answer:" phrase, or None.

    The span runs to the end of its line (or, when the phrase ends the line, the next line); math
    delimiters inside it win over the surrounding words.
    """
    matches = list(_STRONG_PHRASE.finditer(text))
    if not matches:
        return None
    rest = text[matches[-1].end() :]
    lines = rest.split("\n")
    segment = lines[0].strip().strip("*").strip()
    if not segment and len(lines) > 1:
        segment = next((line.strip() for line in lines[1:] if line.strip()), "")
    if not segment:
        return None
    math = _first_math(segment)
    if math is not None:
        return _clean_span(math) or None
    # Plain text answer: stop at the first sentence end ('. ' keeps decimals like 3.5 intact).
    segment = re.split(r"\.\s|\.$", segment)[0]
    return _clean_span(segment) or None


def _ends_in_answer_phrase(text: str) -> bool:
    """Whether the last "the answer is" has nothing after it: the output was cut off before its answer."""
    matches = list(_STRONG_PHRASE.finditer(text))
    return bool(matches) and not text[matches[-1].end() :].strip(_TRAILING_JUNK + "$\\([")


def bold_final_line(text: str) -> str | None:
    """A markdown-bold answer that is the whole last non-empty line (e.g. `**42**`), or None."""
    lines = [line.strip() for line in text.strip().split("\n") if line.strip()]
    if not lines:
        return None
    m = re.fullmatch(r"\*\*(.+?)\*\*\.?", lines[-1])
    return _clean_span(m.group(1)) if m else None


def find_math_answer(text: str) -> tuple[str | None, str]:
    """The final-answer span of a math completion and how it was found ("boxed", "phrase", ...)."""
    boxed = last_boxed(text)
    if boxed is not None:
        return boxed, "boxed"
    phrase = answer_phrase(text)
    if phrase is not None:
        return phrase, "answer-phrase"
    if _ends_in_answer_phrase(text):
        return None, "the text ends in an answer phrase with nothing after it (truncated)"
    final = gsm8k_final(text)
    if final is not None:
        return final, "####"
    bold = bold_final_line(text)
    if bold is not None:
        return bold, "bold-final-line"
    conclusion = conclusion_sentence(text)
    if conclusion is not None:
        return conclusion, "conclusion-sentence"
    return None, "no boxed answer, answer phrase, ####, bold final line or concluding sentence"


_CONCLUSION = re.compile(
    r"(?:^|[.\n]\s*)(?:Therefore|Thus|Hence|So|In conclusion|Finally|Consequently)\b[^\n]*?"
    r"(?:\bis|\bare|\bequals|\bbe|=|:)\s+(?=\S)",
    re.IGNORECASE,
)
_LEADING_NUMBER = re.compile(r"^-?\$?\d[\d,]*(?:\.\d+)?(?:/\d+)?%?")


def conclusion_sentence(text: str) -> str | None:
    """The value stated by a closing "Therefore, ... is X." sentence in the last paragraph.

    Only the final paragraph is read (a conclusion, not a stray number mid-solution); the span is
    the first math block after the last "is"/"="/":", else a leading number, else the words up to
    the sentence end.
    """
    tail = text.rstrip()[-600:]
    paragraph = tail.split("\n\n")[-1]
    matches = list(_CONCLUSION.finditer(paragraph))
    if not matches:
        return None
    rest = paragraph[matches[-1].end() :]
    rest = re.split(r"\.\s|\.$|\n", rest.strip())[0].strip()
    math = _first_math(rest)
    if math is not None and rest.find("$") <= 3 and rest.find("\\(") <= 3:
        # the math block opens the clause, e.g. "is \(45\)" (not "is the value of $x$ when ...")
        return _clean_span(math) or None
    rest = rest.replace("**", "").strip()
    number = _LEADING_NUMBER.match(rest)
    if number:
        return number.group(0)
    return None


_GSM8K_A_LINE = re.compile(r"(?:^|\n)\s*A:\s*([^\n]+)\s*$")


def find_gsm8k_answer(text: str) -> tuple[str | None, str]:
    """GSM8K: `####`, boxed, answer phrase, a closing `A: x` line, then the last number in the text."""
    for finder, how in ((gsm8k_final, "####"), (last_boxed, "boxed"), (answer_phrase, "answer-phrase")):
        span = finder(text)
        if span is not None:
            if re.search(r"[A-Za-z]{3,}", span.replace("\\frac", "")) and last_number(span) is not None:
                return last_number(span), how + "/last-number-in-span"  # "Verna received $7.00 in change"
            return span, how
    m = _GSM8K_A_LINE.search(text.rstrip())
    if m:
        return _clean_span(m.group(1)), "A:-line"
    number = last_number(text)
    if number is not None:
        return number, "last-number"
    return None, "no number in the completion"


_CHOICE_PATTERNS = (
    # the answer is (B) / answer: B / final answer is **B** / the correct option is B
    r"(?:answer|option|choice)\s*(?:is|:)?\s*(?:option|choice)?\s*[:\s]*[\*\(\[\s]*\\?(?:text\{)?([{L}])\b",
    r"choice_([{L}])\b",  # Mr-Ben's "Solution: Choice_B"
)


def find_choice_answer(text: str, letters: str) -> tuple[str | None, str]:
    """The chosen letter: boxed, then answer phrases, then the last `(X)` or `**X**` mentioned."""
    boxed = last_boxed(text)
    if boxed is not None:
        m = re.fullmatch(rf"\s*(?:\\text\{{)?\(?([{letters}])\)?\}}?(?:[.:)\s].*)?", boxed, re.DOTALL)
        if m:
            return m.group(1), "boxed"
        return boxed, "boxed"
    best: tuple[int, str, str] | None = None
    for pattern in _CHOICE_PATTERNS:
        for m in re.finditer(pattern.replace("{L}", letters), text, re.IGNORECASE):
            letter = m.group(1).upper()
            if letter in letters and (best is None or m.start() > best[0]):
                best = (m.start(), letter, "answer-phrase")
    if best is not None:
        phrases = [m.group(1).upper() for m in re.finditer(_CHOICE_PATTERNS[0].replace("{L}", letters), text, re.IGNORECASE)]
        if len(phrases) >= 4 and len(set(phrases[-4:])) >= 3:
            return None, f"conflicting answers {phrases[-4:]} (a repetition loop), not graded as a guess"
        return best[1], best[2]
    mentions = list(re.finditer(rf"\(([{letters}])\)|\*\*([{letters}])[.):]?\*\*", text))
    if mentions:
        m = mentions[-1]
        return (m.group(1) or m.group(2)), "last-mentioned"
    return None, "no choice letter found"
