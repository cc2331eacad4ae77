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

This module holds the answer region and the readers each policy kind calls (find_math_answer,
find_number_answer, find_gsm8k_answer, part_boxes); they order the statement readers of
statements.py (boxes, `A:` lines, `####`, answer tags) and answer_phrases.py, and the
statement-less readers of conclusions.py (on sentence_values.py and clause_numbers.py) and
bare_answers.py.

All work is on the compacted text (whitespace runs collapsed) and on the final WINDOW characters
for statements, so every pattern runs in linear time on degenerate input.
"""
from __future__ import annotations

import functools
import itertools
import re
from fractions import Fraction

from kleval.verify.answer_phrases import (
    TRUNCATED_END,
    answer_first,
    foreign_answer_phrase,
    go_with_statement,
    last_answer_phrase,
    value_then_phrase,
    valueish,
)
from kleval.verify.bare_answers import (
    BARE_MAX_CHARS,
    bare_answer,
    bold_final_line,
    option_value_line,
    value_of_sentence,
    yes_no_opening,
)
from kleval.verify.bold_value import closing_bold_value, math_value_with_unit
from kleval.verify.clause_numbers import computed_result, main_clause_number, standalone_numbers, stated_total, total_stands
from kleval.verify.clauses import drop_justification
from kleval.verify.commitment import (
    RETRACTION,
    WITHDRAWAL,
    asks_hypothetical,
    confirms,
    cut_off_in_statement,
    elaborates,
    is_aside,
    numbers_in,
    reopens,
    retraction_after,
    unclosed_think,
)
from kleval.verify.conclusions import closing_doubt, conclusion, no_solution_statement
from kleval.verify.conclusions import negated as clause_negates
from kleval.verify.decimals import fractions_as_decimals
from kleval.verify.extract import (
    boxes_with_positions,
    compact_whitespace,
    gsm8k_final,
    last_number,
    unify_box_commands,
)
from kleval.verify.forms import worded_numbers_as_digits
from kleval.verify.glued import standalone
from kleval.verify.notations import real_line_except
from kleval.verify.restatement import drop_restatement, withdrawn_by_bracket
from kleval.verify.sentence_values import (
    CONCLUDING,
    CORRECTION_AFTER_VALUE,
    HEDGED,
    is_bound,
    sentence_start,
    split_sentences,
    which_remark_value,
    without_parenthetical_aside,
)
from kleval.verify.short_statement import short_statement
from kleval.verify.statements import (
    Statement,
    answer_tag,
    closing_a_line,
    json_answer,
    last_box_group,
    marker_statement,
    named_box,
)
from kleval.verify.unicode_math import unicode_math
from kleval.verify.units import larger_unit_value, unit_of
from kleval.verify.value_lists import asked_part

# (class chat-template-tokens: also Gemma's `<start_of_turn>`/`<end_of_turn>`, Phi's `<|user|>`/`<|end|>`, DeepSeek's
# `<｜User｜>`/`<｜end▁of▁sentence｜>` and Llama-2's `[INST]`: each ends the model's turn)
_CHAT_TOKEN = re.compile(r"<\|(?:im_start|im_end|endoftext|eot_id|end_of_text|start_header_id|user|end|system)\|>|</s>"
                         r"|<(?:start|end)_of_turn>|<｜(?:User|end▁of▁sentence)｜>|\[INST\]")


# class next-turn: a few-shot continuation after the answer ("\n\nQuestion: ...", "Q: ...", "Human: ...") starts a new
# exchange; what it answers is not this completion's answer (lm-eval stops GSM8K generation at "Question:" for
# this). Cut only where the text before the header already states an answer, never a restated question up front.
# (class next-turn: also a bare role line, "\n\nassistant\n", and an Alpaca-style "### Instruction:" header)
_NEXT_TURN = re.compile(r"\n(?:Question|Q|Problem)(?: \d{1,3})? ?:|\n(?:assistant|Assistant) *\n"
                        r"|\n#{2,4} ?(?:Instruction|Input|Question)s? ?:? *\n")
# (class prompt-echo: a completion that opens by echoing its instructions, "You are a helpful assistant. ...", then the
# user's turn, then its answer, answers after that turn)
_PROMPT_ECHO = re.compile(r"^\W{0,4}(?:system\b|you are (?:a|an)\b|please (?:reason|answer|solve)\b|put (?:your|the) final answer\b"
                          r"|(?:solve|answer) the following\b)[^\n]{0,400}$", re.IGNORECASE | re.DOTALL)
# class user-turn: a turn of the user role ("Human:", "User:", "user:" glued after a sentence, "**User:**", a bare
# "Human" or "user" line, "### Human:") after anything the model wrote is a conversation the model made up: a user
# never speaks inside the model's reply, so what follows is never this completion's answer, whether or not an
# answer came before (the model may also have restated the question up front, which only a "Question:" header
# does; that one still needs an answer before it)
_USER_TURN = re.compile(r"(?:\n|(?<=[.!?]) ?)(?:\*\*)?(?:Human|User|human|user)(?: \d{1,3})?(?:\*\*)? ?:(?:\*\*)?"
                        r"|\n(?:Human|User|human|user) *\n|\n#{2,4} ?(?:Human|User)s? ?:? *\n")


def _states_answer(text: str) -> bool:
    """Whether the text before a next-turn header already states an answer (a statement or a conclusion)."""
    return any(find(text) for find in (last_box_group, last_answer_phrase, marker_statement, closing_a_line, conclusion))


_FULLWIDTH = str.maketrans({"。": ". ", "：": ": ", "，": ", ", "（": "(", "）": ")", "！": "! ", "？": "? "})


_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_HTML_BREAK = re.compile(r"<br ?/?>|</?(?:p|div|li|ul|ol|tr|h[1-6])(?: [^<>]{0,200})?>", re.IGNORECASE)
_HTML_STYLE = re.compile(r"</?(?:strong|b|em|i|u|span|mark|code|sup|sub)(?: [^<>]{0,200})?>", re.IGNORECASE)
_COURTESY_CLOSE = re.compile(r"(?:(?<=[.!\d])|\s)\s*(?:I hope (?:it|this|that) (?:is|was) (?:correct|right|helpful)|Hope (?:this|that|it)"
                             r" helps)[.!]?\s*$", re.IGNORECASE)
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u26FF\uFE0F\u200D]+ ?")


# class closing-check-mark: a check mark after the text's last sentence or answer line ("... is $33$. ✅", "**42** ✅",
# "Answer: 17 ✓", "DE = √51 ✅", "$$x = 3$$ ✅") marks the whole write-up as checked and states nothing; a mark closing a
# check of arithmetic ("3 x 15 = 45 ✓") marks that line a verification and stays
_CLOSING_CHECK = re.compile(r"(?:[ \t]*[\u2713\u2714\u2705])+[ \t]*$")


def _without_closing_check(text: str) -> str:
    m = _CLOSING_CHECK.search(text)
    if m is None:
        return text
    line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
    line = re.split(r"(?<=[a-z0-9$][.!?]) +(?=[A-Z])", line)[-1]  # the sentence that the mark closes
    if re.search(r"\b(?:check|verif|substitut|plug|confirm|recheck|double-check)", line, re.IGNORECASE):
        return text  # a verification line, marked as one ("Wait, let me verify: 5 hours × 60 mph = 300 miles ✓")
    relation = re.search(r"=|\\approx|≈", line)
    sentence = line.rstrip(" *$").endswith((".", "!")) and len(re.findall(r"(?<![\\A-Za-z])[A-Za-z]{2,}", line)) >= 3
    if relation is None or sentence or re.match(r"\W{0,4}[A-Za-z][^:=\n]{0,40}:\s", line):
        return text[: m.start()]  # no relation, or a labelled result ("Total for the year: 104,000 + 5,200 = $109.2k ✅")
    left = re.sub(r"\$|\*\*|\\[()\[\]]|\\(?:times|cdot|div)\b", " ", line[: relation.start()])
    left = re.sub(r"^\W*(?:[A-Za-z]{2,},? )+", "", left)  # ("Indeed 15 x 3 = 45 ✓")
    if re.fullmatch(r"[\d\s.,()]*\d[\d\s.,()]*(?:[-+*/^×x·÷−][\d\s.,()]*\d[\d\s.,()]*)+", left):
        return text  # a check of arithmetic ("3 x 15 = 45 ✓", "7+7=14 ✓"): a verification line, marked as one
    return text[: m.start()]


# class bold-final-sentence: a final sentence set in bold ("**The area of the triangle is 12 square units.**", "No,
# that's wrong. **There are 8 such numbers instead.**", "**#### 1000**") is read as that sentence, so that every rule
# for sentences (asides, retractions, denials) reads it too; a bold value or a bold answer line ("**42**", "**Answer:
# 42**") stays, for the bold-value rules
_BOLD_FINAL_SENTENCE = re.compile(r"(?:^|(?<=\n)|(?<=[.!?:] ))\*\*([^*\n]{3,400})\*\*([.!]?)[ \t]*$")


def _bold_final_match(region: str) -> re.Match | None:
    """The region's bold final sentence when it is read without its bold (class bold-final-sentence), else None."""
    m = _BOLD_FINAL_SENTENCE.search(region) if "**" in region[-6:] else None
    if m is None:
        return None
    content = m.group(1)
    if re.match(r"\W{0,2}(?:[A-J][:.)]|\([A-J]\))(?=[^\n]*[A-Za-z]{2})", content):
        return None  # an option and its text ("**B: buildings will be made safer**") is the choice's answer line
    words = re.findall(r"(?<![\\$])\b[A-Za-z]{2,}\b", re.sub(r"\$[^$]*\$|\\\(.*?\\\)", " ", content))
    # (a sentence; also a labelled line, "**A: 57500**", "**Final result: 2**", or a conclusion, "**Therefore x=2.**")
    if len(words) < 3 and not re.match(r"\W{0,2}(?:####|[A-Za-z][A-Za-z ]{0,30}:\s|answer\b)", content, re.IGNORECASE) \
            and not CONCLUDING.match(content):
        return None
    return m


