"""Text blocks in answers: `\\text{...}` and its relatives, word answers and their comparison key, and
math written inside a text block.

`is_text_wrapped` tells a word answer (`\\text{Evelyn}`) from math; `text_key` is the case-folded
key words are compared by; `math_in_text` undoes math mode inside a text block.
"""
from __future__ import annotations

import re

from kleval.verify.policy import Policy

_TEXT_COMMANDS = re.compile(r"\\(?:text|textbf|textit|textrm|textnormal|mathrm|mathbf|mathit|mbox|operatorname)\s*\{")
_SPACES = re.compile(r"\s+")


def unwrap_command(text: str, command_pattern: re.Pattern[str]) -> str:
    """Replace `\\text{abc}` (and friends) by `abc`, braces matched, innermost content kept."""
    out = []
    i = 0
    while True:
        m = command_pattern.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        inner = text[m.end() : j - 1] if depth == 0 else text[m.end() :]
        out.append(inner)
        i = j
    return "".join(out)


def unwrap_text(text: str) -> str:
    """`text` with every `\\text{...}`-like command replaced by its content (`\\textbf{(D)}\\ 125` -> `(D)\\ 125`)."""
    return unwrap_command(text, _TEXT_COMMANDS)


def is_text_wrapped(span: str) -> bool:
    """Whether the whole span is one `\\text{...}` block (a word answer such as `\\text{Evelyn}`)."""
    m = _TEXT_COMMANDS.match(span)
    if not m:
        return False
    depth, j = 1, m.end()
    while j < len(span) and depth:
        depth += {"{": 1, "}": -1}.get(span[j], 0)
        j += 1
    return depth == 0 and j == len(span)


def text_key(span: str, policy: Policy) -> str:
    """A comparison key for word answers: text commands unwrapped, case folded, punctuation trimmed."""
    s = unwrap_command(span, _TEXT_COMMANDS)
    s = s.replace("\\", " ").replace("{", " ").replace("}", " ").replace("$", " ")
    s = _SPACES.sub(" ", s).strip().strip(".").strip()
    if re.fullmatch(r"\((?:[A-Za-z]|[ivxIVX]{2,4}|\d)\)", s):
        s = s[1:-1]  # "(C)" is the letter C, "(III)" the Roman label III
    yes_no = re.match(r"(?i)(yes|no)(?:[,.;:!]|$)", s)
    if yes_no:  # "Yes, it is possible": the answer is the yes
        s = yes_no.group(1)
    return s if policy.case_sensitive_text else s.lower()


# class text-math: math mode inside a text block (`\text{$\infty$}`, `\mbox{$(1,2]$}`, `\text{ \(2\pi\) }`) is
# the math itself, not the words "infty" or "frac sqrt 3 2"; only a block whose whole content is one math group
_INNER_MATH = re.compile(r"^ ?(?:\$([^$]+)\$|\\\((.+?)\\\)) ?$", re.DOTALL)


def math_in_text(s: str) -> str:
    """Every text block whose content is one `$...$` or `\\(...\\)` group replaced by that math."""
    if "$" not in s and "\\(" not in s:
        return s
    out, at = [], 0
    for m in _TEXT_COMMANDS.finditer(s):
        if m.start() < at:
            continue
        depth, j = 1, m.end()
        while j < len(s) and depth:
            depth += {"{": 1, "}": -1}.get(s[j], 0)
            j += 1
        inner = _INNER_MATH.match(s[m.end() : j - 1]) if depth == 0 else None
        if inner is not None:
            out.append(s[at : m.start()] + (inner.group(1) or inner.group(2)).strip())
            at = j
    return "".join(out) + s[at:]
