"""Answer phrases ("the final answer is", "Answer:", "La respuesta es") and the value each one states."""
from __future__ import annotations

import re

from kleval.verify.extract import boxes_with_positions, clean_span, math_blocks, math_safe_tail
from kleval.verify.glued import leading_expression, standalone
from kleval.verify.named_values import named_value_list
from kleval.verify.notations import real_line_except
from kleval.verify.sentence_values import (HEDGED, NEGATION, PROSE_TAIL, TRAILING_CLAUSE, value_ending, which_remark_value,
                                           without_check_clause,
                                           without_parenthetical_aside)
from kleval.verify.statements import WINDOW, Statement, joined_math

# class answer-arrow: an arrow that points from the answer word to the answer ("Answer → 4", "Correct option → c")
ARROW = r"(?:→|⟶|⇒|->|=>)"
# the copulas an answer phrase states its value with ("the answer is", "... should be", "... must be")
ANSWER_COPULA = r"(?:is|would be|will be|should be|must be|has to be)"
_ANSWER_PHRASE = re.compile(rf"(?:final answer|answer)(?: {ANSWER_COPULA}(?![A-Za-z]))?"
                            # (class answer-arrow: "Answer → 4", "final answer => 12")
                            rf"(?: ?(?:[:=]|{ARROW})(?!>))?", re.IGNORECASE)