_CONGRUENCE = re.compile(r"(?:\\equiv|≡) ?(-?\d+)(\$?) ?(?:\\pmod ?\{ ?\d+ ?\}|\\pmod ?\d+|\\bmod ?\{?\d+\}?|\\mod ?\{?\d+\}?"
                         r"|\((?:\\text\{)?mod\}? ?\d+\)|\(\\(?:bmod|mod) ?\d+\))")


def _computed_residue(m: re.Match) -> str:
    """A congruence of a computation (`17^{-1} \\equiv 44 \\pmod{83}`, `2^{10} ≡ 4 (mod 10)`) states its residue; one of
    a variable (`x \\equiv 3 \\pmod{7}`) states a residue class and stays (class congruence)."""
    before = m.string[max(0, m.start() - 40) : m.start()]
    lhs = re.split(r"[$\n:,]|\\\(|\\boxed\{|\b(?:so|thus|hence|is|then)\b", before)[-1]
    if "=" in lhs:
        return m.group(0)  # ("x = 10 \\equiv 3 \\pmod 7": a value and its class, as written)
    lhs = re.sub(r"\\(?:cdot|times|left|right)\b", " ", lhs)
    if re.search(r"[A-Za-z]", lhs) or not re.search(r"\d", lhs):
        return m.group(0)  # (a variable on the left: a residue class, or a condition on it)
    return "= " + m.group(1) + m.group(2)


_COMMON_MISTAKE_AT_END = re.compile(r"(?:(?<=[.!?])[ \t]+|\n+)\W{0,4}(?:note that )?(?:a|one|another|the most) (?:common|frequent|typical"
                                    r"|classic|tempting|popular|usual)(?: [a-z]+)? (?:mistake|error|pitfall|trap|misconception)s?"
                                    r" (?:is|would be|here is|students make)\b[^\n]{0,300}$", re.IGNORECASE)
_J_DECLARED = re.compile(r"\b(?:using|use|let|with|where|writing) j (?:for|as|to denote|denotes?|be|is) (?:the )?imaginary unit\b"
                         r"|\bimaginary unit,? j\b|\bj ?= ?\\?sqrt ?[{(]? ?[−-]1|\bj(?:\^2|²) ?= ?[−-] ?1\b", re.IGNORECASE)
_BELOW_ZERO = re.compile(r"(?<![\d.,-])(\d+(?:\.\d+)?)( ?(?:°|degrees?)(?: ?(?:Celsius|Fahrenheit|C|F)\b)?)? below zero\b")


# class footnote: a markdown footnote ("[^1]: A reference for the formula.") is no statement; one that doubts,
# retracts or states a value ("[^1]: Wait, I made a mistake", "[^a]: or 50", "[^1]: Some answer keys give 50 days.")
# leaves the completion committed to no answer
_FOOTNOTE_LINE = re.compile(r"(?m)^[ \t]*\[\^([^\]\n]{1,20})\]:([^\n]*)$")
_FOOTNOTE_MARK = re.compile(r"\[\^([^\]\n]{1,20})\]")
_FOOTNOTE_DOUBT = re.compile(r"\b(?:wrong|sure|could|maybe|perhaps|possibly|or|instead|retract|not)\b|\?|\d", re.IGNORECASE)


def doubtful_footnote(text: str) -> bool:
    """Whether a markdown footnote of `text` doubts, retracts or states a value (class footnote)."""
    return "[^" in text and any(_FOOTNOTE_DOUBT.search(note) or RETRACTION.search(note)
                                for _, note in _FOOTNOTE_LINE.findall(text))


def _without_footnotes(text: str) -> str:
    """`text` without its footnotes and their marks, unless one is doubtful (then as written)."""
    labels = {label for label, _ in _FOOTNOTE_LINE.findall(text)}
    if not labels or doubtful_footnote(text):
        return text
    return _FOOTNOTE_MARK.sub(lambda m: "" if m.group(1) in labels else m.group(0), _FOOTNOTE_LINE.sub("", text))


@functools.lru_cache(maxsize=256)
def answer_region(text: str) -> str:
    """The part of a completion that can hold its final answer: after the last `</think>` (a box inside
    the thinking is a guess, not the answer); nothing when a `<think>` is never closed. A final sentence set in bold
    is read without its bold (class bold-final-sentence)."""
    region = _marked_region(text)
    m = _bold_final_match(region)
    return region[: m.start()] + m.group(1) + m.group(2) if m else region


def bold_final_sentence(text: str) -> str | None:
    """The final sentence of the answer region when it is set in bold (class bold-final-sentence), without its bold."""
    m = _bold_final_match(_marked_region(text))
    return m.group(1) if m else None


@functools.lru_cache(maxsize=256)
def _marked_region(text: str) -> str:
    """The answer region with its markup (answer_region before a bold final sentence is unbolded)."""
    if "<!--" in text:  # class html-comment: a comment is never shown to a reader, so nothing in it is stated
        text = _HTML_COMMENT.sub(" ", text)
    if "[^" in text:  # class footnote
        text = _without_footnotes(text)
    if "<" in text:  # class html-markup: line breaks and paragraphs end lines; emphasis tags only style
        text = _HTML_BREAK.sub("\n", text)
        text = _HTML_STYLE.sub("", text)
    text = unify_box_commands(compact_whitespace(text))
    if not text.isascii():
        text = text.translate(_FULLWIDTH)  # "答案：7。" ends its sentence like "Answer: 7."
        # class emoji: pictographs decorate ("... is 36. 🎉", "**$1,102.50** 😊") and would hide a sentence's end;
        # check marks (✓ ✔ ✅, which mark a verification) and symbols such as ° stay
        text = _without_closing_check(_EMOJI.sub("", text))
    # class courtesy-close: "I hope it is correct." or "Hope this helps!" closing the text ("A: 2 I hope it is correct.")
    # says nothing about the answer (removed before Unicode math is read: "x = ½ I hope ..." is no math "½ I")
    if "ope" in text[-40:]:
        text = _COURTESY_CLOSE.sub("", _COURTESY_CLOSE.sub("", text))  # (also one written twice)
        text = text if text.isascii() else _without_closing_check(text)  # ("... is 33. ✅ I hope it is correct.")
    text = unicode_math(text)  # class unicode-math: "10π", "–0.25", "½"
    if "≡" in text or "\\equiv" in text:  # class congruence-value: "17⁻¹ ≡ 44 (mod 83)" answers its residue, 44
        text = _CONGRUENCE.sub(_computed_residue, text)
    if "neither" in text:  # class neither-even-nor-odd: MATH's answer word for "neither even nor odd" is "neither"
        text = re.sub(r"\bneither (?:an )?(?:even|odd)(?: function)? nor (?:an )?(?:even|odd)(?: function)?\b", "neither", text)
    # class engineering-j: a text that declares j the imaginary unit ("Using j for the imaginary unit", "j² = −1")
    # writes complex numbers with it: "6 − 5j" is 6 - 5i
    if ("imaginary" in text or "-1" in text or "−1" in text) and _J_DECLARED.search(text):
        text = re.sub(r"(?<=[\d\s)(+\-−*/·])j\b(?![(_^])", "i", text)
    if "istake" in text[-400:] or "rror" in text[-400:] or "itfall" in text[-400:]:
        # class common-mistake: a closing remark on a mistake others make ("The answer is C. A common mistake is to
        # report P(+) = 11% instead.") is an aside about them; it neither states nor retracts this text's answer
        text = _COMMON_MISTAKE_AT_END.sub("", text)
    if "below zero" in text:  # class below-zero: "10 degrees below zero" is -10 degrees
        text = _BELOW_ZERO.sub(lambda m: "-" + m.group(1) + (" " + m.group(2).strip() if m.group(2) else ""), text)
    special = _CHAT_TOKEN.search(text)
    if special and text[: special.start()].strip():  # "... is 2/3. <|im_start|>user": the next turn is not the answer
        text = text[: special.start()]
    for user_turn in itertools.islice(_USER_TURN.finditer(text), 8):  # class user-turn
        before = text[: user_turn.start()].strip()
        if before and not _PROMPT_ECHO.match(before):
            text = text[: user_turn.start()]
            break
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
    return ", ".join(named_box(region, start, content) for start, _, content in chosen)


