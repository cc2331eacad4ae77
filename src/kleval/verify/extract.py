"""Linear-time primitives for finding answer spans: boxes, math blocks, `####`, numbers, whitespace runs.

Every function here is pure string work (no sympy), runs in time linear in the text (no regex
with two adjacent quantifiers over the same characters; brace matching in one pass) and returns
`None` when nothing is present. The answer-span grammar that decides which of these is *the*
final answer lives in kleval.verify.grammar.
"""
from __future__ import annotations

import re

_BOX_COMMANDS = ("\\boxed", "\\fbox")
_BRACE_TOKEN = re.compile(r"\\[{}]|[{}]")


def compact_whitespace(text: str) -> str:
    """Runs of spaces collapse to one and runs of blank lines to one blank line (degenerate text
    such as "answer" + 10,000 spaces becomes short before any pattern sees it)."""
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    return re.sub(r"\n(?: ?\n)+", "\n\n", text)


# class escape-damage: LaTeX put into a JSON or Python string without doubling its backslashes loses them to escape
# sequences: the `\b` of \boxed and \beta becomes a backspace, the `\f` of \frac a form feed, the `\v` of \vec a
# vertical tab, the `\a` of \alpha a bell, the `\t` of \text and \times a tab, the `\r` of \right a carriage return
# and the `\n` of \neq and \nabla a newline. A backspace, form feed, vertical tab or bell never stands in model text,
# so each is read back as its backslash and letter; where one is found (or a tab before `ext{`), tabs, carriage
# returns and newlines right before the rest of a common LaTeX command name are read back as well (a newline only
# before names no English line starts with: `eq`, `abla`, `otin`, ...; never `e`, `u` or `i`).
_CONTROL_ESCAPES = str.maketrans({"\x07": "\\a", "\x08": "\\b", "\x0b": "\\v", "\x0c": "\\f"})
_ESCAPE_DAMAGE = re.compile(r"[\x07\x08\x0b\x0c]|\t(?:ext(?:bf|rm|it)? ?\{|imes(?![a-z])|heta(?![a-z])|frac\{)")
_WHITESPACE_ESCAPE = re.compile(r"\t(?=(?:ext(?:bf)?|imes|heta|an|au|o|op|riangle|ilde|frac)(?![a-z]))"
                                r"|\r(?=(?:ight|ho|angle|m|vert|brace)(?![a-z]))"
                                r"|\n(?=(?:eq|abla|otin|ewline|leq|geq|mid)(?![a-z]))")


def restore_escapes(text: str) -> str:
    """`text` with the LaTeX backslashes an unescaped string turned into control characters put back."""
    if not _ESCAPE_DAMAGE.search(text):
        return text
    text = _WHITESPACE_ESCAPE.sub(lambda m: {"\t": "\\t", "\r": "\\r", "\n": "\\n"}[m.group(0)], text)
    return text.translate(_CONTROL_ESCAPES)


# class math-delimiters: `\\(...\\)` and `\\[...\\]` are the same math as `$...$` and `$$...$$`. In a completion with no
# dollar sign (so none is a currency sign that a rewrite could pair wrongly) they are written with dollars before
# anything is read, so that every rule that reads `$` blocks reads them too ("ANSWER: \\(B\\)", "is \\(\\boxed 3\\).").
# A `\\\\[2pt]` line break is no delimiter.
_PAREN_MATH = re.compile(r"(?<!\\)\\\((?!\\\))([^\n]{1,1000}?)(?<!\\)\\\)")
_BRACKET_MATH = re.compile(r"(?<!\\)\\\[(?!\\\])(.{1,2000}?)(?<!\\)\\\]", re.DOTALL)


def dollar_delimiters(text: str) -> str:
    """`text` with `\\(...\\)` written `$...$` and `\\[...\\]` written `$$...$$`, when it holds no `$`."""
    if "$" in text or ("\\(" not in text and "\\[" not in text) or "{\\(" in text:
        return text  # (nor math inside text inside math, `\\(\\text{\\(2\\pi\\)}\\)`, whose delimiters would not pair)
    text = _BRACKET_MATH.sub(lambda m: "$$" + m.group(1) + "$$", text)
    return _PAREN_MATH.sub(lambda m: "$" + m.group(1) + "$", text)