_ARROW_LEAD = re.compile(r"[\s*#>_-]*(?:(?:so|thus|hence|therefore|my|our|the|final|correct|right)\b[\s,:]*)*", re.IGNORECASE)


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding `text[at]` starts: after ". ", "? ", "! " or a newline."""
    return max(text.rfind(". ", 0, at), text.rfind("? ", 0, at), text.rfind("! ", 0, at), text.rfind("\n", 0, at)) + 1


def arrow_heads_sentence(text: str, at: int) -> bool:
    """Whether an answer word at `at` that an arrow follows opens its sentence or line ("Answer → 4", "So the correct
    option → c"): an arrow labels the answer; in prose ("not the answer → 12", "Draft answer → 7", "First guess for
    the answer → C") it names some other value. (class answer-arrow)"""
    return _ARROW_LEAD.fullmatch(text, _sentence_start(text, at), at) is not None


EMPTY = "\x00empty"  # an answer line left empty: a statement of no answer
_OPENS_MATH = re.compile(r"[ *\n]{0,6}(?:\$|\\\(|\\\[|\\boxed)")


# class yes-no-with-justification: a yes or no that opens its justification ("Yes, the sequence is bounded,
# because ...", "**No**. The inequality fails for n = 7", "No, it is not possible, since ..."); never "No, wait".
YES_NO_OPENING = re.compile(r"(?:\*\*)?(yes|no)(?:\*\*)?(?:[,.;:!—]|\*\*|$)(?! ?(?:wait|actually|hmm|let)\b)",
                            re.IGNORECASE)


def _phrase_value(rest: str, before: str = "") -> str | None:
    """The answer stated right after an answer phrase: its math block(s), else words to the sentence end (`before`: the
    text before the phrase)."""
    following = rest[:800].lstrip(" *\n")
    block = math_blocks(following)
    if block and block[0][0] == 0 and "\n" in following[: block[0][1]]:  # "is\n\\[\n\\begin{pmatrix}...\n\\]"
        return block[0][2] or None
    if len(rest) <= 600 and TRUNCATED_END.search(rest.rstrip()) and not math_blocks(rest):
        return None  # class truncated-after-phrase: "The answer is therefore $\\frac{14}{" was cut off
    lines = rest[:600].split("\n")
    segment = lines[0].strip().strip("*").strip()
    if not segment and len(lines) > 1:
        segment = next((line.strip() for line in lines[1:] if line.strip()), "")
        if re.match(r"[A-Z][A-Za-z ]{2,20}:", segment):
            return EMPTY  # class empty-answer-line: "Answer:\nConfidence: 10%" states no answer
    if not segment:
        return None
    # (class check-clause, "the answer is 7, and as a check, 7 × 6 = 42."; class count-aside, "150 km (3 hours).")
    segment = without_parenthetical_aside(without_check_clause(re.sub(r"\s*[✓✔✅☑]+\s*$", "", segment)), before)
    yes_no = YES_NO_OPENING.match(segment)
    if yes_no:  # class yes-no-with-justification: "the answer is yes, because $f$ is even"
        return yes_no.group(1)
    difference = real_line_except(segment) if "real" in segment else None
    if difference:  # class prose-set (kleval.verify.notations): "**Final answer:** All real numbers except $x = 3$."
        return difference
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
    first = re.split(r"(?<=[.!?]) (?=[A-Z])", segment)[0]
    remarked = which_remark_value("is " + first, True)  # class which-remark: "The answer is $0.75, which is 75 cents."
    if remarked:
        return remarked
    stated = value_ending(first, concluding=True)
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
    if not rest.strip(" .*") or re.match(r"\.(?: |$)", rest) or TRAILING_CLAUSE.match(rest) or PROSE_TAIL.match(rest):
        return expression
    return None


# (a sentence that supposes another problem, also behind a label: "Note: if the problem had asked for the perimeter, the
# answer would be 24.", "Had it asked for ...")
_SUPPOSING = re.compile(r"\W{0,4}(?:(?:note|n\.b\.|side note|aside|remark|p\.s\.)\W{0,3}(?:that )?)?(?:if|had|were)\b", re.IGNORECASE)


_FORM_OF_ANSWER = re.compile(r"(?:an?|in|expressed|rounded|given|written|as|one of|the form|a whole|your)\b", re.IGNORECASE)


_BOUND_VALUE = re.compile(r"[ *:]{0,4}(?:(?:a little|slightly|a bit|much|far|well|somewhat) )?(?:more|less|fewer|greater|bigger"
                          r"|smaller|larger|higher|lower) than\b|[ *:]{0,4}(?:at (?:least|most)|no (?:more|less|fewer) than|between)\b",
                          re.IGNORECASE)


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
        arrow = re.search(rf"{ARROW}$", stated) is not None
        committed = stated.endswith((":", "=", " is", " be")) or arrow or _OPENS_MATH.match(tail, m.end()) or heading
        if not committed or (arrow and not arrow_heads_sentence(tail, m.start())):
            continue
        if re.search(r"\b(?:size|sign|form|units?|magnitude|order|format|range|check|parity|type|length) of (?:the|my|our|this) $",
                     tail[max(0, m.start() - 30) : m.start()], re.IGNORECASE):
            return None  # class answer-as-noun: "a sanity check on the size of the answer: about 11 dozen ..." labels
            # nothing, and an answer phrase before it is left behind by the check ("My first thought: the answer is 12.
            # Check the sign of the answer: ... so the change is -12.")
        start = _sentence_start(tail, m.start())
        end = re.search(r"[.!?](?: |$)|\n|$", tail[m.end() :]).start() + m.end()
        if HEDGED.search(tail[start : m.start()]) or re.search(r", but\b", tail[m.end() : end]):
            continue  # class hedged-statement: "It is tempting to say the answer is 6, but ..."
        if tail[end : end + 1] == "?" or re.match(r"[\s*:]*(?:not|never|cannot)\b", tail[m.end() : m.end() + 12]):
            continue  # class asked-or-negated: "Is the answer \\boxed{5}?", "the answer is not 5"
        if _BOUND_VALUE.match(tail, m.end()):
            continue  # class bound-answer-phrase: "the answer should be a little more than 50" bounds, never states, it
        value = _phrase_value(tail[m.end() :], tail[: m.start()])
        if heading and not stated.startswith("final") and value and not valueish(value) and value.count(" ") >= 4:
            continue  # "## Answer\n\nTo solve this, we ..." heads an explanation, not a value
        if value and not valueish(value) and (_FORM_OF_ANSWER.match(value) or _FORM_OF_ANSWER.match(tail[m.end() :].lstrip(" *"))):
            continue  # class format-instruction: "The answer should be an integer." (an echoed prompt) states no value
        if value == EMPTY:
            return Statement("", "empty-answer-line", offset + m.start())
        # class hypothetical-answer: "If each bus made 2 trips, the answer would be 900." varies the problem; it
        # answers only when nothing else is stated (kleval.verify.grammar prefers any other statement)
        hypothetical = stated.endswith("would be") and _SUPPOSING.match(tail, start, m.start())
        how = "hypothetical-answer-phrase" if hypothetical else "answer-phrase"
        return Statement(value, how, offset + m.start(), offset + end) if value else None
    return None


# class answer-phrase-language: the answer phrase in the languages models most often answer in ("La respuesta es 7.",
# "Die Antwort ist 7.", "Réponse : 7", "答案是 7。", "答えは 7 です。", "답은 7 입니다.", "Ответ: 7"); committed only with
# a copula or a colon, and its value is the math block, box or number that opens what follows.
FOREIGN_ANSWER = (r"(?:respuesta|réponse|antwort|risposta|resposta|antwoord|odpowiedź|cevap|jawaban|ответ"
                  r"|最终答案|正确答案|答案|答え|正解|정답|답)")
_FOREIGN_PHRASE = re.compile(
    rf"{FOREIGN_ANSWER}(?: (?:final|finale|correcta|correcte|correta|corretta|richtige|endgültige))?"
    # (class foreign-copula-filler: "La réponse est donc 3/4.", "La respuesta es entonces 12.", "Die Antwort ist also 9.")
    r"(?: ?(?:es|est|ist|lautet|è|é|is|будет)\b"
    r"(?: (?:donc|alors|ainsi|finalement|entonces|pues|por lo tanto|also|somit|daher|quindi|dunque|então|portanto))?"
    r"(?: (?:la|le|die|a|de))?| ?[:：=]| ?(?:是|为|為|は|은|는|:))",
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
        return _cjk_conclusion(region)
    found = _statement_after(region, tail, last, "answer-phrase")
    if found is None:
        # class foreign-answer-sentence: a sentence after the phrase that holds one number states it ("**Respuesta:**
        # hay 2.598.960 manos posibles.", "**Réponse :** Diana obtiendrait **1 599 $** de plus.")
        line = tail[last.end() :].split("\n", 1)[0]
        numbers = _ONE_NUMBER.findall(line)
        if len(numbers) == 1 and not re.search(r"[=<>≤≥]", line) and not _FOREIGN_GUARD.search(line):
            start = len(region) - len(tail) + last.start()
            return Statement(numbers[0].strip(), "answer-phrase", start, start + (last.end() - last.start()) + len(line))
    return found


# class cjk-conclusion: a closing Chinese or Japanese sentence that opens as a conclusion and ends in a value after a
# copula ("因此，$x$ 的取值范围是 $[-1, 3]$。", "所以共有 12 种。" is not one: no copula before its value; "故 $a = 3$。"):
# the math block or number that closes it. Never one that denies, hedges, supposes, checks or sets aside (不是, 大概,
# 假设, 验证时, 舍去的值是), and never where the text has a box
_CJK_CONCLUSION = re.compile(r"(?:^|\n)[ \t*]*(?:因此|所以|故|综上所述|综上|于是|因而|从而|由此可知|したがって|よって)[，,、：: ]?"
                             r"([^\n。]{0,80}?)(?:是|为|為|は|=|＝|：|:)? ?(\$[^$\n]{1,120}\$|\\\([^\n]{1,120}?\\\)|-?\d[\d,]*(?:\.\d+)?)"
                             r" ?(?:です)?[。．.]?\**[ \t]*$")
_CJK_GUARD = re.compile(r"不|约|左右|可能|也许|或|大概|应该|似乎|估计|舍去|排除|错误|验证|检验|假设|若|如果|设|おそらく|たぶん|かもしれ")


def _cjk_conclusion(region: str) -> Statement | None:
    """The value closing a final Chinese or Japanese conclusion with a copula (class cjk-conclusion), else None."""
    tail = region.rstrip()[-400:]
    m = _CJK_CONCLUSION.search(tail)
    # (never over a box: "$\\boxed{8}$\n\n因此，验证时总数为 $12$。" checks the boxed answer)
    if m is None or _CJK_GUARD.search(m.group(1)) or boxes_with_positions(region) or not re.search(r"(?:是|为|為|は|=|＝|：|:) ?$", tail[m.start(2) - 2 : m.start(2)]) \
            and not m.group(2).startswith("$"):
        return None
    value = m.group(2).strip("$")
    value = value[2:-2] if value.startswith("\\(") else value
    start = len(region.rstrip()) - len(tail) + m.start()
    return Statement(value.strip(), "cjk-conclusion", start, len(region)) if value.strip() else None


# (never a denied, bounded or hedged number: "no es 12", "más de 100", "menos de 5", "quizás 7", "au moins 3", "etwa 5")
_FOREIGN_GUARD = re.compile(r"\b(?:no|non|nicht|kein|pas|não|nie|not|más de|menos de|plus de|moins de|mehr als|weniger als"
                            r"|mindestens|höchstens|au moins|au plus|al menos|como mucho|almeno|pelo menos|quizás|quizá|tal vez"
                            r"|acaso|vielleicht|peut-être|forse|talvez|environ|aproximadamente|alrededor de|circa|etwa|ungefähr"
                            r"|about|around|maybe|perhaps|at least|at most|more than|less than"
                            r"|excepto|except|sauf|außer|tranne|exceto|salvo|menos)\b", re.IGNORECASE)
# (a number with its grouping, "2.598.960", "1 599", "58.500", "3,5")
_ONE_NUMBER = re.compile(r"(?<![\w.,])-?\d{1,3}(?:(?:[.,]| (?=\d{3}\b))\d{3})*(?:[.,]\d+)?(?![\w])")


def _statement_after(region: str, tail: str, phrase: re.Match[str], how: str) -> Statement | None:
    """The value that opens what follows a committing phrase: a math block or box, an expression or a number."""
    rest = tail[phrase.end() :]
    start = len(region) - len(tail) + phrase.start()
    end = start + (phrase.end() - phrase.start()) + len(rest.split("\n", 1)[0])
    if _OPENS_MATH.match(rest) or rest.lstrip(" *").startswith("\\boxed"):
        value = _phrase_value(rest)
    else:  # class glued-number: "La respuesta es 3x." opens with an expression, never the value 3
        number = _LEADING_VALUE.match(rest)
        value = opening_expression(rest.lstrip(" *")) or (
            number.group(1) if number and standalone(rest, number.start(1), number.end(1)) else None)
    return Statement(value, how, start, end) if value else None


# class value-then-phrase: the value before the phrase that names it the answer ("..., and that's how we get 45 as our
# answer.", "That's it! 24 it is!", "So 12 is our final answer.")
_VALUE_THEN_PHRASE = re.compile(r"(?:^|(?<=[.!?:;,] )|(?<=\n)|\b(?:get|got|have|take|obtain|so|thus|hence|then|and|with) )"
                                r"(\$?-?\d[\d,]*(?:\.\d+)?\$?) (?:as (?:our|the|my) (?:final )?answer\b"
                                r"|is (?:our|my) (?:final )?answer\b|it is\b(?= ?[.!]))")


def value_then_phrase(region: str) -> Statement | None:
    """The value of the last "N as our answer" or "N it is!" in the final window, in a sentence that neither denies,
    supposes, contrasts nor defers it ("We can't take 45 as our answer yet", "At first I got 45 as my answer, but")."""
    tail = region[-WINDOW:]
    last = None
    for last in _VALUE_THEN_PHRASE.finditer(tail):
        pass
    if last is None:
        return None
    sentence = tail[max(tail.rfind(". ", 0, last.start()), tail.rfind("\n", 0, last.start())) + 1 :].split("\n", 1)[0]
    if re.search(r"\b(?:not|never|would|yet|but|at first|initially|instead|suppose|if|don't|can't|cannot)\b|n't\b", sentence,
                 re.IGNORECASE):
        return None
    start = len(region) - len(tail) + last.start()
    return Statement(last.group(1).strip("$"), "answer-phrase", start, start + len(last.group(0)))


# class answer-first: a completion that opens with its value and then says it will explain ("**18**. Here's why:",
# "42 - here is how:", "$\frac{3}{4}$. Explanation:") answers with that value; the explanation after it may hold
# other numbers (a check, "removing one shelf would leave 12"). Only a bold value alone before the cue, on the first
# line (never a list's "1. Reasoning:"), and a later conclusion that states another number still contradicts it
EXPLAINS = (r"(?:here(?:'s|\u2019s| is) (?:why|how|the (?:breakdown|reasoning|explanation|calculation|working))\b"
             r"|explanation\b|reasoning\b|let me explain\b)")
_ANSWER_FIRST = re.compile(r"^\W{0,3}?\*\*\$?(-?\d[\d,]*(?:\.\d+)?|\\frac\{\d+\}\{\d+\})\$?\*\*[.:]? ?(?:[-\u2014\u2013:] ?)?"
                           rf"{EXPLAINS}", re.IGNORECASE)
# (or an opening bold sentence with one number, "**She taps 2450 times in total.**", then "Here is the breakdown:")
_SENTENCE_FIRST = re.compile(rf"^\*\*([^*\n]{{1,150}})\*\*[ \t]*\n\s*{EXPLAINS}", re.IGNORECASE)


# (a plan is no answer: "**Let's solve this in 3 steps.**", "**First, find the 2 totals.**")
_PLAN = re.compile(r"\W*(?:let(?:'s| us| me)|I(?:'ll| will)|we(?:'ll| will| need| can)|first|to (?:solve|find)|step|here)\b",
                   re.IGNORECASE)


# (or a first line that is only a bold value, "</think>\n\n**20**\n\nAn octagon has 8 vertices; ...": the explanation follows)
_BOLD_FIRST_LINE = re.compile(r"^\W{0,3}?\*\*\$?(-?\d[\d,]*(?:\.\d+)?|\\frac\{\d+\}\{\d+\})\$?\*\*\.?[ \t]*\n[ \t]*\n")


def answer_first(region: str) -> Statement | None:
    """The value a completion opens with before "Here's why:" (class answer-first)."""
    m = _ANSWER_FIRST.match(region.lstrip())
    if m is None and (line := _BOLD_FIRST_LINE.match(region.lstrip())):
        start = len(region) - len(region.lstrip()) + line.start(1)
        return Statement(line.group(1), "answer-first-line", start, start + len(line.group(0)) - line.start(1))
    if m is None:
        sentence = _SENTENCE_FIRST.match(region.lstrip())
        numbers = re.findall(r"(?<![\w.,])-?\d[\d,]*(?:\.\d+)?(?![\w,])", sentence.group(1)) if sentence else []
        if len(numbers) != 1 or NEGATION.search(sentence.group(1)) or _PLAN.match(sentence.group(1)):
            return None
        start = len(region) - len(region.lstrip()) + sentence.start(1) + sentence.group(1).find(numbers[0])
        return Statement(numbers[0], "answer-first", start, start + len(numbers[0]))
    start = len(region) - len(region.lstrip()) + m.start(1)
    return Statement(m.group(1), "answer-first", start, start + len(m.group(0)) - m.start(1))


# class go-with: the writer's closing choice among candidates ("Two of the three paths agree, so I'll go with
# $\frac{2}{3}$.", "I will go with 12.") commits to that value, later than any of the boxes it chose among
_GO_WITH = re.compile(r"\bI(?:'ll|’ll| will| would|'d|’d)? (?:go with|settle on|stick with)\b:? ?", re.IGNORECASE)


def go_with_statement(region: str) -> Statement | None:
    """The value after the last "I'll go with" in the final window."""
    tail = region[-WINDOW:]
    last = None
    for last in _GO_WITH.finditer(tail):
        pass
    return _statement_after(region, tail, last, "go-with") if last is not None else None


# class truncated-mid-clause: a text that stops on a copula, article or preposition was cut off
TRUNCATED_END = re.compile(r"(?:\\boxed|\\fbox) ?\{[^}]{0,150}$|[{(\[\\=+\-/^_,;:]$"
                           r"|\b(?:is|are|was|were|be|equals|of|the|an?|to|by|and|or|then|gives|that|on|in|into|for|with|from|at"
                           r"|than)$")


def valueish(span: str) -> bool:
    return bool(re.search(r"\d|\\", span))
