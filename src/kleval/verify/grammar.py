"""The final-answer grammar: which statement of a completion is its committed final answer.

A completion commits to an answer with a *statement*: a `\\boxed{}` (several adjacent boxes are
one list answer; a `x = ` written before a box keeps its name), an answer phrase ("the final
answer is", "Answer:", "answer is"), a closing `A: 3` line or `####`. The LAST committed
statement wins, so a box later retracted in prose ("Wait ... so the answer is 24") loses, and a
box inside `<think>` never beats what follows `</think>`. Without a statement the grammar reads
the conclusion: a "Therefore/Thus/So ... is X" sentence of the last paragraph, or a final
sentence ending in a value after a copula ("... which is $64$.", "The volume is \\(108\\) cubic
units."), and finally a bare answer (the whole completion is an expression or a short phrase).
Nothing else is guessed: a stray number mid-text is never an answer under the math policy.

All work is on the compacted text (whitespace runs collapsed) and on the final WINDOW characters
for statements, so every pattern runs in linear time on degenerate input.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from kleval.verify.bold_value import closing_bold_value, math_value_with_unit
from kleval.verify.clauses import drop_appositive, drop_justification, justification_start, reason_then_word
from kleval.verify.commitment import (
    RETRACTION,
    WITHDRAWAL,
    confirms,
    cut_off_in_statement,
    is_aside,
    unclosed_think,
)
from kleval.verify.dates import trailing_date
from kleval.verify.extract import (
    boxes_with_positions,
    clean_span,
    compact_whitespace,
    gsm8k_final,
    last_number,
    math_blocks,
    math_safe_tail,
    unify_box_commands,
)
from kleval.verify.glued import leading_expression, standalone, trailing_expression, unit_power
from kleval.verify.named_values import named_value_list
from kleval.verify.restatement import drop_restatement, restated_value
from kleval.verify.short_statement import short_statement
from kleval.verify.unicode_math import unicode_math
from kleval.verify.value_lists import list_after_copula

WINDOW = 4000  # answer statements are looked for in the final part of the text only
BARE_MAX_CHARS = 200


@dataclass(frozen=True)
class Statement:
    """One answer statement: its span, how it was found, and where it starts in the region."""

    span: str
    how: str
    start: int
    end: int = -1  # where the statement ends in the region (-1: unknown, it closes the text)


_CHAT_TOKEN = re.compile(r"<\|(?:im_start|im_end|endoftext|eot_id|end_of_text|start_header_id)\|>|</s>")


# class next-turn: a few-shot continuation after the answer ("\n\nQuestion: ...", "Q: ...", "Human: ...") starts a new
# exchange; what it answers is not this completion's answer (lm-eval stops GSM8K generation at "Question:" for
# this). Cut only where the text before the header already states an answer, never a restated question up front.
_NEXT_TURN = re.compile(r"\n(?:Question|Q|Problem|Human|User)(?: \d{1,3})? ?:")


def _states_answer(text: str) -> bool:
    return any(find(text) for find in (last_box_group, last_answer_phrase, marker_statement, closing_a_line))


_FULLWIDTH = str.maketrans({"。": ". ", "：": ": ", "，": ", ", "（": "(", "）": ")", "！": "! ", "？": "? "})


def answer_region(text: str) -> str:
    """The part of a completion that can hold its final answer: after the last `</think>` (a box inside
    the thinking is a guess, not the answer); nothing when a `<think>` is never closed."""
    text = unicode_math(unify_box_commands(compact_whitespace(text)))  # class unicode-math: "10π", "–0.25", "½"
    if not text.isascii():
        text = text.translate(_FULLWIDTH)  # "答案：7。" ends its sentence like "Answer: 7."
    special = _CHAT_TOKEN.search(text)
    if special and text[: special.start()].strip():  # "... is 2/3. <|im_start|>user": the next turn is not the answer
        text = text[: special.start()]
    for turn in itertools.islice(_NEXT_TURN.finditer(text), 8):  # class next-turn (8 headers: linear time)
        if _states_answer(text[: turn.start()]):
            text = text[: turn.start()]
            break
    if unclosed_think(text):  # class think-unclosed: the reasoning never ended, nothing in it is the answer
        text = text[: text.rfind("<think>")]  # (TRL's reasoning_accuracy_reward also gives it nothing, trl#4563)
    end = text.rfind("</think>")
    # class think-box: what follows `</think>` is the answer section; when nothing follows it, the completion
    # stopped before writing one, and a box inside the thinking is still only a guess
    return text[end + 8 :] if end != -1 else text


# --- boxes ----------------------------------------------------------------------------------

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


def _named_box(region: str, start: int, content: str) -> str:
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
    spans = [_named_box(region, start, content) for start, _, content in group]
    return Statement(", ".join(spans), "boxed" if len(spans) == 1 else f"{len(spans)}-boxes", group[0][0], group[-1][1])


# class multi-part-boxes: a question with several parts ((a), (b), max and min) boxes one answer per part,
# with prose between the boxes. Read only when the gold asks for that many values (the caller checks).
PART_GAP_CHARS = 1500


def part_boxes(text: str, parts: int) -> str | None:
    """The last `parts` boxes of the answer region as one list answer, when nothing retracts one of them
    (a later box that replaces an earlier one wins instead), they differ, and each gap is at most
    PART_GAP_CHARS; else None."""
    if parts < 2 or parts > 8:
        return None
    region = answer_region(text)
    boxes = boxes_with_positions(region)
    if len(boxes) < parts:
        return None
    chosen = boxes[-parts:]
    if len(boxes) > parts and len(region[boxes[-parts - 1][1] : chosen[0][0]]) <= PART_GAP_CHARS:
        return None  # class multi-part-cluster: more boxes than parts close together, which n are the parts is a guess
    contents = [content.strip() for _, _, content in chosen]
    if len(set(contents)) < parts or not all(contents):
        return None
    for left, right in itertools.pairwise(chosen):
        gap = region[left[1] : right[0]]
        if len(gap) > PART_GAP_CHARS or RETRACTION.search(gap):
            return None
    if RETRACTION.search(region[chosen[-1][1] :]):
        return None
    return ", ".join(_named_box(region, start, content) for start, _, content in chosen)


# --- answer phrases -------------------------------------------------------------------------

_ANSWER_PHRASE = re.compile(r"(?:final answer|answer)(?: (?:is|would be|will be|should be)(?![A-Za-z]))?"
                            r"(?: ?[:=])?", re.IGNORECASE)
EMPTY = "\x00empty"  # an answer line left empty: a statement of no answer
_OPENS_MATH = re.compile(r"[ *\n]{0,6}(?:\$|\\\(|\\\[|\\boxed)")


# class yes-no-with-justification: a yes or no that opens its justification ("Yes, the sequence is bounded,
# because ...", "**No**. The inequality fails for n = 7", "No, it is not possible, since ..."); never "No, wait".
_YES_NO_OPENING = re.compile(r"(?:\*\*)?(yes|no)(?:\*\*)?(?:[,.;:!—]|\*\*|$)(?! ?(?:wait|actually|hmm|let)\b)",
                             re.IGNORECASE)


def yes_no_opening(region: str) -> Statement | None:
    """The yes or no that opens the final paragraph (the statement-less path only)."""
    paragraphs = [p for p in region.rstrip()[-1500:].split("\n\n") if p.strip()]
    if not paragraphs:
        return None
    m = _YES_NO_OPENING.match(paragraphs[-1].strip())
    return Statement(m.group(1), "yes-no-opening", len(region)) if m else None


def _phrase_value(rest: str) -> str | None:
    """The answer stated right after an answer phrase: its math block(s), else words to the sentence end."""
    following = rest[:800].lstrip(" *\n")
    block = math_blocks(following)
    if block and block[0][0] == 0 and "\n" in following[: block[0][1]]:  # "is\n\\[\n\\begin{pmatrix}...\n\\]"
        return block[0][2] or None
    if len(rest) <= 600 and _TRUNCATED_END.search(rest.rstrip()) and not math_blocks(rest):
        return None  # class truncated-after-phrase: "The answer is therefore $\\frac{14}{" was cut off
    lines = rest[:600].split("\n")
    segment = lines[0].strip().strip("*").strip()
    if not segment and len(lines) > 1:
        segment = next((line.strip() for line in lines[1:] if line.strip()), "")
        if re.match(r"[A-Z][A-Za-z ]{2,20}:", segment):
            return EMPTY  # class empty-answer-line: "Answer:\nConfidence: 10%" states no answer
    if not segment:
        return None
    yes_no = _YES_NO_OPENING.match(segment)
    if yes_no:  # class yes-no-with-justification: "the answer is yes, because $f$ is even"
        return yes_no.group(1)
    if "\\boxed" in segment or "\\fbox" in segment:
        boxes = boxes_with_positions(segment)
        if boxes:
            return boxes[-1][2].strip() or None
        return None  # class truncated-box: "the final answer is \\boxed{14" was cut off inside its box
    blocks = math_blocks(segment)
    if blocks and not segment[: blocks[0][0]].strip(" *:"):
        return joined_math(segment, from_start=True)  # "is $28\\%$."
    listed = named_value_list(re.split(r"(?<=[.!?]) (?=[A-Z])", segment)[0])
    if listed:  # class named-value-list: "Answer: x = 2, y = 3" answers both values, not "y = 3"
        return listed
    expression = opening_expression(segment)
    if expression:  # class glued-number: "The answer is x^2, as required." is x^2, never its 2
        return expression
    stated = _value_ending(re.split(r"(?<=[.!?]) (?=[A-Z])", segment)[0], concluding=True)
    if stated:  # "Answer: The smallest value of \\(n\\) ... is \\(n = 10\\)."
        return stated
    value = joined_math(segment, from_start=True)
    if value is not None:
        return value
    segment = re.split(r"\.\s|\.$", segment)[0]
    return clean_span(segment) or None


def opening_expression(segment: str) -> str | None:
    """class glued-number: the plain-text expression that opens an answer phrase's value ("x^2, as required",
    "n(n+1)/2", "5!."), when only the sentence end or a clause that qualifies it follows."""
    opening = leading_expression(segment)
    if opening is None:
        return None
    end, expression = opening
    rest = segment[end:]
    if not rest.strip(" .*") or re.match(r"\.(?: |$)", rest) or _TRAILING_CLAUSE.match(rest) or _PROSE_TAIL.match(rest):
        return expression
    return None


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


# class hedged-statement: a value the sentence itself doubts or rejects is not its answer ("It is tempting
# to say the answer is 6, but that ignores overlaps", "Thus $x = 7$ is a candidate, but it fails ...").
# Only words that doubt the writer's own value: problem words ("the candidates", "could be arranged",
# "incorrect answers") are never hedges.
_HEDGED = re.compile(r"\b(?:tempting|mistakenly|naively|suppose|supposing|my (?:first )?guess|at first glance|perhaps|maybe"
                     r"|I'm not sure|not sure|I guess"
                     r"|(?:is|are|as) (?:a |one )?(?:possible |potential )?candidates?)\b", re.IGNORECASE)


_FORM_OF_ANSWER = re.compile(r"(?:an?|in|expressed|rounded|given|written|as|one of|the form|a whole|your)\b", re.IGNORECASE)


def last_answer_phrase(region: str) -> Statement | None:
    """The value after the last answer phrase in the final window."""
    tail = math_safe_tail(region, WINDOW)
    offset = len(region) - len(tail)
    lower = tail.lower()
    positions, at = [], lower.find("answer")
    while at != -1:  # str.find is far cheaper than a case-insensitive regex scan of the whole window
        positions.append(at - 6 if lower[max(0, at - 6) : at] == "final " else at)
        at = lower.find("answer", at + 6)
    matches = [m for m in (_ANSWER_PHRASE.match(tail, p) for p in positions) if m and not (m.start() and tail[m.start() - 1].isalpha())]
    for m in reversed(matches):
        stated = m.group(0).lower().rstrip()
        # class answer-heading: "**Final Answer**", "## Answer", "#### Answer" alone on a line, the value below it
        alone = not tail[tail.rfind("\n", 0, m.start()) + 1 : m.start()].strip(" #*>-_")
        heading = (stated.startswith("final") or alone) and re.match(r"[*: ]{0,6}\n", tail[m.end() : m.end() + 8])
        committed = stated.endswith((":", "=", " is", " be")) or _OPENS_MATH.match(tail, m.end()) or heading
        if not committed:
            continue
        start = max(tail.rfind(". ", 0, m.start()), tail.rfind("? ", 0, m.start()), tail.rfind("! ", 0, m.start()),
                    tail.rfind("\n", 0, m.start()), -1) + 1
        end = re.search(r"[.!?](?: |$)|\n|$", tail[m.end() :]).start() + m.end()
        if _HEDGED.search(tail[start : m.start()]) or re.search(r", but\b", tail[m.end() : end]):
            continue  # class hedged-statement: "It is tempting to say the answer is 6, but ..."
        if tail[end : end + 1] == "?" or re.match(r"[\s*:]*(?:not|never|cannot)\b", tail[m.end() : m.end() + 12]):
            continue  # class asked-or-negated: "Is the answer \\boxed{5}?", "the answer is not 5"
        value = _phrase_value(tail[m.end() :])
        if heading and not stated.startswith("final") and value and not _valueish(value) and value.count(" ") >= 4:
            continue  # "## Answer\n\nTo solve this, we ..." heads an explanation, not a value
        if value and not _valueish(value) and _FORM_OF_ANSWER.match(value):
            continue  # class format-instruction: "The answer should be an integer." (an echoed prompt) states no value
        if value == EMPTY:
            return Statement("", "empty-answer-line", offset + m.start())
        return Statement(value, "answer-phrase", offset + m.start(), offset + end) if value else None
    return None


# class answer-phrase-language: the answer phrase in the languages models most often answer in ("La respuesta es 7.",
# "Die Antwort ist 7.", "Réponse : 7", "答案是 7。", "答えは 7 です。", "답은 7 입니다.", "Ответ: 7"); committed only with
# a copula or a colon, and its value is the math block, box or number that opens what follows.
FOREIGN_ANSWER = (r"(?:respuesta|réponse|antwort|risposta|resposta|antwoord|odpowiedź|cevap|jawaban|ответ"
                  r"|最终答案|正确答案|答案|答え|正解|정답|답)")
_FOREIGN_PHRASE = re.compile(
    rf"{FOREIGN_ANSWER}(?: (?:final|finale|correcta|correcte|correta|corretta|richtige|endgültige))?"
    r"(?: ?(?:es|est|ist|lautet|è|é|is|будет)\b(?: (?:la|le|die|a|de))?| ?[:：=]| ?(?:是|为|為|は|은|는|:))",
    re.IGNORECASE)
_FOREIGN_ASCII_WORDS = ("respuesta", "antwort", "risposta", "resposta", "antwoord", "cevap", "jawaban")
_LEADING_VALUE = re.compile(r" ?\*{0,2} ?(-?\d[\d,]*(?:\.\d+)?(?:/\d+)?%?)(?![\d.,]?\d)")


def has_foreign_answer_word(text: str) -> bool:
    """A cheap test before the case-insensitive scan for another language's answer phrase (the costly part)."""
    if not text.isascii():
        return True
    lower = text.lower()
    return any(word in lower for word in _FOREIGN_ASCII_WORDS)