# class number-in-math: a plain number alone in inline math (`$5$`, `$ -2.5 $`, `$1,500$`) is the number; it is read as plain text
# so that the rules that guard a plain number (a bound, "cannot be 5", "1 or 3", a hedge, an aside) guard it too.
# Never a display, nor a block that touches a word, a sign, a power or another block (`$5$!`, `$2$(a+b)`).
_NUMBER_MATH = re.compile(r"(?<![\\$\w^_{(\-\u2212\u2012\u2013/])\$ ?(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?) ?\$(?![$\w^_!(/\u00b2\u00b3])")


_LIST_GAP = re.compile(r"[ ,;]*(?:(?:and|or)[ ,;]*)?")  # "$-1, 0,$ and $1$": one list of blocks, kept as it is


def plain_numbers(text: str) -> str:
    """`text` with every inline `$n$` that holds only a plain number written as that number, unless it is listed
    with another block."""
    if "$" not in text:
        return text

    def plain(m: re.Match) -> str:
        before, after = text[max(0, m.start() - 8) : m.start()], text[m.end() : m.end() + 8]
        if ("$" in before and _LIST_GAP.fullmatch(before[before.rfind("$") + 1 :])) or \
                ("$" in after and _LIST_GAP.fullmatch(after[: after.find("$")])):
            return m.group(0)
        return m.group(1)

    return _NUMBER_MATH.sub(plain, text)


# class box-command-variants: `\\framebox[width][pos]{...}` (LaTeX) and `\\bbox[style]{...}` (MathJax) box an answer
# as `\\fbox{...}` does; they are rewritten to `\\fbox{` (their optional arguments dropped) before any box is read.
_BOX_VARIANT = re.compile(r"\\(?:framebox|bbox)(?![A-Za-z])(?:\[[^\[\]\n]{0,80}\]){0,2} ?(?=\{)")


# class box-lost-backslash: a box whose backslash a log or an escaping step dropped (`<boxed{117}`, ` boxed{117}`) is a box
_BARE_BOXED = re.compile(r"(?<![\\A-Za-z])boxed ?\{")


def unify_box_commands(text: str) -> str:
    """`text` with every `\\framebox[..]{` and `\\bbox[..]{` written as `\\fbox{`, and `boxed{` as `\\boxed{`."""
    if "boxed" in text and _BARE_BOXED.search(text):
        text = _BARE_BOXED.sub(lambda m: "\\boxed{", text)
    if "\\framebox" not in text and "\\bbox" not in text:
        return text
    return _BOX_VARIANT.sub(lambda m: "\\fbox", text)


# class exclamation-after-number: in prose, a `!` right after a number that ends its sentence (the text ends, a
# closing `**` or quote, or a new line or capitalized sentence follows) is an exclamation mark ("The answer is
# 42!", "Yay, we got 7!"); a factorial is a `!` that more mathematics or the sentence's own period follows
# ("5!.", "3! = 6", "5!/(2!3!)"). Inside `$...$` or a box the sign is always a factorial (never read here).
_EXCLAMATION = re.compile(r"!+(?:\*\*|[\"'”’)]){0,3}(?:[ \t]*(?:$|\n)|[ \t]+(?=[A-Z]))")


def exclamation(text: str, at: int) -> bool:
    """Whether the `!` at `text[at]` (right after a number) is an exclamation mark, not a factorial sign."""
    return _EXCLAMATION.match(text, at) is not None


def closing_braces(text: str, start: int = 0) -> dict[int, int]:
    """Index of each `{` from `start` on -> index of its matching `}` (escaped `\\{` `\\}` skipped), in
    one pass. Braces before `start` cannot change how later braces pair, so they are not read."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for m in _BRACE_TOKEN.finditer(text, start):
        token = m.group(0)
        if token == "{":
            stack.append(m.start())
        elif token == "}" and stack:
            pairs[stack.pop()] = m.start()
    return pairs


def boxes_with_positions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of every complete `\\boxed{...}` / `\\fbox{...}` / `\\boxed 5`, in text order.

    An unclosed box (a truncated output) is skipped; a thousand of them cost one pass, not a
    thousand scans to the end of the text.
    """
    if "\\boxed" not in text and "\\fbox" not in text:
        return []
    starts = list(re.finditer(r"\\(?:boxed|fbox)(?![A-Za-z])", text))
    if not starts:
        return []
    pairs = closing_braces(text, starts[0].end())
    found = []
    for m in starts:
        i = m.end()
        while i < len(text) and text[i] == " ":
            i += 1
        if i < len(text) and text[i] == "{":
            end = pairs.get(i)
            if end is not None:
                found.append((m.start(), end + 1, text[i + 1 : end]))
        elif i > m.end():
            # `\boxed 5`: TeX takes the next token; we take up to the next space, `$` or end.
            token = re.match(r"[^\s$]{1,100}", text[i:i + 100])
            if token:
                found.append((m.start(), i + token.end(), token.group(0)))
    return found


