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