def foreign_answer_phrase(region: str) -> Statement | None:
    """The value after the last answer phrase written in another language."""
    tail = region[-WINDOW:]
    if not has_foreign_answer_word(tail):
        return None
    last = None
    for last in _FOREIGN_PHRASE.finditer(tail):
        pass
    if last is None:
        return None
    rest = tail[last.end() :]
    start = len(region) - len(tail) + last.start()
    end = start + (last.end() - last.start()) + len(rest.split("\n", 1)[0])
    if _OPENS_MATH.match(rest) or rest.lstrip(" *").startswith("\\boxed"):
        value = _phrase_value(rest)
    else:  # class glued-number: "La respuesta es 3x." opens with an expression, never the value 3
        number = _LEADING_VALUE.match(rest)
        value = opening_expression(rest.lstrip(" *")) or (
            number.group(1) if number and standalone(rest, number.start(1), number.end(1)) else None)
    return Statement(value, "answer-phrase", start, end) if value else None


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


def marker_statement(region: str) -> Statement | None:
    value = gsm8k_final(region[-WINDOW:])
    if not value:
        return None
    start = region.rfind("####")
    line_end = region.find("\n", start)
    return Statement(value, "####", start, line_end if line_end != -1 else len(region))


# --- conclusions ----------------------------------------------------------------------------