def all_boxed(text: str) -> list[str]:
    """Contents of every complete box, in text order."""
    return [content for _, _, content in boxes_with_positions(text)]


def last_boxed(text: str) -> str | None:
    """Content of the last complete `\\boxed{...}` or `\\fbox{...}` (nested braces kept), or None."""
    boxes = boxes_with_positions(unify_box_commands(text))
    return boxes[-1][2].strip() if boxes else None


# `#### 18` (GSM8K's marker), never a markdown heading such as `#### Step 3` or `##### 2. Setup`
_GSM8K_MARK = re.compile(r"(?<!#)####(?!#)[ \t]*((?:[-+$.(\\\d])[^\n]*)?")


def gsm8k_final(text: str) -> str | None:
    """The value after the last `####` (GSM8K's answer marker), commas and `$` kept, or None."""
    matches = _GSM8K_MARK.findall(text)
    if not matches:
        return None
    value = matches[-1].strip().rstrip(" \u2713\u2714\u2705\u2611")  # the last marker decides, even when it is empty
    return value or None  # (a truncated "####"); a check mark after the value, "#### 18 ✅", only marks it verified


def gsm8k_marker_position(text: str) -> int:
    """Start of the last `####` marker, or -1."""
    return text.rfind("####")


_NUMBER = re.compile(r"-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)")


def last_number(text: str) -> str | None:
    """The last number in the text (thousands commas allowed), or None."""
    last = None
    for last in _NUMBER.finditer(text):
        pass
    if last is None:
        return None
    return last.group(0).rstrip(",").rstrip(".") or None


_MATH_BLOCK = re.compile(r"\$\$([^$]{1,2000})\$\$|(?<!\\)\$((?:[^$\n\\]|\\[^\n]){1,1000})\$|\\\(([^\n]{1,400}?)\\\)|\\\[(.{1,800}?)\\\]", re.DOTALL)


def math_blocks(segment: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of each `$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]` block, in order."""
    out = []
    for m in _MATH_BLOCK.finditer(segment):
        content = next(g for g in m.groups() if g is not None)
        out.append((m.start(), m.end(), content.strip()))
    return out


def first_math(segment: str) -> str | None:
    """Content of the first math block in `segment`, or None."""
    m = _MATH_BLOCK.search(segment)
    if not m:
        return None
    return next(g for g in m.groups() if g is not None).strip()


def math_safe_tail(text: str, size: int) -> str:
    """The last `size` characters, moved forward past a `$` when the cut falls inside a `$...$` block
    (so dollar signs still pair up as in the whole text)."""
    if len(text) <= size:
        return text
    start = len(text) - size
    if text.count("$", 0, start) % 2:
        nxt = text.find("$", start)
        start = nxt + 1 if nxt != -1 else start
    return text[start:]


# (a check mark after a value, "#### 18 ✅", "A: 2 ✓", only marks it as verified)
_TRAILING_JUNK = " \t\n.;:,!*\u2713\u2714\u2705\u2611"
_LEADING_JUNK = " \t\n;:,!*"  # never a leading dot: ".64" is 0.64


def clean_span(span: str) -> str:
    """A span without surrounding punctuation and markdown bold."""
    span = span.strip()
    for _ in range(3):
        right = span.rstrip(_TRAILING_JUNK)
        if span[len(right) : len(right) + 1] == "!" and right[-1:].isdigit() and not exclamation(span, len(right)):
            right += "!"  # class glued-number: a factorial sign (`5!.` is 120) is part of the value, not punctuation
        span = right.lstrip(_LEADING_JUNK)
        if span.startswith("**") and span.endswith("**"):
            span = span[2:-2]
    return span.strip()