def _after_retraction(region: str, statement: Statement) -> Statement | None:
    """What a completion commits to after retracting `statement`: the later conclusion, the statement itself
    when the recheck ends by confirming it, or an empty statement (no answer) when neither."""
    after = region[statement.end :] if statement.end >= 0 else ""
    closing = " ".join(split_sentences(after.rstrip()[-400:])[-2:])
    if confirms(closing):  # class confirmed-statement: "Wait, let me double-check ... Yes, that matches."
        return statement
    later = conclusion(after)
    if later is not None and _restates(later.span, statement.span):
        return statement  # "Actually, let me double check: $4 \\times 3 = 12$." restates the boxed 12
    if later is not None and (valueish(later.span) or not valueish(statement.span)):
        return Statement(later.span, f"{later.how} (after a retracted {statement.how})", statement.end)
    if not WITHDRAWAL.search(after) and not reopens(after, statement.span):
        return statement  # only a doubt ("Hmm, interesting"), and no new value: the statement stands
    return Statement("", f"retracted-{statement.how}", statement.end)


def without_closing_asides(line: str, asked: bool = False) -> str:
    """A line without the asides that close it after its statement (class aside-sentence: "The tank fills in 9
    hours. (If the pump were twice as fast, it would take 4.5 hours.)" states 9); a line of asides only stays."""
    sentences = split_sentences(line.strip())
    kept = len(sentences)
    while kept > 1 and is_aside(sentences[kept - 1], asked):
        kept -= 1
    return " ".join(sentences[:kept]) if kept < len(sentences) else line


def _restates(later: str, stated: str) -> bool:
    """Whether a later value is the stated one, or a computation ending in it (`4 \\times 3 = 12` for 12)."""
    later, stated = later.replace(" ", ""), stated.replace(" ", "")
    return later == stated or later.endswith("=" + stated)


# class closing-display: a completion that ends with a display block after a lead-in that announces it ("..., whose
# roots are real:", "Hence", "so", "we get", "simplifies to") states its answer
# there: `$$x = 1 + \sqrt{19},\quad x = 1 - \sqrt{19}$$`
# (an equation whose left side is no bare variable, `x^2 - 5x = 0`, stays an equation, which answers no number).
# Never a display without such a lead-in (a last step of working) and never one with text after it.
_CLOSING_DISPLAY = re.compile(r"(?:\$\$((?:(?!\$\$).){1,600})\$\$|\\\[((?:(?!\\\]).){1,600})\\\]"
                              # (or inline math that is a line of its own, "...\n\n$x = \frac{36}{99} = \frac{4}{11}$")
                              r"|(?<=\n)[ \t]*(?<!\$)\$([^$\n]{1,300})\$(?!\$))\s*$", re.DOTALL)
_DISPLAY_LEAD_IN = re.compile(r"(?::|\b(?:so|hence|thus|therefore|we get|we obtain|we have|gives|giving|yields|is|are|becomes"
                              r"|the answer is|the result is|(?:simplifies|reduces|evaluates|comes|works out) to|equals"
                              r"|i\.e\.|that is|namely|in other words)\s*,?)\s*$",  # (", i.e.\n$$a_n = 2^n - 1.$$")
                              re.IGNORECASE)


# (class closing-chain-display: without a lead-in, a closing display that evaluates a named quantity to a constant, a
# chain "M = 6 \cdot \frac16 N = \begin{pmatrix} 4 & 2 \\ -1 & 1 \end{pmatrix}" whose last side holds no letter, states
# that value: it is the result of the working, not a step of it)
_CHAIN_CONSTANT = re.compile(r"=\s*((?:[-+\d.,\s&{}()\[\]^_/*]|\\(?:frac|dfrac|tfrac|sqrt|pi|cdot|times|left|right|begin|end"
                             r"|\\|pmatrix|bmatrix)\b|\\\\|\b(?:pmatrix|bmatrix)\b)+)$")


# (also the limit of one, `\lim_{n\to\infty} a_n = 0`: the value the working found for it)
_NAMED_QUANTITY = re.compile(r"\s*(?:\\lim_\{[^{}=]{1,30}\}\s*)?(?:\\mathbf\{[A-Za-z]\}|\\vec\{[A-Za-z]\}|[A-Za-z](?:_\{?\w{1,3}\}?)?(?:\([^()=]{1,20}\))?)"
                             r"(?:\s*\\begin\{[pb]matrix\}[^=]{1,200}?\\end\{[pb]matrix\})?\s*$")


def _evaluated_chain(content: str) -> bool:
    """Whether a display evaluates a named quantity (`M`, `\\mathbf{A}v`, `f(2)`, `a_5`) to a constant: never an
    equation, whose first side is an expression (`x^2 - 5x = x(x - 5) = 0`)."""
    sides = content.split("=")
    if len(sides) < 2 or "\\text" in content or ("," in sides[-1] and "matrix" not in sides[-1]):
        return False
    return bool(_NAMED_QUANTITY.fullmatch(sides[0])) and bool(_CHAIN_CONSTANT.search(content)) \
        and re.search(r"\d", sides[-1]) is not None


# (class closing-display-paragraph: a display that is a paragraph of its own after a finished sentence, the one display of
# that paragraph, "... so the $y$-intercept is $3$.\n\n$$y = 3 + 2x$$", is the result: one bare name, `y` or `f(x)`, set
# equal to one expression of it)
# (also an inverse, "f^{-1}(x) = ...", a term of a sequence, "a_n = ...", and a tuple of names, "(p, q) = (2, -15)")
_NAME_EQUALS = re.compile(r"\s*(?:[A-Za-z](?:_\{?[a-z0-9]\}?)?(?:\^\{?-1\}?)?(?:\([a-z]\))?\s*=\s*[^=,;]+"
                          r"|\(\s*[a-z](?:\s*,\s*[a-z])+\s*\)\s*=\s*\([^=;]+\))")


_CHECK_OR_SUPPOSITION = re.compile(r"\b(?:check\w*|verif\w*|confirm\w*|would|could|if|suppose|compare\w*|instead)\b", re.IGNORECASE)


# class step-lead-in: a display after a clause that names the last step ("Swapping the variables,", "Solving for $x$,",
# "Simplifying:") sets one name equal to one expression as that step's result (never a check or a supposition)
_STEP_LEAD_IN = re.compile(r"(?:^|[.!]\s|\n)\s*(?!(?:Test|Assum)\w*)[A-Z][a-z]{2,}ing\b[^.;:\n=]{0,60}[,:]\s*$")


def _without_unit_texts(content: str) -> str:
    """A display without its units, `6 \\text{ ft}^2 = 864 \\text{ in}^2` -> `6 = 864` (class unit-chain-display)."""
    return re.sub(r"\\(?:text|mathrm)\{\s*([A-Za-z]+)\s*\}(?:\^\{?\d\}?)?",
                  lambda m: "" if unit_of("1 " + m.group(1)) else m.group(0), content)


def _display_paragraph(before: str, content: str) -> bool:
    """Whether a closing display stands alone after a finished sentence (or a check mark) and sets one name equal to one
    expression, or evaluates a constant expression ("$$(2-i)^2 = -4i + 3$$", "$$68_{10} = 2112_3$$"); never after a
    paragraph that checks or supposes ("A quick check with the second term confirms it.", "For 3 people it would be
    fewer."): the display then evaluates that."""
    paragraph = before.rstrip().rsplit("\n\n", 1)[-1]
    # (a check that closes with its check mark has passed: the display after it states the answer)
    return (paragraph.rstrip().endswith(("✓", "✔")) or not _CHECK_OR_SUPPOSITION.search(paragraph)) \
        and bool(re.search(r"(?:[.!]\$?|[✓✔]|(?<!\$)\$)\s*\n\s*\n\s*$", before)) and "\\quad" not in content \
        and (("\\text" not in content and bool(_NAME_EQUALS.fullmatch(content))) or _constant_evaluation(_without_unit_texts(content)))