# class concluding-opener: the words that open a conclusion, including the plain ones models use ("That means Sam
# pays 45 dollars altogether.", "We conclude that ...", "In the end, ...", "All in all, ...", "As a result, ...")
_CONCLUDING = re.compile(r"^(?:\*\*)?(?:(?:hmm+|oh|ah|ok|okay|well|alright)[,.!]* )?(?:Therefore|Thus|Hence|So|In conclusion"
                         r"|Finally|Consequently|Conclusion|(?:This|That|Which) means|We (?:can )?conclude|In the end"
                         r"|All in all|Altogether|Overall|In summary|To summarize|To sum up|As a result|Ultimately)\b",
                         re.IGNORECASE)
_FILLERS = (r"approximately|about|exactly|roughly|around|precisely|simply|just|then|thus|therefore|now|also|"
            r"indeed|still|equal to|given by|found to be|the following")
_COPULA_AT_END = re.compile(rf"(?:\b(?:is|are|was|were|equals|be|becomes|gives|yields|get|gets|obtain|it's|remains"
                            rf"|measures|totals|lands on|falls on|(?:find|finds|found|conclude|see|have) that"
                            rf"|(?:works?|comes?) (?:out )?to|amounts? to|adds? up to)"
                            rf"|=|:|\\approx)(?: (?:{_FILLERS}))*[ ,:]*$", re.IGNORECASE)
# "17 is the answer.", "The perimeter, 34 cm, is what we wanted" (the value, a unit word at most, then the claim)
_NUMBER_IS_ANSWER = re.compile(r"(?:^|[,:] |^(?:so|thus|hence|therefore),? )(-?\d[\d,]*(?:\.\d+)?)(?=(?: [a-z]{1,8}){0,2},? ?(?:is|are) "
                               r"(?:(?:the|our) (?:final |only )?(?:answer|solution|result)s?\b"
                               r"|what (?:we|the question|the problem) (?:wanted|want|needed|need|asked|asks|are looking for)))",
                               re.IGNORECASE)
_VALUE_IS_ANSWER = re.compile(r"^ ?,? ?(?:is|are) (?:the|our) (?:final |only )?(?:answer|solution|result)s?\b",
                              re.IGNORECASE)
_NUMBER_TEXT = r"-?\$?(?:\d{1,3}(?: \d{3})+(?!\d)(?:\.\d+)?|\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?%?"
_LEADING_NUMBER = re.compile(_NUMBER_TEXT)
_UNIT_TAIL = re.compile(r"^(?: ?[A-Za-z][A-Za-z.\-]{0,15}){0,3} ?$")
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|isn't|aren't|doesn't|don't|nor)\b|n't\b", re.IGNORECASE)
_COURTESY = re.compile(r"hope|let me know|feel free|thank|glad|happy to help|good luck|cheers", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]}$*][.!?])(?<!i\.e\.)(?<!e\.g\.)(?<!etc\.)(?<!vs\.) (?=[A-Z\\$*(])|(?<=\$\$) (?=[A-Z])|(?<=\\\]) (?=[A-Z])|\n")


def _sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


def _outside_math(s: str, blocks: list[tuple[int, int, str]]) -> str:
    """The text of `s` with its math blocks blanked out."""
    pieces, at = [], 0
    for start, end, _ in blocks:
        pieces.append(s[at:start])
        at = end
    return " ".join([*pieces, s[at:]])


def _value_ending(sentence: str, concluding: bool) -> str | None:
    """The value a sentence ends with after a copula (`... is \\(108\\) cubic units.`), or None; a date that
    ends the sentence is read whole."""
    value = _value_ending_of(sentence, concluding)
    if value:  # class date-after-phrase (kleval.verify.dates): "lands on June 9." is the date, not its day 9
        return trailing_date(sentence.replace("**", "").strip(), value) or value
    return value


