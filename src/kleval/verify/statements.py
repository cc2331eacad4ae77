"""Answer statements marked by their form: boxes (adjacent ones joined into a list), `A:` lines, `####`, `<answer>`,
JSON answer objects."""
from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass

from kleval.verify.extract import boxes_with_positions, clean_span, gsm8k_final, math_blocks

WINDOW = 4000  # answer statements are looked for in the final part of the text only


@dataclass(frozen=True)
class Statement:
    """One answer statement: its span, how it was found, and where it starts in the region."""

    span: str
    how: str
    start: int
    end: int = -1  # where the statement ends in the region (-1: unknown, it closes the text)


_GREEK = r"alpha|beta|gamma|delta|theta|lambda|mu|phi|varphi|omega|rho|sigma|tau|psi|xi|eta|zeta|kappa|nu|epsilon"
NAME = (rf"(?:[A-Za-z]|\\(?:{_GREEK}))(?:_\{{?\w{{1,4}}\}}?)?(?:\^\{{-1\}}|\^\{{?\*\}}?|')?(?:\([A-Za-z0-9, ]{{1,12}}\))?"
        rf"|\( ?[A-Za-z](?: ?, ?[A-Za-z]){{1,5}} ?\)")
_NAME_BEFORE_BOX = re.compile(rf"(?:^|[\s$(\[,;:])({NAME}) ?= ?$")
_JOINER_TOKENS = re.compile(
    rf"\\text\{{[^{{}}]{{0,30}}\b(?:and|or)\b[^{{}}]{{0,10}}\}}|(?<![A-Za-z])[a-z]{{2,15}}(?: [a-z]{{2,15}})? (?=and\b)"
    rf"|\\text\{{ ?(?:and|or|,)? ?\}}|\\mbox\{{ ?(?:and|or|,)? ?\}}|\\q?quad|\\[()\[\]]|\\\\|\\,|\band\b|\bor\b"
    rf"|\brespectively\b|(?:{NAME}) ?=|[\s,;&$]"
)


def is_joiner(gap: str) -> bool:
    """Whether the text between two answers only joins them (`, `, ` and `, `\\quad`, `y =`)."""
    return len(gap) <= 80 and not _JOINER_TOKENS.sub("", gap).strip()


def named_box(region: str, start: int, content: str) -> str:
    m = _NAME_BEFORE_BOX.search(region[max(0, start - 40) : start])
    return f"{m.group(1)} = {content.strip()}" if m else content.strip()


def _asked(region: str, end: int) -> bool:
    """class question-box: a box followed by a question mark is asked, not stated ("Maybe \\boxed{12}?")."""
    return region[end : end + 6].lstrip(" $)\\").startswith("?")


def last_box_group(region: str) -> Statement | None:
    """The last stated box, joined with the boxes right before it into one list answer."""
    # class empty-box: an empty `\\boxed{}` is an echo of the prompt's format instruction, not a statement
    boxes = [box for box in boxes_with_positions(region) if box[2].strip() and not _asked(region, box[1])]
    if not boxes:
        return None
    group = [boxes[-1]]
    for previous in reversed(boxes[:-1]):
        if not is_joiner(region[previous[1] : group[0][0]]):
            break
        group.insert(0, previous)
    spans = [named_box(region, start, content) for start, _, content in group]
    if len(spans) > 1 and len(set(spans)) == 1 and all(_only_space(region, a[1], b[0]) for a, b in itertools.pairwise(group)) \
            and (len(spans) >= 3 or open_copy(region, group[-1][1], group[-1][2])):
        # class repeated-box: one box written again and again with nothing between the copies (a repetition loop:
        # three or more copies, or two and the token limit cutting the next one) states one value, not a list of
        # copies; two copies that end the text (`$\boxed{2}$ $\boxed{2}$`, a double root) and `\boxed{-2} and
        # \boxed{-2}` (a and b) stay a list of two
        return Statement(spans[0], "repeated-box", group[0][0], group[-1][1])
    return Statement(", ".join(spans), "boxed" if len(spans) == 1 else f"{len(spans)}-boxes", group[0][0], group[-1][1])


def _only_space(region: str, start: int, end: int) -> bool:
    """Whether nothing but spaces, new lines, dollar signs and periods stands in `region[start:end]`."""
    return not region[start:end].strip(" \n$.")


_OPEN_COPY = re.compile(r"(?:\\boxed|\\fbox) ?\{([^{}]{0,150})$")


def open_copy(region: str, end: int, content: str) -> bool:
    """Whether the text ends, right after the box that closed at `end`, in one more copy of `content` left open (class
    repeated-box: a repetition loop stopped by the token limit inside its next copy)."""
    opened = _OPEN_COPY.search(region[end:].rstrip())
    return opened is not None and _only_space(region, end, end + opened.start()) \
        and content.strip().startswith(opened.group(1).strip())