def _constant_evaluation(content: str) -> bool:
    """Whether a display is a chain of constant expressions: no letter but the unit `i` on any side."""
    sides = content.split("=")
    letters = set(re.findall(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", "", content)))
    return len(sides) >= 2 and letters <= {"i"} and all(re.search(r"\d", side) for side in sides)


def closing_display(region: str) -> Statement | None:
    """The closing display block of `region` when the text before it announces it, else None."""
    text = region.rstrip()
    # (a closing remark in brackets after the display, "(Not to be confused with ...)", is skipped; never one that
    # retracts or doubts, "(Wait, that used the wrong sign ...)", "Note: I made an arithmetic error above")
    while "\n\n" in text and is_aside(last := text.rsplit("\n\n", 1)[1].strip()) and not RETRACTION.search(last) \
            and not re.search(r"\b(?:wrong|error|mistake|incorrect|correct value|instead|redo\w*)\b|\\ne\b|≠", last, re.IGNORECASE):
        text = text.rsplit("\n\n", 1)[0].rstrip()
    m = _CLOSING_DISPLAY.search(text[-800:])
    if m is None:
        return None
    start = len(text) - len(text[-800:]) + m.start()
    lead_in = text[max(0, start - 80) : start].rstrip()
    content = (m.group(1) or m.group(2) or m.group(3)).strip().rstrip(".").strip()
    if re.search(r"\b(?:not|never|nor)\b|n't\b", lead_in[-24:]) and not re.search(r"[.!]\$?$", lead_in):
        return None  # (never a lead-in that denies, "... is not equal to", "... is not"; a finished sentence that rejects
        # another value, "so $x = -2$ is not allowed.", leads to a paragraph of its own)
    if re.search(r"(?:\$\$|\\\]|\\end\{(?:equation|align)\*?\})$", lead_in) or (m.group(3) and lead_in.endswith("$")):
        return None  # (never the last of several displays, "$$x_1 = -2$$\n$$x_2 = 3$$": together they list the values)
    if _DISPLAY_LEAD_IN.search(lead_in) and content.count("=") >= 2 and _CHAIN_CONSTANT.search(content) \
            and not re.search(r"=[^=]*(?:(?<!\\),|;|\\q?quad|\\text\{ ?(?:and|or) ?\})[^=]*=", content) \
            and re.search(r"\d", content.rsplit("=", 1)[1]) and not re.search(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+|pmatrix|bmatrix", "", content.rsplit("=", 1)[1])):
        content = content.rsplit("=", 1)[1].strip()  # (a chain after a lead-in states the constant it ends on, "\text{proj}... = (2.2, 4.4)")
    restating = re.search(r"\b(?:i\.e\.|that is|namely|in other words)\s*,?\s*$", lead_in, re.IGNORECASE)
    if restating is not None:
        # (a restating lead-in only after math of its own sentence with the display's name: "Hence $a_n + 1 = 2^n$, i.e.
        # $$a_n = 2^n - 1$$"; never "The recurrence we started from, i.e. $$a_n = 2a_{n-1} + 1$$")
        own = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text[max(0, start - 300) : start].rstrip())[-1]
        name = content.split("=", 1)[0].strip() if "=" in content else ""
        if not name or not re.search(r"\$|=", own) or name not in own:
            return None
    if not _DISPLAY_LEAD_IN.search(lead_in) and not _display_paragraph(text[:start], content) \
            and not ((step := _STEP_LEAD_IN.search(lead_in)) and not _CHECK_OR_SUPPOSITION.search(step.group(0))
                     and _NAME_EQUALS.fullmatch(content)):
        listed = re.search(r"(?:\band|\bor|,)$", lead_in)  # ("Both $x = -4$ and $$x = 4$$" lists a second root)
        if not _evaluated_chain(content) or (listed and content.count("=") < 2) or lead_in.endswith(" or") \
                or re.search(r"=[^=]*(?:,|;|\\q?quad|\\text\{ ?(?:and|or) ?\})[^=]*=", content):
            return None  # (nor a display listing assignments, "x_1 = 2, \quad x_2 = 3": its last side is one value of two)
        if content.count("=") >= 2 or content.startswith("\\lim"):
            # (the value a chain or a limit ends on; "x = 5" stays whole, so it answers no gold "y = 5")
            content = content.rsplit("=", 1)[1].strip()
    return Statement(content, "closing-display", start) if content else None


_BOLD_VALUES = re.compile(r"\*\*\s*(\\?\$?-?\d[\d,]*(?:\.\d+)?%?)\s*\*\*")


# class labelled-list-line: a final line of labelled values ("Minimum: 3, Maximum: 12", "Width: 4 cm; Length: 9 cm")
# states them all, as a list whose members the comparison reads by their labels (class labelled-members)
_LABELLED_MEMBER = r"[A-Za-z][A-Za-z ]{0,24}: ?[-−$\\(]?\d[^,;:\n]{0,30}"
_LABELLED_LIST_LINE = re.compile(rf"\W{{0,2}}({_LABELLED_MEMBER}(?:[,;] (?:and )?{_LABELLED_MEMBER}){{1,5}})\W{{0,3}}")


def labelled_list_line(region: str) -> Statement | None:
    """The final line when it is a list of labelled values."""
    lines = [line.strip() for line in region.rstrip()[-300:].split("\n") if line.strip()]
    m = _LABELLED_LIST_LINE.fullmatch(lines[-1]) if lines else None
    if m is None:
        return None
    members = [member.strip() for member in re.split(r"[,;] (?:and )?(?=[A-Za-z][A-Za-z ]{0,24}:)", m.group(1).rstrip(" ."))]
    labels = [member.split(":")[0].strip().lower() for member in members]
    if any(re.fullmatch(r"(?:the )?(?:total|sum|answer|final answer|result|final result|overall|altogether|left|remaining"
                        r"|difference|change|net|profit|check|verification)", label) for label in labels):
        return None  # ("Apples: 5, Oranges: 7, Total: 12", "Total: 16, Used: 7, Left: 9": which one is asked is not seen)
    return Statement(", ".join(members), "labelled-list-line", len(region))


_NUM = r"-?\d[\d,]*(?:\.\d+)?"
_BOUNDED_VALUE = re.compile(
    rf"\b(?:at least|at most|more than|less than|fewer than|greater than|no more than|no less than|up to) \$?{_NUM}"
    rf"|(?<![\d.,]){_NUM}\$? ?(?:or (?:more|fewer|less|so))\b|\bbetween \$?{_NUM}\$? and \$?{_NUM}"
    rf"|(?<!from )(?<!from \$)(?<![\d.,$]){_NUM}\$? (?:or|to) \$?{_NUM}", re.IGNORECASE)


def _closing_sentence(after: str) -> str | None:
    """The last sentence of the last paragraph of `after`."""
    paragraphs = [p for p in after.rstrip()[-800:].split("\n\n") if p.strip()]
    sentences = split_sentences(paragraphs[-1].strip()) if paragraphs else []
    return sentences[-1] if sentences else None


def _open_conclusion(sentence: str, stated: str) -> bool:
    """Whether a closing sentence holds a number that is not the statement's and that it bounds, ranges or hedges
    rather than states (class answer-first-contradicted): "at least 8", "7 or 8", "between 7 and 8", "more than 6",
    never "from $50 to $40" (a change) nor "$120, or $40 per day" (the same value put another way)."""
    stated_numbers = numbers_in(stated)
    return any(numbers_in(m.group(0)) - stated_numbers for m in _BOUNDED_VALUE.finditer(sentence))


def _same_value(one: str, other: str) -> bool:
    """Whether two stated answers are one value ("\frac{3}{4}" and "0.75"), by the verifier's own comparison."""
    from kleval.verify.core import verify  # (imported here: core imports this module)

    return verify(gold=one, completion="\\boxed{" + other + "}").correct


# class corrected-value: "So the answer is 3, not 5." (or "3 rather than 5", "3 instead of 5") states 3 and rules out 5
_CORRECTION_TAIL = re.compile(r",? \(?(?:and )?(?:not|rather than|instead of|as opposed to) \$?-?[\d\\][^\s,;()=]{0,30}\)?\.?$")


# class factorial-in-context: "N!" closing the answer, written as math (`$5!$`, `**6!**`), is the factorial when the
# completion uses N! as one elsewhere ("Both methods agree, since $6! = 720$. Therefore the number of seatings is
# **6!**." answers 720); a prose "The answer is 6!" or "4 ways!" stays an exclamation, and "6, not 6!" rejects it
def _factorial_used(region: str, number: str) -> bool:
    return bool(re.search(rf"(?<![\d.]){number}!\s*(?:=|\\cdot|\\times|[/}})$]|\\\))|(?:\\frac\{{|\\cdot |[($]){number}!", region))


_SUBSTITUTES = re.compile(r"\b(?:requested|asked for|the question (?:asks|wants)|we (?:want|need) (?:to find )?(?:the value of )?"
                         r"\$?[^$\n]{1,20}=)", re.IGNORECASE)
# (never a check of the solution: "Substituting back into the original equation, ...", "Plugging in to verify: ...")
_CHECKS_SOLUTION = re.compile(r"\b(?:back|verif\w*|check\w*|original equation|confirm\w*|match(?:es|ing)?)\b", re.IGNORECASE)


def find_math_answer(text: str) -> tuple[str | None, str]:
    """The final-answer span of a math completion and how it was found."""
    span, how = _find_math_answer(text)
    number = span.strip() if span is not None else ""
    if re.fullmatch(r"\d{1,3}", number) and not how.startswith(("boxed", "repeated-box", "####")) \
            and _factorial_meant(answer_region(text).rstrip(), number):
        return number + "!", how + "/factorial-in-context"
    return span, how


def _factorial_meant(region: str, number: str) -> bool:
    """class factorial-in-context: whether the answer's own `number`, written last in `region`, is "N!" as math
    (`$6!$`, `**6!**`) near the end, not after a contrast ("6, not 6!", "instead of", "would be"), not an equation,
    and the completion uses N! as a factorial before it."""
    written = list(re.finditer(rf"(?<![\d.]){number}(?![\d.])", region))
    if not written or not region.startswith("!", written[-1].end()):
        return False
    at, after = written[-1].start(), written[-1].end() + 1
    as_math = re.search(r"(?:\$|\*\*|\\\()\s*$", region[max(0, at - 3) : at]) and re.match(r"\s*(?:\$|\*\*|\\\))", region[after:])
    contrast = re.search(r"\b(?:not|would|instead|rather|opposed|never|than|naive|without|could)\b", region[max(0, at - 30) : at],
                         re.IGNORECASE)
    return bool(as_math and not contrast and at >= max(0, len(region) - 120) and region[after : after + 1] != "="
                and _factorial_used(region[:at], number))


_MATH_BLOCK_TEXT = re.compile(r"\$\$[^$]*\$\$|\$[^$\n]*\$|\\\((?:[^\\]|\\(?!\)))*?\\\)")


def _box_outside_asides(region: str) -> Statement | None:
    """The last box group, or the one before it when the last sits in an aside after it (class box-in-aside: "\\boxed{12}
    ... If the teacher is also counted, the answer would be \\boxed{13}.", "Note: for a 5 by 5 square the perimeter would
    be \\boxed{20}."); a box in an aside with none before it is read as before."""
    box, asked = last_box_group(region), asks_hypothetical(region)
    while box is not None:
        start = sentence_start(region, box.start)
        end = re.search(r"[.!?](?=\s|$)|\n", region[box.end :])
        sentence = region[start : box.end + (end.end() if end else len(region))]
        if not is_aside(_MATH_BLOCK_TEXT.sub(" M ", sentence), asked):  # (an aside's words, never the "!" of a 3! in its math)
            return box
        earlier = last_box_group(region[:start])
        if earlier is None:
            return box
        box = earlier
    return box


def _find_math_answer(text: str) -> tuple[str | None, str]:
    """The final-answer span of a math completion and how it was found (before class factorial-in-context)."""
    region = answer_region(text)
    if doubtful_footnote(region):
        return None, "a footnote doubts, retracts or restates the answer; no answer is committed"
    if not region.strip() and unclosed_think(compact_whitespace(text)):
        return None, "the completion stops inside <think> (truncated reasoning); no final answer"
    if not region.strip() and "</think>" in text:
        return None, "nothing follows </think>: the completion stopped before its answer section"
    cut_off = cut_off_in_statement(region)
    if cut_off:  # class truncated-statement: an earlier box is not what a cut-off final statement commits to
        return None, cut_off
    box = _box_outside_asides(region)
    phrase = last_answer_phrase(region)
    if phrase is not None and phrase.how == "hypothetical-answer-phrase":
        # class hypothetical-after-answer: "**Answer: 204** ... If it had asked for the walking time alone, the answer
        # would be 180 minutes." keeps the committed answer before the hypothetical one
        cut = sentence_start(region, phrase.start)
        earlier = last_answer_phrase(region[:cut]) if cut > 0 else None
        # (never over a retraction between them, "Wait, I forgot ... the answer would be 228", nor from a conditional
        # answer, "The answer is 12 if Sam shares equally.")
        if earlier is not None and earlier.how != "hypothetical-answer-phrase" and not RETRACTION.search(region[earlier.end : cut]) \
                and not re.search(r"\b(?:if|when|unless|assuming|provided)\b", region[earlier.start : cut], re.IGNORECASE):
            phrase = earlier
    statements = [s for s in (box, phrase, closing_a_line(region), marker_statement(region), answer_tag(region), json_answer(region),
                              foreign_answer_phrase(region), go_with_statement(region), value_then_phrase(region),
                              answer_first(region)) if s]
    if statements:
        committed = [s for s in statements if s.how != "hypothetical-answer-phrase"]
        last = max(committed or statements, key=lambda s: s.start)
        if last.how == "hypothetical-answer-phrase" and (later := conclusion(region[last.end :])) is not None \
                and re.search(r"\d", later.span):
            # (a hypothetical answer and then a conclusion, "Note that if we only count full buses, the answer would be
            # 4.\n\nSo the school needs 5 buses.": the conclusion answers)
            return drop_restatement(later.span), later.how + "/after-hypothetical-answer"
        if last is not box and box is not None and not valueish(last.span):
            last = box  # words after an answer phrase ("the answer is correct") never retract a box
        unknown = re.fullmatch(r"[a-z] ?= ?(-?\d+(?:\.\d+)?)", last.span.strip()) if last is box else None
        if last is box and last.end > 0 and (re.fullmatch(r"-?\d+(?:\.\d+)?", last.span.strip())
                                             and re.search(rf"(?<![\d.]){re.escape(last.span.strip())} ?(?:\\times|\\cdot|[×*+\-−/÷]) ?\d"
                                                           rf"|\d ?(?:\\times|\\cdot|[×*+\-−/÷]) ?{re.escape(last.span.strip())}(?![\d.])",
                                                           region[last.end :])
                                             # (or a box that solves for the unknown the working then substitutes: "x =
                                             # \boxed{4}. Now substitute into the requested expression: ... = 28.")
                                             or unknown and _SUBSTITUTES.search(region[last.end :])
                                             and not _CHECKS_SOLUTION.search(region[last.end :])):
            # class intermediate-box: a box the working then computes with ("4 \times 6 = \boxed{24} markers per
            # classroom ... 24 \times 4 = 96. So the school needs 96 markers in total.") is a step; a later
            # concluding sentence with another value answers
            # (also a plain final statement of the result the working after the box computes: "$$6 \cdot 16 = 96.$$ The
            # surface area is 96 square units.")
            later = conclusion(region[last.end :])
            computed = later is not None and later.how == "final-statement" and re.fullmatch(r"-?\d[\d,]*(?:\.\d+)?", later.span.strip()) \
                and re.search(rf"= ?\$?{re.escape(later.span.strip())}(?![\d.,]\d)", region[last.end :]) \
                and not _CHECKS_SOLUTION.search(region[last.end :]) and not re.search(r"\bas given\b|\bsanity\b", region[last.end :], re.I)
            # (never a check of the box: "Sanity check: 7 + 8 = 15, which matches the total. The sum is 15.")
            if later is not None and (later.how == "conclusion-sentence" or computed) and re.search(r"\d", later.span) \
                    and not _same_value(last.span, later.span):
                return drop_restatement(later.span), "conclusion-sentence/after-intermediate-box"
        opening_box = last.how == "boxed" and re.fullmatch(r"[$*\\()\[\] ]*", region[: last.start]) is not None \
            and re.match(r"[$*\\()\[\] .]*\n", region[last.end :]) is not None and not RETRACTION.search(region[last.end :])
        first_line = "\n" not in region[: last.start].strip()
        after = region[last.end :] if last.end >= 0 else ""
        closing = _closing_sentence(after) if after else None
        if last.how == "answer-first-line" and (RETRACTION.search(after) or re.search(
                rf"\bnot {re.escape(last.span.strip())}\b|(?:=|\bthat's|\bthat is|\bis) \$?(?!{re.escape(last.span.strip())}\b)-?\d[\d,.]*\$?[.!]?\s*$",
                after.rstrip(), re.IGNORECASE)):
            # (an opening bold line without "Here's why" is the answer only where nothing after it ends on another value,
            # "That's 4, not 3.", "... the total is 2 + 3 + 5 = 10.", or withdraws it)
            return None, f"the opening answer {last.span[:30]!r} is contradicted by what follows it"
        if last.how in ("answer-first", "answer-first-line") and not RETRACTION.search(after) and (later := conclusion(after)) is not None \
                and later.how == "conclusion-sentence" and re.fullmatch(r"-?\d[\d,]*(?:\.\d+)?", later.span.strip()) \
                and not _same_value(last.span, later.span):
            # (class answer-first: "**18**. Here's why: ... So she has 20 books." commits to neither)
            return None, f"the answer {last.span[:30]!r} and the closing statement {later.span[:30]!r} differ"
        if ((last.how == "answer-phrase" and (first_line or re.search(r"\d", last.span))) or (opening_box and first_line)) \
                and last.end > 0:
            # class answer-first-contradicted: an opening "Answer: 3" (or a first line that is only `\boxed{64}`, with no
            # retraction after it) and a closing conclusion that states another value ("Therefore Peter can go to the
            # movies 6 times this week.", "Therefore, the maximum value is $81$.") commit to neither; so do an answer
            # phrase anywhere and a closing sentence that opens as a conclusion ("Therefore, ...") and bounds, ranges or
            # hedges another value ("Hence, she needs at least 8 boxes.", "Thus, 7 or 8 boxes."). (Another value stated
            # plainly after an answer phrase mid-text is often the same answer in other units, "So it takes him 120
            # minutes.", which the comparison of two numbers cannot see.)
            opens = closing is not None and CONCLUDING.match(closing) is not None and not is_aside(closing)
            later = conclusion(after)
            if later is not None and later.how == "conclusion-sentence" and first_line \
                    and re.search(r"\d", later.span) and not _same_value(last.span, later.span):
                return None, f"the answer {last.span[:30]!r} and the closing conclusion {later.span[:30]!r} differ"
            if later is None and opens and _open_conclusion(closing, last.span):
                return None, f"the answer {last.span[:30]!r} and a closing conclusion that bounds or hedges another value differ"
        # (class earlier-mistake: only a statement that itself corrects a value, "3, not 5", is explained rather
        # than retracted by a later "I misread the question at first")
        if closing and closing_doubt(closing) and not is_aside(closing) and not confirms(closing):
            # class closing-doubt: "The answer is 12. But this can't be right, since she gave some away."
            return None, f"the closing sentence {closing[:40]!r} doubts the {last.how} answer; no answer is committed"
        corrects = bool(_CORRECTION_TAIL.search(last.span[1:]))
        if last.end >= 0 and (retraction_after if corrects else RETRACTION.search)(region[last.end :]):
            # class retracted-statement: "\boxed{20}? Wait, ... Therefore, the total is 24."
            last = _after_retraction(region, last)
            if not last.span:
                return None, f"the {last.how[10:]} answer is retracted later and no new answer is stated"
        if not last.span and last.how == "several-markers":
            return None, "several #### lines with different values; no single answer is committed"
        if not last.span:
            return None, "the answer line is empty (no answer stated)"
        if last.how == "answer-tag" and (value := value_of_sentence(last.span)):
            return value, "answer-tag-sentence"  # class answer-tag-sentence: "<answer>The probability is 5/8.</answer>"
        if last.how == "answer-phrase" and not re.search(r"\d|\\", last.span) and (value := value_of_sentence(last.span)) \
                and re.search(r"\d", value):
            return value, "answer-phrase-sentence"  # "**Final Answer:** He must leave at a quarter to nine." is 8:45
        bold = _BOLD_VALUES.findall(last.span)
        if len(bold) == 1 and len(re.findall(r"[A-Za-z]{2,}", _BOLD_VALUES.sub(" ", last.span))) >= 3:
            # class bold-value-in-answer-sentence: "**Answer:** A 3-inch cube would cost **$18.90** to make."
            return bold[0], last.how + "/bold-value"
        span = _CORRECTION_TAIL.sub("", last.span).strip(" *_") if corrects else last.span
        return drop_restatement(span), last.how  # class two-formats: "3/4 (0.75)" answers 3/4
    if TRUNCATED_END.search(region[-200:].rstrip()):
        return None, "the text stops inside a box or an expression (truncated); no committed answer"
    empty = no_solution_statement(region)
    if empty is not None:
        return empty.span, empty.how
    last_line = region.rstrip()[-300:].split("\n")[-1]
    difference = real_line_except(last_line) if "real" in last_line else None
    if difference is not None:  # class prose-set: "The domain is all real numbers except $2$."
        return difference, "real-line-except"
    short = len(region.strip()) <= BARE_MAX_CHARS and "\n" not in region.strip()
    for finder in ((bare_answer, bold_final_line, yes_no_opening, labelled_list_line, conclusion) if short
                   else (bold_final_line, yes_no_opening, closing_display, asked_part, labelled_list_line, conclusion,
                         option_value_line, bare_answer)):
        found = finder(region)
        if found is not None and found.span:
            return drop_restatement(found.span), found.how
    if bold_final_sentence(text) is not None:
        # class bold-final-sentence: the bold marks the final sentence as the conclusion ("**The price rose by 15%.**")
        found = conclusion(region, marked_final=True)
        if found is not None and found.span:
            return drop_restatement(found.span), "bold-final-sentence"
    if short:  # class short-statement (kleval.verify.short_statement): "She has €45 left." states its one quantity
        value = short_statement(without_closing_asides(region))
        if value:
            return value, "short-statement"
    closing = _closing_sentence(region)
    if closing and closing_doubt(closing):
        return None, f"the closing sentence {closing[:40]!r} doubts what came before; no answer is committed"
    return None, "no boxed answer, answer phrase, A: line, ####, concluding sentence or bare answer"


_NO_COMMITMENT = re.compile(r"\b(?:cannot|can't|can ?not|unable to) (?:determine|decide|tell|say)\b|\bnot sure\b"
                            r"|\bno way to (?:know|tell)\b", re.IGNORECASE)


_CALENDAR_DATE = re.compile(r"(?<![\d/.-])(?:\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2})(?![\d/])")
_ADDITION = re.compile(r" ?\((?:and|plus|with|also|as well as)\b[^()]{1,80}\) ?[.!]?$", re.IGNORECASE)


# Committing to a number in a sentence is more than writing it (kind `number`; the red-team round of 2.13.0):
# class negated-value: "The answer is not 18." denies the value; class bound-value: "at least 260 sheep" bounds it;
# class range-value: "about 64 to 65 dollars", "between 10 and 15", "12-14 hours" gives a range; and class
# scaled-value: "260 thousand sheep", "$70 thousand" scale it (260,000 and 70,000; "7 dozen eggs" stays 7, a count of
# dozens, as a question asked in dozens wants it).
_NEGATED_VALUE = re.compile(r"\b(?:is|are|was|were|be|equals?)(?: not|n't)\b(?: (?:equal to|exactly|quite))? \$?(-?\d[\d,]*(?:\.\d+)?)",
                            re.IGNORECASE)
_RANGE_VALUE = re.compile(r"\b(?:(?:about|approximately|roughly|around|somewhere|anywhere)(?: between| from)?|between) \$?-?\d[\d,]*"
                          r"(?:\.\d+)?(?: [a-z]+)? (?:to|and|or|-) \$?-?\d|(?<![\d.,-])\d[\d,]*(?:\.\d+)? ?[-–] ?\d[\d,]*(?:\.\d+)? (?!=)"
                          r"(?:[a-z]+|%)", re.IGNORECASE)
# (class range-value: also "7, or maybe 8, apples" and "20 to 30 boxes", never "rose from 10 to 25 dollars")
_HEDGED_ALTERNATIVE = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?),? or (?:maybe|perhaps|possibly|so) \$?(-?\d[\d,]*(?:\.\d+)?)"
                                 r"|(?<![\d.,])(\d[\d,]*(?:\.\d+)?) to \$?(\d[\d,]*(?:\.\d+)?) [a-z]+", re.IGNORECASE)