def _value_ending_of(sentence: str, concluding: bool) -> str | None:
    """The value a sentence ends with, its day only when it ends in a date (`_value_ending` reads the date)."""
    bold = re.search(r"\*\*([^*]{1,60})\*\*$", sentence.strip().rstrip(".!"))
    if bold and bold.group(1).strip():  # class bold-at-end: "... lands on **Monday**."
        return bold.group(1).strip()
    s = drop_restatement(sentence.strip().rstrip(".!").replace("**", "").strip())  # class two-formats
    blocks = math_blocks(s)
    number_is_answer = _NUMBER_IS_ANSWER.search(s)
    if number_is_answer:
        return number_is_answer.group(1)
    for start, end, content in blocks:  # "Therefore $x \ge 5$ is the solution"
        if _VALUE_IS_ANSWER.match(s[end:]):
            return content
    if blocks and _UNIT_TAIL.match(s[blocks[-1][1] :]):
        value = joined_math(s, from_start=False)
        first_start = blocks[-1][0]
        for block in reversed(blocks[:-1]):  # where the joined group starts
            if is_joiner(s[block[1] : first_start]):
                first_start = block[0]
            else:
                break
        if value and _COPULA_AT_END.search(s[:first_start]):
            return value
        if value and concluding and re.search(r"(?<![<>!\\])=", blocks[-1][2]) \
                and not _TRAILING_CLAUSE.search(s[: blocks[-1][0]]):  # never "..., occurring when $b = 9$"
            return re.split(r"(?<![<>!\\])=", blocks[-1][2])[-1].strip() or None  # "Thus, \(AB = AC = 6\sqrt{2}\)"
    if not blocks or blocks[-1][1] < len(s):
        # class glued-number (kleval.verify.glued): a sentence that ends in plain-text math ("Thus the answer is
        # x^2.", "So the area is 3*pi.") states the whole expression after a copula (or as a named value in a
        # conclusion, "Therefore x = y^2."), and otherwise no value; never one of its glued numbers
        plain = drop_restatement(sentence.strip().replace("**", "").strip())  # a factorial's `!` kept
        ending = trailing_expression(plain)
        if ending is not None:
            start, expression = ending
            before = plain[:start]
            opener = _CONCLUDING.match(before)
            if _COPULA_AT_END.search(before) or (concluding and opener and not before[opener.end() :].strip(" ,")
                                                 and re.search(r"(?<![<>!=])=(?!=)", expression)):
                return expression
            return None
    if concluding and not _NEGATION.search(s):  # "Therefore, Lara read 128 pages on the first day.": one value
        outside = _outside_math(s, blocks)  # never split at an escaped dollar ("$\\$18$")
        found = [m for m in _LEADING_NUMBER.finditer(outside)  # (a unit's power, `12 cm^2`, is no number)
                 if re.search(r"\d", m.group(0)) and not unit_power(outside, m.start(), m.end())]
        numbers = [m.group(0) for m in found]
        if len(blocks) == 1 and not numbers and re.search(r"\d", blocks[0][2]) and "=" not in blocks[0][2]:
            return blocks[0][2]
        if not blocks and len(numbers) == 1 and not _is_bound(outside, numbers[0]) \
                and standalone(outside, found[0].start(), found[0].end()):  # class glued-number: never the 2 of x^2
            return numbers[0]
    listed = list_after_copula(s) if not blocks else None
    if listed:  # class list-after-copula: "The primes are 2, 3, 5 and 7."
        return listed
    # class verb-of-value: the verbs that state a value before a math block state it before a plain number too
    # ("... add up to 720°", "sum to 540°", "measures 90°", "The bill comes to 1200 dollars."); a degree sign is a unit
    copula = (r"(?:\b(?:is|are|was|equals|be|it's|becomes|remains|measures|totals|adds? up to|sums? to"
              r"|(?:works?|comes?) (?:out )?to|amounts? to)|(?<![<>!\\])=|:) (?:(?:" + _FILLERS + r") )*")
    number = re.search(copula + "(" + _NUMBER_TEXT + r"(?: ?(?:percent|pct)\b)?)(?:[ ]?[A-Za-z²³°][A-Za-z.²³°\-]{0,15}){0,3}$",
                       s, re.IGNORECASE)
    if number:  # "is 25 square units", "= 80", "is 1 000 dollars", "is 5 percent" (the percent kept: a hundredth)
        return number.group(1)
    word = re.search(r"\b(?:is|are) (?:(?:" + _FILLERS + r") )*([A-Za-z][a-z\-]{1,20})$", s, re.IGNORECASE)
    if word:
        return word.group(1)  # a word answer: "so the function is even."
    return None


# class mid-sentence-value: the value ends the main clause and a trailing clause follows it ("the maximum
# is **13**, occurring when ...", "Thus, \\( E(7, 3) = 3 \\), as demonstrated above", "the solution is
# \\(f(n) = n\\) for all positive integers \\(n\\)"). Only clauses that qualify a value, never one that
# could state another value ("giving a total of 5", "and 6 if n is even").
_TRAILING_CLAUSE = re.compile(
    r", ?(?:which|where|when|whenever|since|because|as|occurring|attained|achieved|reached|confirming|ensuring"
    r"|demonstrating|satisfying|assuming|given|provided|according|consistent|in line|in agreement|so that"
    r"|in which|at which|with|not|namely|i\.e(?=\.)|that is|specifically|e\.g(?=\.)|for example|of which"
    r"|(?:or )?(?:about|approximately|roughly|around|nearly|almost|equivalently))\b"
    r"| \((?:about|approximately|roughly|around|nearly|almost|≈|~|i\.e\.)"
    r"| (?:for (?:all|every|any|each)|as (?:demonstrated|shown|required|expected|desired|computed|calculated"
    r"|derived|found|claimed|stated))\b", re.IGNORECASE)
# class concluding-clause: a sentence whose last clause concludes ("Its value becomes $.72x$, so it keeps a
# fraction .72 of its value.", "..., so she has 7 apples left, which is ...").
_CONCLUDING_CLAUSE = re.compile(r"[,;] (?:and )?(?:so|thus|hence|therefore|consequently)\b,? ?", re.IGNORECASE)


# class prose-tail: a trailing comma phrase with no value of its own cannot state the answer, the value before
# it does ("the probability is $\\frac{5}{12}$, slightly less than one half", "= 24$ in all, counting each pair
# once"): a comma followed by two or more words and no digit or math up to the sentence end.
# A phrase, not a clause: no verb of its own and no bold value ("..., the skater is facing **west**").
_PROSE_TAIL = re.compile(r", (?=[A-Za-z][A-Za-z'\-]* [A-Za-z](?:(?!\b(?:is|are|was|were|be|has|have|had|equals?)\b)[^\d$\\*])*$)",
                         re.IGNORECASE)