def joined_math(segment: str, from_start: bool) -> str | None:
    """The first (or last) math block of `segment`, joined with its neighbours when only a joiner
    separates them (`$12$ and $13$` -> `12, 13`)."""
    blocks = math_blocks(segment)
    if not blocks:
        return None
    order = blocks if from_start else list(reversed(blocks))
    group = [order[0]]
    for block in order[1:]:
        left, right = (group[-1], block) if from_start else (block, group[0])
        if not is_joiner(segment[left[1] : right[0]]):
            break
        group.append(block) if from_start else group.insert(0, block)
    return ", ".join(content for _, _, content in group if content) or None


_A_LINE = re.compile(r"(?:^|\n) ?(?:A|Ans)[:.] ?(\S[^\n]{0,200})")


def closing_a_line(region: str) -> Statement | None:
    """A GSM8K-style `A: 3` among the last two non-empty lines."""
    tail = region.rstrip()[-600:]
    lines = [line for line in tail.split("\n") if line.strip()][-2:]
    for line in reversed(lines):
        m = _A_LINE.match("\n" + line)
        if m:
            value = joined_math(m.group(1), from_start=True) or clean_span(m.group(1))
            start = len(region) - len(tail) + tail.rfind(line)
            return Statement(value, "A:-line", start, start + len(line)) if value else None
    return None


_ANSWER_TAG = re.compile(r"<answer>(.{0,600}?)</answer>", re.DOTALL | re.IGNORECASE)


def answer_tag(region: str) -> Statement | None:
    """class answer-tag: the content of the last `<answer>...</answer>` (R1-style output format)."""
    tail = region[-WINDOW:]
    last = None
    for last in _ANSWER_TAG.finditer(tail):
        pass
    if last is None or not last.group(1).strip():
        return None
    content = last.group(1).strip()
    boxes = boxes_with_positions(content)
    blocks = math_blocks(content)
    if boxes:
        value = boxes[-1][2].strip()
    elif len(blocks) == 1 and blocks[0][0] == 0 and blocks[0][1] == len(content):
        value = blocks[0][2]  # "<answer>$42$</answer>"
    else:
        value = clean_span(content)
    start = len(region) - len(tail) + last.start()
    return Statement(value, "answer-tag", start) if value else None


# class json-answer: structured-output answers, `{"answer": 7, "confidence": 0.9}`, `{"steps": [...], "final_answer":
# 32}` (also in a ```json fence): the value of the last JSON object's answer key. Parsed with the json module (data
# only, nothing is evaluated); only an object opening `{"` is tried, the last 20 of them, so LaTeX braces cost nothing.
_JSON_OPEN = re.compile(r'\{\s*"')
JSON_ANSWER_KEYS = ("answer", "final_answer", "finalanswer", "final answer", "final", "result", "solution")


def json_answer(region: str) -> Statement | None:
    """The answer value of the last JSON object in the final window that has an answer key."""
    tail = region[-WINDOW:]
    offset = len(region) - len(tail)
    decoder = json.JSONDecoder()
    for m in list(_JSON_OPEN.finditer(tail))[-20:][::-1]:
        try:
            value, end = decoder.raw_decode(tail, m.start())
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        keys = {str(key).strip().lower(): key for key in value}
        found = next((keys[k] for k in JSON_ANSWER_KEYS if k in keys), None)
        if found is None:
            continue
        answer = value[found]
        if isinstance(answer, bool) or answer is None or isinstance(answer, dict):
            return None
        if isinstance(answer, list):
            answer = ", ".join(str(item) for item in answer)
        return Statement(str(answer).strip(), "json-answer", offset + m.start(), offset + end)
    return None


# class several-markers: `####` lines one after another with different values ("#### 18\n#### 20\n#### 22") spray
# candidates; they commit to none (copies of one value, "#### 22\n#### 22", still state it)
_CLOSING_MARKER_RUN = re.compile(r"(?:\n\s*(?<!#)####(?!#)[ \t]*[-+$.(\\\d][^\n]*){2,}\s*$")
_MARKER_VALUE = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _marker_value(line: str):
    """The number a `####` line states (`#### $22.00` and `#### 22 apples` state 22), or the line when it has none."""
    from decimal import Decimal

    m = _MARKER_VALUE.search(line)
    return Decimal(m.group(0).replace(",", "")) if m else line.strip()


def marker_statement(region: str) -> Statement | None:
    value = gsm8k_final(region[-WINDOW:])
    if not value:
        return None
    start = region.rfind("####")
    line_end = region.find("\n", start)
    end = line_end if line_end != -1 else len(region)
    run = _CLOSING_MARKER_RUN.search("\n" + region[-WINDOW:].rstrip())
    if run and len({_marker_value(line) for line in run.group(0).split("\n") if line.strip()}) > 1:
        return Statement("", "several-markers", start, end)
    return Statement(value, "####", start, end)