def _hedged_alternative(sentence: str, digits: str) -> bool:
    """Whether the sentence offers `digits` as one end of an alternative or a range ("7, or maybe 8", "20 to 30
    boxes"), never a range it only passes ("gives 5 to 2 friends, so 10 pens", "rose from 10 to 25 dollars")."""
    if re.search(r"\bfrom\b", sentence, re.IGNORECASE):
        return False
    return any(digits.replace(",", "") in {(g or "").replace(",", "") for g in m.groups()}
               for m in _HEDGED_ALTERNATIVE.finditer(sentence))


# (never "hundred-meter", "3 hundred and twenty", "3 thousand or so", "millions of", "Thousand Island")
_SCALE_AFTER = re.compile(r" ?(?-i:(thousand|million|billion|trillion|hundred))(?!s? of\b)s?\b(?!-)"
                          r"(?! ?(?:and )?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty"
                          r"|seventy|eighty|ninety)\b)|,? (?:or|maybe|perhaps|possibly)\b)", re.IGNORECASE)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "hundred": 100,
           "k": 10**3, "m": 10**6, "bn": 10**9}  # (the last three: money suffixes, "$70K", "$1.2M", "$3bn")


# (a line that opens as a check; narrower than commitment.is_aside on purpose: that one also skips notes and remarks,
# which changed a verdict when tried)
_CHECK_LINE = re.compile(r"[^\w\n]{0,4}(?:verification|verify(?:ing)?|check(?:ing)?|sanity check|double-check\w*)\b", re.IGNORECASE)
_RESTATING_SHARE = re.compile(r",\s*or\s+(?:about\s+)?\d+(?:\.\d+)?\s?(?:%|percent)\s*,", re.IGNORECASE)
_PART_OF_WHOLE = re.compile(r"(?<![\d.,])(\d[\d,]*) (?:of|out of) (?:the |all |all the |her |his |their |its )?\d[\d,]*(?![\d.,])"
                            r" [a-z]+", re.IGNORECASE)