def _math_balanced(head: str) -> bool:
    return head.count("$") % 2 == 0 and head.count("\\(") == head.count("\\)") and head.count("**") % 2 == 0


_COORDINATE = re.compile(r"[,;] (?:and|while|whereas|but) (?!so\b|thus\b|hence\b|therefore\b)", re.IGNORECASE)


def _main_clause_value(s: str, concluding: bool) -> str | None:
    """The value ending the sentence's main clause, before a trailing clause that qualifies it."""
    whole = _value_ending(s, concluding)
    for m in _COORDINATE.finditer(s):  # class two-values: "The smallest solution is $A$, and the next one is $B$."
        if whole and s.rfind(whole) > m.start() and _math_balanced(s[: m.start()]) and _value_ending(s[: m.start()], False):
            return None  # two coordinated statements of value: which one answers is a guess
    reason = justification_start(s)
    if whole and reason is not None and s.rfind(whole) > reason and _math_balanced(s[:reason]):
        # class justification-clause: a value inside the reason ("He needs 7 buses because ... there are 260
        # students.", "x = 5 since 2x = 10") is not the one stated; the main clause's own value, if any, is
        return _value_ending(s[:reason], concluding)
    if whole and not re.fullmatch(r"[A-Za-z\-]+", whole):
        return whole
    clauses = list(_TRAILING_CLAUSE.finditer(s)) + list(_PROSE_TAIL.finditer(s))
    for m in clauses:  # a word ending the trailing clause ("when $y$ is minimal") is not it
        head = s[: m.start()]
        if re.search(r"\d|\$|\\\(", head) and _math_balanced(head):
            value = _value_ending(head, concluding)
            if value:
                return value
    # class word-in-trailing-clause: "There are 14 squares ..., because each corner ... is excluded" does not
    # answer "excluded"; the word ends a clause that qualifies the main one
    return None if clauses and whole else whole


# class bound-not-value: a value stated as a bound ("at least 100 people attended", "4 or more colors are
# needed") is not the value the question asks for; a sentence that states only a bound is not read.
_BOUND_BEFORE = re.compile(r"\b(?:at least|at most|more than|less than|fewer than|greater than|no more than|no less than"
                           r"|up to|over|under|below|above) ?$", re.IGNORECASE)
_BOUND_AFTER = re.compile(r"^[^\w]{0,3}(?:[A-Za-z]+ )?(?:or (?:more|fewer|less|greater|above|below|higher|lower|so)|and (?:above|up|more)"
                          r"|\+)", re.IGNORECASE)


def _is_bound(text: str, number: str) -> bool:
    """Whether the one number of `text` is written as a bound (`at least 100`, `4 or more`)."""
    at = text.find(number)
    return at != -1 and bool(_BOUND_BEFORE.search(text[:at]) or _BOUND_AFTER.match(text[at + len(number) :]))


# class subject-value: a concluding sentence whose value is its subject, right after the concluding word
# ("Therefore, 20 workers are needed to finish in 4 hours.", "Hence $7$ boxes are required ...", "Thus, 6 is
# the smallest such number greater than 5."): the value, up to three words, then a verb. Never with a
# negation ("Thus 5 is not a solution") and never an expression ("So 2 + 3 ...": a word must follow).
_SUBJECT_VALUE = re.compile(
    r"^(?:\*\*)?(?:Therefore|Thus|Hence|So|In conclusion|Finally|Consequently)\b,? (?:a total of |exactly |only )?"
    r"(?:(" + _NUMBER_TEXT + r")|\$([^$]{1,40})\$|\\\(([^$]{1,40}?)\\\))"
    r"(?: [A-Za-z][a-z\-]{0,20}){0,3} (?:is|are|was|were|will|would|can|must|should|remain|remains|did|do|does"
    r"|have|has|had|satisfy|satisfies|fit|fits|exist|exists|[a-z]{2,}ed)\b", re.IGNORECASE)


# a later part of the sentence that states a value of its own ("Thus 2 pairs were counted twice, giving a
# total of 10"): the subject is then not the answer
_STATES_ANOTHER = re.compile(r"\b(?:giving|making|gives|makes|resulting|leaving|leaves|so|thus|hence|therefore|total"
                             r"|which|equals?|is|are)\b|=", re.IGNORECASE)
# a later clause that states a value of its own ("Thus 2 pairs were counted twice, giving a total of 10"): the
# main clause's number is then not the answer
_RESTATES = re.compile(r"[,;] (?:\w+ ){0,2}?(?:giving|making|resulting|leaving|so|thus|hence|therefore|(?<!of )which|for a total"
                       r"|totaling|totalling)\b|\btotal\b|=|\b(?:equals?|is|are|was|were)\b", re.IGNORECASE)


def _numbers_only(s: str) -> str:
    """`s` with each math block that is one number written as that number and every other math block as `X`."""
    out, at = [], 0
    for start, end, content in math_blocks(s):
        number = re.fullmatch(r"\\?\$?(-?\d[\d,]*(?:\.\d+)?)", content.strip())
        out.extend([s[at:start], number.group(1) if number else "X"])
        at = end
    return "".join([*out, s[at:]])


def _sentence_value(sentence: str, concluding: bool) -> tuple[str | None, bool]:
    """(value, concluding) a candidate sentence states: the whole sentence, its main clause, or its last
    concluding clause ("..., so it keeps .72 of its value")."""
    s = math_safe_tail(sentence, 600)
    value = _main_clause_value(s, concluding)
    if value:
        return value, concluding
    if concluding:
        subject = _SUBJECT_VALUE.match(s)
        if subject and not _NEGATION.search(s) and not _STATES_ANOTHER.search(s[subject.end() :]):
            group = next(i for i in (1, 2, 3) if subject.group(i))
            value = subject.group(group)
            if re.search(r"\d", value) and "=" not in value and not _BOUND_AFTER.match(s[subject.end(group) :]):
                return clean_span(value), True
    clauses = [m for m in _CONCLUDING_CLAUSE.finditer(s) if _math_balanced(s[: m.start()])]
    if clauses:
        value = _main_clause_value(s[clauses[-1].end() :], True)
        if value:
            return value, True
    total = _stated_total(s) if concluding else None
    if total is not None and not _negated(s, total.group(0)) and _total_stands(s[total.end() :]):
        # class total-statement: "..., 30 miles in total." (never "7 in total and 9 otherwise")
        return (total.group(1) or total.group(2)).rstrip(","), True
    if concluding:  # class mid-sentence-value: "So Tom has 9 marbles left after giving 6 to Anna and 5 to Ben."
        plain = _numbers_only(s)  # math that is one number stays it; other math holds no number ($\\sqrt{41}$ is no 41)
        main = main_clause_number(plain)
        if main and not _is_bound(plain, main) and not _RESTATES.search(plain[plain.find(main) + len(main) :]):
            return main, True
    restated = restated_value(s)  # class ie-restatement: "All integers n with 1 ≤ n ≤ 4, i.e. {1, 2, 3, 4}."
    if restated:
        return restated, concluding
    return None, concluding


def _is_closing_remark(sentence: str) -> bool:
    """A closing sentence without any number: its math, if any, only names variables ("... for all \\(x\\)
    and \\(y\\) ...", "given fixed \\(A\\) and \\(B\\)")."""
    if re.search(r"\d|\\\[", sentence):
        return False
    return all(len(content) <= 3 for _, _, content in math_blocks(sentence))


# class forward-step: a concluding word that opens the next step is no conclusion ("So far we have 60.", "This means
# we need to check 10 pairs.", "So let's ...", "So now ...")
_FORWARD = re.compile(r"^\W{0,4}(?:so|thus|this means|that means|hence|therefore),? (?:far\b|now\b|next\b|let(?:'s| us)\b"
                      r"|we (?:need|have|want|are going|still need) to\b|we (?:must|will|should) (?!be\b|have\b)[a-z]+)",
                      re.IGNORECASE)
_TOTAL = re.compile(r"\b(?:a|the) total of\b|\bin total\b|\baltogether\b|\bin all\b", re.IGNORECASE)


def _committed_sentences(paragraph: str) -> list[str]:
    """The sentences of a paragraph without the closing courtesy, verification lines and asides."""
    # "... is:\n\\[ x^2 + y^2 = 13 \\]" states its value on the next line
    paragraph = re.sub(r"((?:\b(?:is|are)|=|:) ?)\n", r"\1 ", paragraph)
    sentences = _sentences(paragraph)
    while sentences and _COURTESY.search(sentences[-1]) and not re.search(r"\d|\$|\\\(", sentences[-1]):
        sentences.pop()
    while sentences and is_aside(sentences[-1]):
        sentences.pop()  # class verification-line, class aside-after-answer
    return sentences


def _negated(sentence: str, value: str) -> bool:
    """Whether the clause that states `value` negates it ("the value cannot be 5"; not "since 4 is not prime, ...")."""
    at = sentence.rfind(value)
    if at == -1:
        return False
    clause = re.split(r"[,;:\d$]", sentence[:at])[-1]  # a negation before another value is that value's ("not 10, it's 12")
    return bool(_NEGATION.search(clause))


def conclusion(region: str) -> Statement | None:
    """A concluding sentence of the final paragraph, or a final sentence ending in a stated value. A final
    paragraph of asides only ("For comparison, ...", "Note: ...") is skipped for the one before it."""
    tail = math_safe_tail(region.rstrip(), 1600)
    paragraphs = [p for p in tail.split("\n\n") if p.strip()]
    if not paragraphs:
        return None
    # each paragraph is read in its final 800 characters (a conclusion closes its paragraph)
    paragraphs = [math_safe_tail(p, 800) for p in paragraphs[-3:]]
    paragraph, sentences = paragraphs[-1], _committed_sentences(paragraphs[-1])
    for earlier in reversed(paragraphs[:-1]):
        if sentences:
            break
        paragraph, sentences = earlier, _committed_sentences(earlier)
    if not sentences:  # nothing but asides: the last one is read as before (a lone "Check: 7 x 6 = 42" line)
        paragraph = paragraphs[-1]
        sentences = _sentences(re.sub(r"((?:\b(?:is|are)|=|:) ?)\n", r"\1 ", paragraph))[-1:]
    offset = len(region) - len(tail) + tail.rfind(paragraph)
    final = len(sentences) - 1
    while final > 0 and len(sentences) - final <= 2 and _is_closing_remark(sentences[final]) \
            and _sentence_value(sentences[final], False)[0] is None:
        final -= 1  # a closing remark without any value ("This covers all steps ...")
    for index in range(final, -1, -1):
        sentence = sentences[index]
        # class total-statement: a final sentence that states a total concludes ("... gives us a total of 45 dollars")
        concluding = bool(_CONCLUDING.match(sentence) or (index == final and _TOTAL.search(sentence))) \
            and not _FORWARD.match(sentence)
        if not concluding and index != final:
            if RETRACTION.search(sentence):
                break  # class retracted-statement: what came before "Wait, the side is not 6" is withdrawn
            continue
        if _HEDGED.search(sentence) or sentence.rstrip("*$) ").endswith("?"):
            break  # class hedged-statement: the closing candidate is doubted or asked, no earlier one is read instead
        value, concluding = _sentence_value(sentence, concluding)
        if value and _negated(sentence, value):
            break  # class negated-statement: "Thus the value cannot be 5."
        if value and sentence.rfind(value) != -1 and re.search(r", but\b", sentence[sentence.rfind(value) :]):
            break  # "..., but it fails the original equation" ("I got 12, but ..., so the count is 11" stays 11)
        if value and not concluding and index < len(sentences) - 1 and re.fullmatch(r"[A-Za-z\-]+", value):
            value = None  # a word ("... is valuable.") before skipped remarks is prose, not a worded answer
        if value:
            return Statement(clean_span(value), "conclusion-sentence" if concluding else "final-statement", offset)
        if RETRACTION.search(sentence):
            break
    return None


def bold_final_line(region: str) -> Statement | None:
    """A markdown-bold answer that is the whole last non-empty line (e.g. `**42**`)."""
    lines = [line.strip() for line in region.rstrip()[-400:].split("\n") if line.strip()]
    if not lines:
        return None
    m = re.fullmatch(r"\*\*([^*]{1,200})\*\*\.?", lines[-1])
    if m is None:
        return None
    content = clean_span(m.group(1))
    if len(_PROSE_WORD.findall(_outside_math(content, math_blocks(content)))) >= 3 and not _HEDGED.search(content):
        # class bold-final-sentence: a bold closing sentence ("**The price increased by 15%.**") states its value
        # as a concluding sentence does; without one value the bold text stays the (worded) answer
        value, _ = _sentence_value(content, True)
        if value and not _negated(content, value):
            return Statement(clean_span(value), "bold-final-sentence", len(region))
    return Statement(content, "bold-final-line", len(region))


_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_UNIT_OR_PERCENT = {"percent", "percentage", "pct", "cm", "mm", "km", "m", "kg", "g", "units", "degrees", "dollars",
                    "cents", "meters", "miles", "hours", "minutes", "seconds", "days", "feet", "inches", "sqrt", "pi",
                    "frac", "sin", "cos", "tan", "log", "ln", "exp", "cot", "sec", "csc", "arcsin", "arccos", "arctan"}


_GLUED_CONNECTIVE = re.compile(r"(?<=[\d)}])(or|and)(?=[A-Za-z] ?[(=])")