_RESTATING_PARENTHETICAL = re.compile(r" ?\((?:that's|that is|i\.e\.,?|which is|=) [^()]{1,60}\)", re.IGNORECASE)
# (a box, `####`, an answer tag or an `A:` line commits its value whatever the prose around it says)
_MARKED_STATEMENTS = ("boxed", "repeated-box", "####", "answer-tag", "A:-line", "json-answer")


def find_number_answer(text: str) -> tuple[str | None, str]:
    """kind `number`: the number a completion commits to (`_number_answer`), unless the sentence stating it denies,
    bounds or ranges it; a scale word after it scales it."""
    text = fractions_as_decimals(text, repeating=None)  # class fraction-in-final-line, in every span ("3 1/2 hours" is 3.5)
    number, how = _number_answer(text)
    suffixed = _MONEY_SUFFIX.fullmatch(number.strip().strip("*")) if number is not None else None
    if suffixed:  # class money-suffix: "**$70K**", "$57.5k", "$1.2M" (a currency sign, then k, K, M or bn)
        number = "$" + suffixed.group(2)
    if number is None or not re.fullmatch(r"\$?-?\d[\d,]*(?:\.\d+)?", number.strip()):
        return number, how
    digits = number.strip().lstrip("$")
    tail = answer_region(text).rstrip()[-600:]
    at = tail.rfind(digits)
    while at > 0 and _CHECK_LINE.match(tail, tail.rfind("\n", 0, at) + 1):  # (the value where it is stated, never in
        at = tail.rfind(digits, 0, tail.rfind("\n", 0, at))  # a check line after it, "Verification: 7 + 9 + 11 = 27 ✓")
    if at == -1:  # a value read from words ("he will go ten miles") is checked where its words stand
        tail = worded_numbers_as_digits(tail)  # (so "at least ten sheep" bounds 10 too)
        at = tail.rfind(digits)
    if at == -1:
        return number, how
    after_money = next((m for m in _MONEY_SUFFIX.finditer(tail, max(0, at - 2)) if m.start(2) == at), None)
    suffix = (suffixed or after_money).group(3) if suffixed or after_money else None
    if suffix:  # (the checks read "$70K, or maybe $75K" as "$70, or maybe $75": every money suffix dropped)
        tail = _MONEY_SUFFIX.sub(lambda m: m.group(1), tail)
        at = tail.rfind(digits)
    sentence_start = max(tail.rfind(". ", 0, at), tail.rfind("\n", 0, at), tail.rfind("! ", 0, at), tail.rfind("? ", 0, at)) + 1
    sentence = tail[sentence_start : at + len(digits) + 40]
    if not how.startswith(_MARKED_STATEMENTS):
        negated = [m.group(1).replace(",", "") for m in _NEGATED_VALUE.finditer(sentence)]
        if digits.replace(",", "") in negated or is_bound(tail[max(sentence_start, at - 40) : at + len(digits) + 30], digits):
            return None, f"the sentence stating {number.strip()} denies or bounds it ({how}); no value is committed"
        clause = sentence[max(0, sentence.rfind(", ", 0, at - sentence_start) + 2) :]  # (never a range in a reason before it,
        # "Since 21 is the only multiple of 7 between 20 and 25, the answer is 21.")
        if _RANGE_VALUE.search(clause) or _hedged_alternative(sentence, digits):
            return None, f"the sentence stating {number.strip()} gives a range ({how}); no single value is committed"
        if clause_negates(sentence[: at - sentence_start + len(digits)], digits):  # "So it can't be 20.", "doesn't need 20"
            return None, f"the sentence stating {number.strip()} denies it ({how}); no value is committed"
        line_end = tail.find("\n", at)
        if withdrawn_by_bracket(tail[sentence_start : line_end if line_end != -1 else len(tail)].rstrip()):
            # class rejected-alternative: "So the number is 12 (but 3 x 12 = 36 fails the check)." withdraws 12, and
            # the bracket's own numbers are no answer either
            return None, f"a bracket after {number.strip()} sets it aside ({how}); no value is committed"
        stated_at = tail.find(digits, sentence_start)  # (the value as the sentence first states it, before its bracket)
        if CORRECTION_AFTER_VALUE.match(tail, stated_at + len(digits)):
            # class bracketed-correction (kleval.verify.sentence_values): a bracket right after the value
            return None, f"a bracket after {number.strip()} corrects it ({how}); no value is committed"
    if suffix:  # class money-suffix
        return _scaled(digits, suffix), how + "/scaled-value"
    scale_at = at + len(digits)
    if how.startswith("boxed"):  # (class scaled-value: also a scale word right after the box, "\boxed{70} thousand")
        boxes = boxes_with_positions(tail)
        scale_at = boxes[-1][1] + len(re.match(r"[$*]{0,3}", tail[boxes[-1][1] :]).group(0)) if boxes else -1
    scale = _SCALE_AFTER.match(tail, scale_at) if scale_at >= 0 else None
    if scale and re.search(rf"\bhow many {scale.group(1)}s\b", text, re.IGNORECASE):
        scale = None  # "How many thousands of dollars? ... \boxed{70} thousand dollars" answers in thousands
    if scale:
        return _scaled(digits, scale.group(1)), how + "/scaled-value"
    return number, how