def bare_answer(region: str) -> Statement | None:
    """The whole (short) completion when it is an expression, a math block or a short phrase."""
    text = region.strip()
    if not text or len(text) > BARE_MAX_CHARS or text.count("\n") > 2:
        return None
    blocks = math_blocks(text)
    if blocks and (_HEDGED.search(text) or re.search(r", but\b", text) or _NEGATION.search(text)):
        return None  # class hedged-statement: "Thus $x = 7$ is a candidate, but it fails ...", "the answer isn't $5$"
    if blocks and (worded := reason_then_word(text, blocks[-1][1])):  # class since-clause-conclusion (kleval.verify.clauses)
        return Statement(worded, "bare-phrase", 0)
    if blocks:
        outside = text[: blocks[0][0]] + " " + text[blocks[-1][1] :]
        joined = all(is_joiner(text[a[1] : b[0]]) for a, b in itertools.pairwise(blocks))
        if not re.search(r"\d", outside) and len(_PROSE_WORD.findall(outside)) <= 12 and joined:
            value = joined_math(text, from_start=False)
            return Statement(value, "bare-math", 0) if value else None
        return None  # class bare-math-with-prose: blocks with prose between them are a sentence, not an answer
    # class glued-connective: whitespace-stripped "W(x)=1orW(x)=-1" is "W(x)=1 or W(x)=-1"
    text = _GLUED_CONNECTIVE.sub(r" \1 ", text)
    words = [w for w in _PROSE_WORD.findall(text) if w.lower() not in _UNIT_OR_PERCENT]
    if not words or (set(map(str.lower, words)) <= {"or", "and"} and re.search(r"[\d=]", text)):
        # an expression: "1 000", ".4", "\\frac{10}{9}", "28 percent", "x=1 or x=-1"
        return Statement(clean_span(text), "bare-answer", 0)
    if len(words) <= 4 and not re.search(r"[\d=]", text):  # a short word answer: "Evelyn", "even"
        return Statement(clean_span(text), "bare-phrase", 0)
    return None


# class truncated-mid-clause: a text that stops on a copula, article or preposition was cut off
_TRUNCATED_END = re.compile(r"(?:\\boxed|\\fbox) ?\{[^}]{0,150}$|[{(\[\\=+\-/^_,;:]$"
                            r"|\b(?:is|are|was|were|be|equals|of|the|an?|to|by|and|or|then|gives|that)$")


def _valueish(span: str) -> bool:
    return bool(re.search(r"\d|\\", span))


def _after_retraction(region: str, statement: Statement) -> Statement | None:
    """What a completion commits to after retracting `statement`: the later conclusion, the statement itself
    when the recheck ends by confirming it, or an empty statement (no answer) when neither."""
    after = region[statement.end :] if statement.end >= 0 else ""
    closing = " ".join(_sentences(after.rstrip()[-400:])[-2:])
    if confirms(closing):  # class confirmed-statement: "Wait, let me double-check ... Yes, that matches."
        return statement
    later = conclusion(after)
    if later is not None and _restates(later.span, statement.span):
        return statement  # "Actually, let me double check: $4 \\times 3 = 12$." restates the boxed 12
    if later is not None and (_valueish(later.span) or not _valueish(statement.span)):
        return Statement(later.span, f"{later.how} (after a retracted {statement.how})", statement.end)
    if not WITHDRAWAL.search(after):
        return statement  # only a doubt ("Hmm, interesting"), and no new value: the statement stands
    return Statement("", f"retracted-{statement.how}", statement.end)


def _restates(later: str, stated: str) -> bool:
    """Whether a later value is the stated one, or a computation ending in it (`4 \\times 3 = 12` for 12)."""
    later, stated = later.replace(" ", ""), stated.replace(" ", "")
    return later == stated or later.endswith("=" + stated)


def find_math_answer(text: str) -> tuple[str | None, str]:
    """The final-answer span of a math completion and how it was found."""
    region = answer_region(text)
    if not region.strip() and unclosed_think(compact_whitespace(text)):
        return None, "the completion stops inside <think> (truncated reasoning); no final answer"
    if not region.strip() and "</think>" in text:
        return None, "nothing follows </think>: the completion stopped before its answer section"
    cut_off = cut_off_in_statement(region)
    if cut_off:  # class truncated-statement: an earlier box is not what a cut-off final statement commits to
        return None, cut_off
    box = last_box_group(region)
    phrase = last_answer_phrase(region)
    statements = [s for s in (box, phrase, closing_a_line(region), marker_statement(region), answer_tag(region),
                              foreign_answer_phrase(region)) if s]
    if statements:
        last = max(statements, key=lambda s: s.start)
        if last is not box and box is not None and not _valueish(last.span):
            last = box  # words after an answer phrase ("the answer is correct") never retract a box
        if last.end >= 0 and RETRACTION.search(region[last.end :]):
            # class retracted-statement: "\boxed{20}? Wait, ... Therefore, the total is 24."
            last = _after_retraction(region, last)
            if not last.span:
                return None, f"the {last.how[10:]} answer is retracted later and no new answer is stated"
        if not last.span:
            return None, "the answer line is empty (no answer stated)"
        return drop_restatement(last.span), last.how  # class two-formats: "3/4 (0.75)" answers 3/4
    if _TRUNCATED_END.search(region[-200:].rstrip()):
        return None, "the text stops inside a box or an expression (truncated); no committed answer"
    short = len(region.strip()) <= BARE_MAX_CHARS and "\n" not in region.strip()
    for finder in ((bare_answer, bold_final_line, yes_no_opening, conclusion) if short
                   else (bold_final_line, yes_no_opening, conclusion, bare_answer)):
        found = finder(region)
        if found is not None and found.span:
            return drop_restatement(found.span), found.how
    if short:  # class short-statement (kleval.verify.short_statement): "She has €45 left." states its one quantity
        value = short_statement(region)
        if value:
            return value, "short-statement"
    return None, "no boxed answer, answer phrase, A: line, ####, concluding sentence or bare answer"


# class ordinal-number: an ordinal is its number ("finished in 3rd place", "came 2nd out of 10"); the suffix is
# looked at, never taken into the value
_STANDALONE_NUMBER = re.compile(r"(?<![A-Za-z0-9.])-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:(?<=\d)(?=(?:st|nd|rd|th)(?![A-Za-z0-9]))|(?![A-Za-z0-9]))")


# class number-in-main-clause (kind number): the final line states its value in the main clause and a
# trailing phrase only restates the question's numbers ("Tom has $2.50 left after buying the notebook for
# $4.75.", "He travels 45 miles in 3 hours."). The main clause is the text before the first qualifying
# preposition or clause; it is read only when it holds exactly one number, the sentence does not open
# with a subordinate phrase ("After 3 days, she has 12"), and a concluding clause ("..., so she has 7
# left") is read first. Otherwise the last number of the line stands.
_QUALIFIER = re.compile(r" (?:after|before|for|from|in|out of|per|at|by|with|over|since|because|when|while|using"
                        r"|to|on|than|each|every|instead of|leaving)\b|, (?!which|where)", re.IGNORECASE)
# (a summing adverb such as "In total" / "In all" / "In the end" opens the main clause, not a subordinate phrase)
_SUBORDINATE_OPENING = re.compile(r"^\W*(?:after|before|for|from|in(?! (?:total|all|the end|sum)\b)|at|by|with|over"
                                  r"|since|because|when|while|if|once|using|of|on|to|per|during|without|until"
                                  r"|although|though|given)\b", re.IGNORECASE)


def _numbers(text: str) -> list[re.Match]:
    """The numbers of `text`, without the power of a unit (`12 cm^2`)."""
    return [m for m in _STANDALONE_NUMBER.finditer(text) if not unit_power(text, m.start(), m.end())]


def main_clause_number(line: str) -> str | None:
    """The one number of the final sentence's main clause when a trailing phrase holds the others."""
    sentences = _sentences(line)
    if not sentences:
        return None
    sentence = drop_appositive(sentences[-1])  # class appositive-phrase: "The bridge, opened in 1969, was 51 ..."
    clauses = [m for m in _CONCLUDING_CLAUSE.finditer(sentence)]
    if clauses:
        sentence = sentence[clauses[-1].end() :]
    found = _numbers(sentence.replace("$", " "))
    if len(found) < 2 or _SUBORDINATE_OPENING.match(sentence):
        return None
    first = found[0]
    split = _QUALIFIER.search(sentence, first.end()) if first else None  # "has to pay $45 for ...": after the number
    if split is None:
        return None
    head = sentence[: split.start()].replace("$", " ")
    numbers = _numbers(head)
    if len(numbers) != 1 or re.search(r"[=+*/×]|\\times|\\cdot", head) or _NEGATION.search(head):
        return None
    if not standalone(head, numbers[0].start(), numbers[0].end()):
        return None  # class glued-number: the one number of the main clause is part of an expression ("2^k")
    return numbers[0].group(0).rstrip(",")


_NO_COMMITMENT = re.compile(r"\b(?:cannot|can't|can ?not|unable to) (?:determine|decide|tell|say)\b|\bnot sure\b"
                            r"|\bno way to (?:know|tell)\b", re.IGNORECASE)
_TOTAL_NUMBER = re.compile(r"\b(?:a|the) total of \$?(\d[\d,]*(?:\.\d+)?)"
                           r"|(\d[\d,]*(?:\.\d+)?)(?: [A-Za-z]+){0,2},? (?:in )?total\b(?! of)", re.IGNORECASE)


def _stated_total(text: str) -> re.Match | None:
    """The first stated total of `text` ("a total of 45", "30 miles in total"), never a glued number ("a total
    of 2^n subsets", class glued-number)."""
    total = _TOTAL_NUMBER.search(text)
    if total is None:
        return None
    group = 1 if total.group(1) else 2
    return total if standalone(text, total.start(group), total.end(group)) else None


def _total_stands(rest: str) -> bool:
    """Whether the text after a stated total leaves it the answer: no other number, or only numbers inside a
    qualifying phrase ("... after giving away 2"), never an alternative ("7 in total and 9 otherwise")."""
    if not re.search(r"\d", rest):
        return True
    return bool(re.match(r"(?: [A-Za-z]+){0,3} (?:after|before|for|from|with|per|over|at|by|using|when|since)\b", rest)) \
        and not re.search(r"\b(?:and|or|otherwise|but|plus)\b", rest)


def find_number_answer(text: str) -> tuple[str | None, str]:
    """kind `number`: the math grammar, a number inside a worded span, then the last number of the final line."""
    span, how = find_math_answer(text)
    if span is None and how.startswith("the answer line is empty"):
        return None, how
    if span is not None and re.search(r"\d", span):
        if re.search(r"(?<![\\A-Za-z0-9])[A-Za-z]{3,}(?![A-Za-z0-9])", span) and last_number(span):
            bold = math_value_with_unit(span) or closing_bold_value(span, text[: max(0, text.rfind(span))])
            if bold is not None:
                return bold, how + "/bold-value-in-span"  # class bold-value-then-aside (kleval.verify.bold_value)
            main = main_clause_number(span)  # "The answer is 8 apples in 2 baskets." is 8
            return (main, how + "/main-clause-number-in-span") if main else (last_number(span), how + "/last-number-in-span")
        return span, how
    region = answer_region(text)
    lines = [line for line in region.rstrip()[-1000:].split("\n") if line.strip()]
    while len(lines) > 1 and is_aside(lines[-1]):  # class verification-line, class aside-after-answer
        lines.pop()
    if lines and (_HEDGED.search(lines[-1]) or _NO_COMMITMENT.search(lines[-1])):
        return None, "the final line declines to commit to a value (\"I'm not sure\"); its numbers are not a guess"
    bold = closing_bold_value(lines[-1], region[: max(0, region.rfind(lines[-1]))]) if lines else None
    if bold is not None:  # class bold-value-then-aside (kleval.verify.bold_value): "... left with **$55**. Not bad, ..."
        return bold, "bold-value-of-final-line"
    if lines:  # class justification-clause: "you can buy 6 pens, since 6 × 3 = 18." reasons after the value
        lines[-1] = drop_justification(lines[-1])  # (kleval.verify.clauses: also without a comma, "... because 13 is prime")
    total = _stated_total(lines[-1]) if lines else None
    if total is not None and _total_stands(lines[-1][total.end() :]):  # class total-statement: "She reads 25 pages a day for 14 days, for 350 pages, total."
        return (total.group(1) or total.group(2)).rstrip(","), "total-of-final-line"
    main = main_clause_number(lines[-1]) if lines else None
    if main is not None:
        return main, "main-clause-number-of-final-line"
    numbers = _numbers(lines[-1]) if lines else []
    last = numbers[-1] if numbers and standalone(lines[-1], numbers[-1].start(), numbers[-1].end()) else None
    number = last.group(0).rstrip(",") if last else None  # never the 2 glued inside "AZYUK2A" or "2^k" (glued-number)
    if number is not None:
        return number, "last-number-of-final-line"
    return span, how


def find_gsm8k_answer(text: str) -> tuple[str | None, str]:
    """GSM8K: `####`, boxed, answer phrase, a closing `A: x` line, then the last number in the text."""
    region = answer_region(text)
    box = last_box_group(region)
    phrase = last_answer_phrase(region)
    for span, how in ((gsm8k_final(region), "####"), (box.span if box else None, "boxed"),
                      (phrase.span if phrase and phrase.span else None, "answer-phrase")):
        if span is not None:
            if re.search(r"[A-Za-z]{3,}", span.replace("\\frac", "")) and last_number(span) is not None:
                return last_number(span), how + "/last-number-in-span"  # "Verna received $7.00 in change"
            return span, how
    a_line = closing_a_line(region)
    if a_line is not None:
        return a_line.span, a_line.how
    number = last_number(region)
    if number is not None:
        return number, "last-number"
    return None, "no number in the completion"