# class money-suffix: a currency amount with a thousand or million suffix ("$70K", "$57.5k", "€1.2M", "$3bn")
# (groups: the amount with its sign, its digits, the suffix)
_MONEY_SUFFIX = re.compile(r"([$€£] ?(\d[\d,]*(?:\.\d+)?)) ?(k|K|M|bn)\b")


def scaled_reading(text: str, span: str) -> str | None:
    """class scaled-value (kind math): a plain number answer that a scale word follows where the text last writes it,
    "about **50 million** requests", is also that many (50000000; the count of millions, 50, stays the answer too);
    never a plural count, "7 hundreds", and never in a remark after the answer ("Note: if ..., it would be 12 thousand")."""
    number = span.strip()
    if not re.fullmatch(r"\d[\d,]*(?:\.\d+)?", number):
        return None
    region = answer_region(text).rstrip()
    at = [m.end() for m in re.finditer(rf"(?<![\d.,]){re.escape(number)}(?![\d])", region)]
    scale = _SCALE_AFTER.match(region, at[-1] + len(re.match(r"[$*]{0,3}", region[at[-1] :]).group(0))) if at else None
    line = region[region.rfind("\n", 0, at[-1]) + 1 :].split("\n", 1)[0] if at else ""
    if scale is None or scale.group(0).rstrip().endswith("s") or len(region) - at[-1] > 200 or is_aside(line) \
            or re.search(r"\b(?:if|would|could)\b", line, re.IGNORECASE):
        return None
    return _scaled(number, scale.group(1))


def _scaled(digits: str, scale: str) -> str:
    """`digits` times the scale word or suffix `scale`, as a number string."""
    value = Fraction(digits.replace(",", "")) * _SCALES[scale.lower()]
    return str(value.numerator) if value.denominator == 1 else str(float(value))


# (the part before the colon ends on a word, "7 such complex numbers:", never on a number: "the ratio is 3: 4")
_COLON_ELABORATION = re.compile(r"((?:^|.*?[.!?] )\W{0,3}(?:thus|so|therefore|hence|in total|altogether),? [^:\n]*?\d[^:\n]*?"
                                r"[A-Za-z]\*{0,2}):(?!\d) [^\n]+", re.IGNORECASE)
_NO_ELABORATION = re.compile(r"^\W*-?\$?\d[\d.,]*\$?\W*$|\b(?:but|however|leaves|leaving|gives|giving|yields?|excluding"
                             r"|removing|subtract\w*|minus|so|hence|thus|which is|that is)\b", re.IGNORECASE)
_COUNTED_NOUN = re.compile(r"\*{0,2}(?: [A-Za-z][\w'\-]*){1,4}\*{0,2}")


def _colon_count(line: str) -> tuple[str, str] | None:
    """class colon-elaboration: the one number a concluding final line states before a colon that lists what it
    counted ("Thus there are 4 real roots: $\\pm 1$ and $\\pm 2$." is 4) and the part before the colon, else None."""
    elaborated = _COLON_ELABORATION.fullmatch(line)
    numbers = standalone_numbers(elaborated.group(1)) if elaborated else []
    # (what follows the colon lists what was counted: never the value itself, "the number of handshakes among 10 people:
    # 45", nor a further step, "10 candidates: removing the 2 ... leaves 8")
    if len(numbers) != 1 or _NO_ELABORATION.search(line[elaborated.end(1) + 1 :]):
        return None
    before, after = elaborated.group(1)[: numbers[0].start()], elaborated.group(1)[numbers[0].end() :]
    # the number counts the noun that closes the part ("7 such complex numbers"), not a date or place ("in 2024 the
    # shop sold more bikes: 57 of them")
    if not _COUNTED_NOUN.fullmatch(after) or re.search(r"\b(?:in|on|at|by|since|from|until|of|to|after|before)\W*$", before,
                                                         re.IGNORECASE):
        return None
    return numbers[0].group(0).rstrip(","), elaborated.group(1)


def _alternatives(text: str) -> str | None:
    """class number-alternatives: "8 or 9" when `text` ends on two numbers joined by "or" ("It could be 11 or 14",
    "the answer is either 8 or 9"): two values, never the last one; else None."""
    numbers = standalone_numbers(text)
    if len(numbers) >= 2 and re.fullmatch(r",? or ", text[numbers[-2].end() : numbers[-1].start()]):
        return f"{numbers[-2].group(0)} or {numbers[-1].group(0)}"
    return None


def _number_answer(text: str) -> tuple[str | None, str]:
    """The math grammar, a number inside a worded span, then the last number of the final line."""
    span, how = find_math_answer(text)
    if span is not None and how in ("conclusion-sentence", "final-statement"):
        # (kind number asks for one value: the count before the colon, not the list of what was counted after it)
        final_line = text.rstrip().rsplit("\n", 1)[-1]
        counted = _colon_count(final_line)
        if counted is not None and counted[0] != span:
            return counted[0], how + "/colon-elaboration"
    if span is None and (how.startswith(("the answer line is empty", "several ####", "the answer ", "the closing sentence", "a footnote",
                                         "the text stops"))
                         or "is retracted later" in how):
        return None, how  # (class retracted-statement: "The answer is 694. Wait, that's wrong." leaves no value)
    fraction = re.match(r"(-?\d+/[1-9]\d*)(?=(?: [a-z][^\d=]*)?$)", span if re.search(r"\d", span) else worded_numbers_as_digits(span)) \
        if span is not None else None  # (never "3/4 of 20 liters = 15 liters", which goes on to compute the value)
    if fraction is not None:  # class fraction-in-span: "7/8 of the pie", "seven eighths of the pie" (fraction-words) is 7/8
        return fraction.group(1), how + "/fraction-in-span"
    if span is not None and re.search(r"\d", span):
        # class parenthetical-addition: "Hillary has **7 nickels** (and 4 dimes)" adds another quantity after the answer
        # (class restating-parenthetical: also inside the answer, "**Answer:** 68 °F (which is 20 °C)" is 68)
        main_part = _RESTATING_PARENTHETICAL.sub("", _ADDITION.sub("", span))
        span = main_part if re.search(r"\d", main_part) else span
        if re.search(r"(?<![\\A-Za-z0-9])[A-Za-z]{3,}(?![A-Za-z0-9])", span) and last_number(span):
            bold = math_value_with_unit(span) or closing_bold_value(span, text[: max(0, text.rfind(span))])
            if bold is not None:
                return bold, how + "/bold-value-in-span"  # class bold-value-then-aside (kleval.verify.bold_value)
            if (larger := larger_unit_value(span)) is not None:  # class compound-duration: "7 hours 30 minutes" is 7.5
                return larger, how + "/compound-duration"  # hours, the unit a question asks in (never the 30 alone)
            if (both := _alternatives(span)) is not None:
                return both, how + "/alternatives-in-span"
            result = computed_result(span, text[: max(0, text.rfind(span))])  # class computed-result (kleval.verify.clause_numbers)
            if result is not None:
                return result, how + "/computed-result-in-span"
            main = main_clause_number(span)  # "The answer is 8 apples in 2 baskets." is 8
            return (main, how + "/main-clause-number-in-span") if main else (last_number(span), how + "/last-number-in-span")
        return span, how
    region = answer_region(text)
    lines = [line for line in region.rstrip()[-1000:].split("\n") if line.strip()]
    asked = asks_hypothetical(region)
    while len(lines) > 1 and (is_aside(lines[-1], asked) or elaborates(lines[-1], "\n".join(lines[:-1]))):
        lines.pop()  # class verification-line, class aside-after-answer, class closing-elaboration
    working = region[: max(0, region.rfind(lines[-1]))] if lines else ""  # (the text before the final line)
    if lines:
        # class date-not-quantity: a calendar date ("until 01/04/1938", "on 2024-03-15") is never the number asked for
        lines[-1] = _CALENDAR_DATE.sub("a date", without_closing_asides(lines[-1], asked))
        lines[-1] = fractions_as_decimals(lines[-1])  # class fraction-in-final-line (kleval.verify.decimals)
        last_sentence = (split_sentences(lines[-1]) or [""])[-1]  # class worded-number-in-sentence: "he will go ten miles"
        if last_sentence and lines[-1].endswith(last_sentence):
            lines[-1] = lines[-1][: len(lines[-1]) - len(last_sentence)] + worded_numbers_as_digits(last_sentence)
    if lines and (HEDGED.search(lines[-1]) or _NO_COMMITMENT.search(lines[-1])):
        return None, "the final line declines to commit to a value (\"I'm not sure\"); its numbers are not a guess"
    bold = closing_bold_value(lines[-1], region[: max(0, region.rfind(lines[-1]))]) if lines else None
    if bold is not None:  # class bold-value-then-aside (kleval.verify.bold_value): "... left with **$55**. Not bad, ..."
        return bold, "bold-value-of-final-line"
    # class computed-result (kleval.verify.clause_numbers), its brackets and all: "The garden measures 12 m by 4 m (48
    # square meters)." after "12 × 4 = 48" is 48
    result = computed_result(lines[-1], working) if lines else None
    if result is not None:
        return result, "computed-result-of-final-line"
    if lines:  # class restating-parenthetical: "It will take Tom 5 hours (that's 300 minutes) to catch up." restates 5
        lines[-1] = without_parenthetical_aside(_RESTATING_PARENTHETICAL.sub("", lines[-1]), region[: max(0, region.rfind(lines[-1]))])
        # (also an appositive share, "12 of the 30 students, or 40%, walk to school.")
        lines[-1] = _RESTATING_SHARE.sub(",", lines[-1])
        part = _PART_OF_WHOLE.search(lines[-1])
        if part is not None and len(standalone_numbers(lines[-1])) == 2:
            # class part-of-whole: "12 of the 30 students walk to school." counts the part; the whole is given
            return part.group(1), "part-of-whole-of-final-line"
        # class justification-clause: "you can buy 6 pens, since 6 × 3 = 18." reasons after the value
        lines[-1] = drop_justification(lines[-1])  # (kleval.verify.clauses: also without a comma, "... because 13 is prime")
        # class colon-elaboration: "Thus there are 7 such complex numbers: $z = 0$ together with the six sixth roots of
        # unity." concludes before its colon and lists what it counted after it
        counted = _colon_count(lines[-1])
        if counted is not None:
            lines[-1] = counted[1]
    total = stated_total(lines[-1]) if lines else None
    if total is not None and total_stands(lines[-1][total.end() :]):  # class total-statement: "She reads 25 pages a day for 14 days, for 350 pages, total."
        return (total.group(1) or total.group(2)).rstrip(","), "total-of-final-line"
    remarked = which_remark_value((split_sentences(lines[-1]) or [""])[-1], True) if lines else None
    if remarked is not None and re.fullmatch(r"\$?-?\d[\d,]*(?:\.\d+)?%?", remarked.strip()):
        return remarked.strip().lstrip("$"), "which-remark-of-final-line"  # class which-remark (kleval.verify.sentence_values)
    main = main_clause_number(lines[-1]) if lines else None
    if main is not None:
        return main, "main-clause-number-of-final-line"
    if lines and (both := _alternatives(lines[-1])) is not None:  # "It could be 11 or 14, depending on ..."
        return both, "alternatives-of-final-line"
    numbers = standalone_numbers(lines[-1]) if lines else []
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
