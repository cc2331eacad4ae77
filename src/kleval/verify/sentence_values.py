"""The value one sentence states: after a copula, at its end or before a trailing clause, unless hedged or a bound."""
from __future__ import annotations

import re

from kleval.verify.clauses import justification_start
from kleval.verify.dates import trailing_date
from kleval.verify.decimals import DOT_GROUPED_THOUSANDS
from kleval.verify.extract import math_blocks
from kleval.verify.glued import standalone, trailing_expression, unit_power
from kleval.verify.restatement import drop_restatement, without_equal_restatement
from kleval.verify.statements import is_joiner, joined_math
from kleval.verify.units import compound_quantity, unit_of, unit_ratio
from kleval.verify.value_lists import list_after_copula

# class hedged-statement: a value the sentence itself doubts or rejects is not its answer ("It is tempting
# to say the answer is 6, but that ignores overlaps", "Thus $x = 7$ is a candidate, but it fails ...").
# Only words that doubt the writer's own value: problem words ("the candidates", "could be arranged",
# "incorrect answers") are never hedges. (class soft-hedge: "perhaps", "maybe", "I guess" only soften a value
# the text still gives as its answer, "Perhaps the answer is 7."; asked, "Maybe 12?", or followed by "but" it is none)
HEDGED = re.compile(r"\b(?:tempting|mistakenly|naively|suppose|supposing|my (?:first )?guess|at first glance"
                    r"|(?:my )?(?:first|initial) (?:thought|instinct|impression|idea)"
                    r"|I'm not sure|not sure"
                    r"|(?:is|are|as) (?:a |one )?(?:possible |potential )?candidates?)\b", re.IGNORECASE)


# class concluding-opener: the words that open a conclusion, including the plain ones models use ("That means Sam
# pays 45 dollars altogether.", "We conclude that ...", "In the end, ...", "All in all, ...", "As a result, ...")
CONCLUDING = re.compile(r"^(?:\*\*)?(?:(?:hmm+|oh|ah|ok|okay|well|alright)[,.!]* )?(?:Therefore|Thus|Hence|So|In conclusion"
                        r"|Finally|Consequently|Conclusion|(?:This|That|Which) means|We (?:can )?conclude|In the end"
                        r"|All in all|Altogether|Overall|In summary|To summarize|To sum up|As a result|Ultimately)\b",
                        re.IGNORECASE)
_FILLERS = (r"approximately|about|exactly|roughly|around|precisely|simply|just|then|thus|therefore|now|also|"
            r"indeed|still|equal to|given by|found to be|the following")
_COPULA_AT_END = re.compile(rf"(?:\b(?:is|are|was|were|equals|be|becomes|gives|yields|get|gets|obtain|it's|remains"
                            rf"|measures|totals|lands on|falls on|(?:find|finds|found|conclude|see|have) that"
                            rf"|(?:works?|comes?) (?:out )?to|amounts? to|adds? up to"
                            # class characterizing-condition: "... exactly when $k < -5$", "... if and only if $n$ is odd"
                            rf"|(?:exactly|precisely|only) (?:when|if|for)|if and only if|iff)"
                            rf"|=|:|\\approx)(?: (?:{_FILLERS}))*[ ,:]*$", re.IGNORECASE)
# "17 is the answer.", "The perimeter, 34 cm, is what we wanted" (the value, a unit word at most, then the claim)
_NUMBER_IS_ANSWER = re.compile(r"(?:^|[,:] |^(?:so|thus|hence|therefore),? )(-?\d[\d,]*(?:\.\d+)?)(?=(?: [a-z]{1,8}){0,2},? ?(?:is|are) "
                               r"(?:(?:the|our) (?:final |only )?(?:answer|solution|result)s?\b"
                               r"|what (?:we|the question|the problem) (?:wanted|want|needed|need|asked|asks|are looking for)))",
                               re.IGNORECASE)
_VALUE_IS_ANSWER = re.compile(r"^ ?,? ?(?:is|are) (?:the|our) (?:final |only )?(?:answer|solution|result)s?\b",
                              re.IGNORECASE)
NUMBER_TEXT = rf"-?\$?(?:{DOT_GROUPED_THOUSANDS}|\d{{1,3}}(?: \d{{3}})+(?!\d)(?:\.\d+)?|\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?%?"
_LEADING_NUMBER = re.compile(NUMBER_TEXT)
_UNIT_TAIL = re.compile(r"^(?!\s*(?:is|are|was|were|be|seems?|looks?|makes?|gives?)\b)(?: ?[A-Za-z][A-Za-z.\-²³]{0,15}(?:/[A-Za-z]{1,8})?){0,3} ?$")  # (also "mol/L", "km/h")
NEGATION = re.compile(r"\b(?:not|no|never|cannot|isn't|aren't|doesn't|don't|nor)\b|n't\b", re.IGNORECASE)


_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]}$*][.!?])(?<!i\.e\.)(?<!e\.g\.)(?<!etc\.)(?<!vs\.) (?=[A-Z\\$*(])|(?<=\$\$) (?=[A-Z])|(?<=\\\]) (?=[A-Z])|\n")


def sentence_start(text: str, at: int) -> int:
    """Where the sentence holding `text[at]` starts (after a full stop and a space, or a newline)."""
    return max(text.rfind(". ", 0, at), text.rfind("\n", 0, at)) + 1


def split_sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


# class parenthetical-aside: a bracketed addition or note that closes a sentence after its statement, opening with
# "and", "with", "along with", "as well as", "where" or "using" ("Hillary has 7 nickels (and 4 dimes).", "the result is
# $152A_{11}$ (with $A$ standing for ten).") states nothing; never one that corrects, offers an alternative, doubts,
# totals or names the value (`_ASIDE_GUARD`: "(and then 8, actually)", "(with a total of 9)", "(where x = 5)"), never
# math (`\(33\)`) nor a product (`2(a+b)`)
_PARENTHETICAL_ASIDE = re.compile(r"(?<=\S) \(((?:and|with|along with|as well as|where|using) [^()\\]{1,200})\)(?=[.!]?\s*$)")
# class comparison-aside: a closing bracket that compares the value with another quantity ("... is about **11.2 km/s** (√2
# times the low-orbit speed of 7.9 km/s).", "(twice the speed of the bus)", "(3 more than Ann's)") states that quantity,
# never the answer
_COMPARISON_ASIDE = re.compile(r"(?<=\S) \(((?=[^()]{0,60}?\b(?:times|twice|thrice|half|than|compared (?:with|to)|as (?:much|many|large"
                               r"|long|fast|big) as)\b)(?![^()]*\b(?:reject\w*|extraneous|invalid|discard\w*|exclud\w*|impossible"
                               r"|fails?|must|since|because|asked|want\w*|answer|which|so|actually|oops|correct\w*|really|means|gives|total|in all)\b)"
                               r"[^()]{1,200})\)(?=[.!]?\s*$)", re.IGNORECASE)
# (words of a bracket that corrects or totals the value, `_CORRECTING`, or doubts or revises it, never only explains it)
_CORRECTING = (r"or|actually|wait|correct(?:ion|ed|ly)?|mean|meant|rather|instead|oops|mistake|sorry|wrong|answer|final"
               r"|make that|typo|so|total|altogether|in all|overall")
_REVISING = (rf"{_CORRECTING}|should|not|no|maybe|perhaps|probably|approximately|about|edit(?:ed)?|recount(?:ed|ing)?"
             r"|update[ds]?|revised?|sum|earned|earns|makes?|gives?|comes? to|well|now|profit|loss|approx|left|gave|after")
_ASIDE_GUARD = re.compile(rf"\b(?:{_REVISING}|minus|plus|less)\b|n't\b|=|\?", re.IGNORECASE)
_BREAKDOWN_GUARD = re.compile(rf"\b(?:{_REVISING})\b|n't\b|=|\?|\$|\\", re.IGNORECASE)


# class bracketed-correction: a bracket after the value that corrects it ("Total: $1,800 (correction: ... so $1,500).",
# "The answer is 2940 (correction: 2940 is only the new cases ...)") withdraws the value before it
BRACKETED_CORRECTION = re.compile(r"\((?=[^()]*\d)(?:[^()]*(?:\b(?:correction|make that|oops|edit)\b|\bshould (?:be|read) \$?\d"
                                  r"|\brecount(?:ed|ing)?\b|\bno, I\b|\bdouble-?counted\b|\bmiscount(?:ed)?\b|\bcounted [^()]{0,40} twice\b))"
                                  r"[^()]*\)", re.IGNORECASE)
# (kind number: such a bracket right after the stated value, a unit or a few words between them)
CORRECTION_AFTER_VALUE = re.compile(r"[^.()\n]{0,30}" + BRACKETED_CORRECTION.pattern, re.IGNORECASE)


# (class converting-parenthetical: a bracket right after a value and its unit that gives the value in another unit,
# "2.5 km (2500 m)", "6 ft (about 1.83 m)", restates it wherever it stands in the sentence)
_CONVERTING = re.compile(r"(?<=\d) ?([A-Za-z]{1,12})\.? \((?:about |approximately |roughly |≈ ?|~ ?)?-?\d[\d,]*(?:\.\d+)? ?([A-Za-z]{1,12})\.?\)")


# (after one quantity in two units, "3 hours 24 minutes (204 minutes)", only a bracket that states its total: the
# quantity is read whole, class compound-in-smaller-unit)
_COMPOUND_BEFORE = re.compile(r"(\d+ ?[A-Za-z]{1,12},? (?:and )?)?(\d+)$")


def _converts(sentence: str, m: re.Match) -> bool:
    first, second = unit_of("1 " + m.group(1)), unit_of("1 " + m.group(2))
    if not (first and second and (first == second or unit_ratio(first, second) is not None)):
        return False
    compound = _COMPOUND_BEFORE.search(sentence[: m.start()])
    if compound is None or compound.group(1) is None:
        return True
    total = compound_quantity(compound.group(0) + " " + m.group(1))
    stated = re.search(r"\((?:about |approximately |roughly |≈ ?|~ ?)?(-?\d[\d,]*(?:\.\d+)?)", m.group(0)).group(1)
    return total.split(" ", 1)[0] == stated.replace(",", "") and first == second


# (and a bracket that gives the value as one quantity in two units: "204 minutes (3 hours 24 minutes)")
_COMPOUND_BRACKET = re.compile(r"(?<![\d.,])(\d+) ?([A-Za-z]{1,12})\.? \((\d+ ?[A-Za-z]{1,12},? (?:and )?\d+ ?[A-Za-z]{1,12})\.?\)")


def _without_compound_bracket(m: re.Match) -> str:
    total, _, unit = compound_quantity(m.group(3)).partition(" \\text{ ")
    same = total == m.group(1) and unit_of("1 " + m.group(2)) == unit_of("1 " + unit.rstrip("}"))
    return m.group(0)[: m.group(0).index("(")].rstrip() if same else m.group(0)


# class clock-restatement: a clock time and the same time in the other format in brackets ("home at 16:05 (4:05 PM)",
# "4:05 PM (16:05)") state one time; never two times, "16:05 (4:50 PM)"
_CLOCK = r"(\d{1,2}):(\d\d)(?: ?([AaPp])\.?[Mm]\.?)?"
_CLOCK_BRACKET = re.compile(rf"(?<![\d:]){_CLOCK} \({_CLOCK}\)")


def _minute_of_day(hour: str, minute: str, half: str | None) -> int:
    hours = int(hour) % 12 + (12 if half and half.lower() == "p" else 0) if half else int(hour)
    return hours * 60 + int(minute)


def _without_clock_bracket(m: re.Match) -> str:
    same = _minute_of_day(*m.group(1, 2, 3)) == _minute_of_day(*m.group(4, 5, 6))
    return m.group(0)[: m.group(0).index("(")].rstrip() if same else m.group(0)


def _without_conversion(sentence: str) -> str:
    sentence = _CLOCK_BRACKET.sub(_without_clock_bracket, _COMPOUND_BRACKET.sub(_without_compound_bracket, sentence))
    return _CONVERTING.sub(lambda m: m.group(0)[: m.group(0).index("(")].rstrip() if _converts(sentence, m) else m.group(0),
                           sentence)


# class check-clause: a final sentence that goes on to check its value in a clause of its own ("..., $999_{10}$ becomes
# $4343_6$ in base six, and as a check $4\\cdot 216 + ... = 999$.") states the value before the check
_CHECK_CLAUSE = re.compile(r"[,;] (?:and )?(?:as a (?:quick |final )?check|checking(?: this)?|to (?:check|verify)(?: this)?"
                           r"|as verification|verifying(?: this)?)\b,?[^.!?]*[.!]?\s*$", re.IGNORECASE)


_CHECK_FAILS = re.compile(r"≠|\\ne(?:q)?\b|\b(?:not|wrong|so|thus|hence|giving|gives|must|instead|correct|actually|but)\b|n't\b",
                         re.IGNORECASE)


def without_check_clause(sentence: str) -> str:
    """`sentence` without a closing clause that checks the value stated before it (class check-clause)."""
    m = _CHECK_CLAUSE.search(sentence)
    if m is None or not re.search(r"\d", sentence[: m.start()]) or _CHECK_FAILS.search(m.group(0)):
        return sentence  # (a check that fails or concludes anew, "..., as a check, 2(5) + 3 = 13 ≠ 15, so the correct value
        # is x = 6", revises the value: the sentence is read whole)
    return sentence[: m.start()] + "."


# class count-aside: a closing bracket that holds only another count of another thing, right after a value and its
# unit ("The car travels 150 km (3 hours).", "She buys 36 eggs (3 cartons).", "Total earnings: $40 (5 hours).") gives
# the working behind the value; the value before it is stated (never a bracket that totals, corrects or doubts:
# `_ASIDE_GUARD`; never math; never a bare value before it, "x (3 hours)")
_VALUE_AND_UNIT = r"(?<![\w.,])(\$ ?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?(?: ?%| [A-Za-z]{1,15}(?: [a-z]{1,15})?))(?:\*\*)?"
_COUNT_ASIDE = re.compile(_VALUE_AND_UNIT + r" \(((?:for |in |over |from |after |of )?\d[\d,]*(?:\.\d+)? [A-Za-z]{1,15}(?: [a-z]{1,15})?)\)"
                          r"(?=[.!]?\s*$)")
# class breakdown-aside: a closing bracket after a value and its unit that counts its parts ("She needs **15 boxes**
# (14 full boxes plus 1 box with just 2 cookies).", "The area is 48 square meters (6 m wide by 8 m long).") explains
# the value; it may add and subtract, never total, correct or doubt (`_BREAKDOWN_GUARD`), nor hold math
_BREAKDOWN_ASIDE = re.compile(_VALUE_AND_UNIT + r" \((\d[\d,]*(?:\.\d+)? ?[A-Za-z][^()]{0,120}\d[^()]{0,60})\)(?=[.!]?\s*$)")  # (two
# counts or more)
# class rounded-aside: a closing bracket that gives the value before rounding ("We need **7 buses** (6.25 rounded up).",
# "(rounded up from 6.25)") explains the value; the rounded one is stated
_ROUNDED_ASIDE = re.compile(r"(?<=[\w*%$]) \((?:-?\d[\d,]*(?:\.\d+)? (?:rounded|round(?:ed|s)? (?:up|down|off))\b[^()]{0,40}"
                            r"|(?:rounded|round(?:ed)? (?:up|down|off)) (?:up |down )?(?:from|to the nearest)[^()]{0,40})\)(?=[.!]?\s*$)",
                            re.IGNORECASE)
# class out-of-tail: "... 42 remain, that's 42 out of the original 60." counts 42, never the 60 it is out of (never "3 out of
# 10", a ratio)
_OUT_OF_TAIL = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?) out of (?:the|all|a total of) (?:[a-z]+ )?(\d[\d,]*)(?: [a-z]+)?(?=[.!]?\s*$)")
# (both never when the value they drop is the one the working ends on: "150 / 50 = 3. The car travels 150 km (3 hours).",
# "... so the test had 45 / 0.9 = 50 questions. Ana got 45 out of a total of 50." answer 3 and 50)
_RESULT = re.compile(r"=\s*\$?\s*(-?\d[\d,]*(?:\.\d+)?)(?!\d|\.\d)")


def _is_last_result(value: str, before: str) -> bool:
    results = _RESULT.findall(before[-1500:])
    number = re.search(r"\d[\d,]*(?:\.\d+)?", value)
    return bool(results and number) and results[-1].replace(",", "") == number.group(0).replace(",", "")


# class out-of-ratio: "So the probability is 3 out of 10." is the ratio 3/10 too, when its count answers no gold
_OUT_OF_RATIO = re.compile(r"(?<![\d.,])(\d+) out of (\d+)(?![\d.,]*\d)(?=\D*$)")  # (nothing counted after it)


def out_of_ratio(completion: str, span: str) -> str | None:
    """The ratio `\\frac{3}{10}` of a completion that closes on "3 out of 10" and whose answer `span` is its 3, else None."""
    m = _OUT_OF_RATIO.search(completion[-200:])
    return f"\\frac{{{m.group(1)}}}{{{m.group(2)}}}" if m and m.group(1) == span.strip() and int(m.group(2)) > 0 else None


# class added-aside: a closing bracket that adds another result ("So $a^2+b^2 = 14$ (and, if needed later, $a^3 + b^3 =
# (a+b)^3 - 3ab(a+b) = 52$).") is no part of the statement before it; never one that corrects, doubts or totals
_ADDED = re.compile(r"\((?:and|as well as|along with|also)\b,? ", re.IGNORECASE)
_ADDITION_GUARD = re.compile(rf"\b(?:{_CORRECTING}|thus|hence|therefore)\b|\?", re.IGNORECASE)


def _without_added_aside(sentence: str) -> str:
    body = sentence.rstrip()
    end = len(body) - 1 if body.endswith((".", "!")) else len(body)
    if end < 1 or body[end - 1] != ")":
        return sentence
    depth = 0
    for at in range(end - 1, max(-1, end - 400), -1):  # (the bracket that the closing one matches)
        depth += {")": 1, "(": -1}.get(body[at], 0)
        if depth == 0:
            break
    else:
        return sentence
    inner = body[at:end]
    if not _ADDED.match(inner) or _ADDITION_GUARD.search(inner) or not re.search(r"\d", body[:at]) \
            or not math_balanced(body[:at]):
        return sentence
    return body[:at].rstrip() + body[end:]


def without_parenthetical_aside(sentence: str, working: str = "") -> str:
    """`sentence` without a closing bracketed aside, when the statement before it holds a value of its own, and without
    a bracket that converts a value to another unit; `working` is the text up to the sentence (class count-aside and
    out-of-tail read it)."""
    sentence = without_equal_restatement(_without_conversion(sentence))  # (class equal-value-bracket)
    sentence = _OUT_OF_TAIL.sub(lambda m: m.group(0) if _is_last_result(m.group(2), working + sentence) else m.group(1), sentence)
    sentence = _without_added_aside(_ROUNDED_ASIDE.sub("", sentence))
    aside = _COUNT_ASIDE.search(sentence)
    if aside is not None and not _ASIDE_GUARD.search(aside.group(2)) and not _is_last_result(aside.group(2), working + sentence[: aside.start()]):
        return sentence[: aside.start(2) - 2] + sentence[aside.end(2) + 1 :]
    breakdown = _BREAKDOWN_ASIDE.search(sentence)
    if breakdown is not None and not _BREAKDOWN_GUARD.search(breakdown.group(2)):
        return sentence[: breakdown.start(2) - 2] + sentence[breakdown.end(2) + 1 :]
    m = _PARENTHETICAL_ASIDE.search(sentence) or _COMPARISON_ASIDE.search(sentence)
    if m is None or _ASIDE_GUARD.search(m.group(1)) or not re.search(r"\d|\$", sentence[: m.start()]):
        return sentence
    return sentence[: m.start()] + sentence[m.end() :]


def outside_math(s: str, blocks: list[tuple[int, int, str]]) -> str:
    """The text of `s` with its math blocks blanked out."""
    pieces, at = [], 0
    for start, end, _ in blocks:
        pieces.append(s[at:start])
        at = end
    return " ".join([*pieces, s[at:]])


# class permutations-of-tuple: "the solutions are $(1,2,3)$ and all of its permutations" (OlympiadBench golds list them)
# is written `\\text{all permutations of } (1,2,3)`, which kleval.verify.notations reads as the list of orderings
PERMUTATIONS_OF = "\\text{all permutations of } "
_PERMUTATIONS = re.compile(r" ?,? (?:and|together with|along with|plus) (?:all|every one)? ?(?:of )?(?:its|their|the) (?:other )?"
                           r"permutations(?: of (?:it|them|these|this))?$", re.IGNORECASE)


def permutations_value(s: str, blocks: list[tuple[int, int, str]] | None = None) -> str | None:
    """class permutations-of-tuple: the value of a text ending "$(1,2,3)$ and all of its permutations"
    (read by kleval.verify.notations.permutations_of), else None."""
    permuted = _PERMUTATIONS.search(s) if "permutations" in s else None
    if permuted is None:
        return None
    blocks = math_blocks(s) if blocks is None else blocks
    if not blocks or blocks[-1][1] != permuted.start():
        return None
    return PERMUTATIONS_OF + blocks[-1][2]


def value_ending(sentence: str, concluding: bool) -> str | None:
    """The value a sentence ends with after a copula (`... is \\(108\\) cubic units.`), or None; a date that
    ends the sentence is read whole."""
    value = _value_ending_of(sentence, concluding)
    if value:  # class date-after-phrase (kleval.verify.dates): "lands on June 9." is the date, not its day 9
        return trailing_date(sentence.replace("**", "").strip(), value) or value
    return value


# class plain-assignment-list: a sentence without math markup that ends in several values of one unknown, written
# out ("The roots are x = 7, x = 3, and x = 5.", "the solutions are x = 2 or x = -1"), states them all
# (also with a sign, "x = 0 or x = ±1", and one name before several values, "x = 0, ±1", "x = 2, 3, or 5")
_PLAIN_VALUE = r"(?:±|∓|\\pm ?)?-?\d+(?:\.\d+)?(?:/\d+)?"
_ASSIGNMENT = rf"[a-z](?:_\d)? ?= ?{_PLAIN_VALUE}"
_PLAIN_ASSIGNMENTS = re.compile(rf"(?<![\w=])(?:{_ASSIGNMENT}(?:(?:,? (?:and|or) |, ){_ASSIGNMENT})+"
                                rf"|{_ASSIGNMENT}(?:(?:,? (?:and|or) |, ){_PLAIN_VALUE})+)$")
# (in a conclusion, an opener states them as a copula does: "Therefore b = 21 or b = 49.", "..., so x = -2 or x = 5.")
_LIST_LEAD = re.compile(r"(?:^|: ?|\b(?:so|thus|hence|therefore|then|we get|giving|we have)\b,? ?"
                        r"|^(?:so|thus|hence|therefore),? (?:(?:after|by|on|upon) [a-z]+ing|in conclusion|in summary|overall"
                        r"|finally), ?)$", re.IGNORECASE)
# (values the sentence sets aside are not its answer: "The extraneous solutions are x = 2 or x = -1.")
_SET_ASIDE = re.compile(r"\b(?:extraneous|rejected?|invalid|excluded|not|n't|fails?|impossible)\b", re.IGNORECASE)


# class factorial-in-prose: a factorial sign that a counting noun closing the sentence follows is no exclamation mark
# ("there are 7! ways.", "we get 5! arrangements."); never with more after it ("5! ways, but half of them ..."),
# nor before another word ("12! yay")
_FACTORIAL_IN_PROSE = re.compile(r"!(?= (?:different |distinct |possible )?(?:ways|arrangements|orderings|orders|permutations"
                                 r"|possibilities|seatings|outcomes|sequences|lineups|configurations|rankings)(?: in all| in total"
                                 r"| altogether)?[.!]?$)")


_CLOCK_AT_END = re.compile(r"\b(?:at|is|be|by|until|reads|shows) (?:exactly )?(\d{1,2}:\d{2}(?::\d{2})?"
                           r"(?: ?(?:[ap]\.m\.?|[ap]m|[AP]\.M\.?|[AP]M))?)"
                           # (the day may follow: "The flight lands at 02:15 the next day.")
                           r"(?: (?:on )?(?:the )?(?:next|following|same) (?:day|morning|evening)| tomorrow(?: morning)?| today)?$")


_NOT_A_UNIT = re.compile(r"\b(?:is|are|was|were|be|been|the|and|or|not|roots?|solutions?"
                         r"|answers?|values?)\b", re.IGNORECASE)


# a copula denied right before the value ("is not", "cannot be", "it is not possible that the answer is")
DENIED = re.compile(r"(?:\b(?:is|are|was|were|be|equals?|can|could|will|would|must|should|does|do)(?: not|n't)"
                     r"|\b(?:cannot|can't|can not|won't|isn't|aren't|wasn't|weren't|never))(?: (?:be|been|equal|equals))?"
                     r"(?: to)? ?$|\b(?:not (?:possible|true|the case)|impossible) (?:for|that)\b[^,;:]*\b(?:be|is) ?$", re.IGNORECASE)


def _one_value_denied(text: str, number: re.Match) -> bool:
    """Whether the sentence denies its one number: right before it ("cannot be 5", "is not 8"), or anywhere after it
    ("5 is not the answer"); a negation inside the subject ("the arrangements in which A and B are not adjacent is 72",
    "the divisors that are not odd is 8") is no denial of the value."""
    return bool(DENIED.search(text[: number.start()].rstrip(" $*")) or NEGATION.search(text[number.end() :]))


def _denied_or_bounded(head: str) -> bool:
    """Whether the clause before a value denies it ("cannot be", "is not") or makes it a bound ("at least")."""
    return bool(DENIED.search(re.split(r"[,;:]", head)[-1])) or bounds(head, "")


# class where-it-holds: a sentence that says where a property holds ("Hence $f$ is increasing on $(0, 2)$.", "so $g$ is
# positive for $x > 3$") states that interval or condition
PROPERTIES = r"increasing|decreasing|positive|negative|nonnegative|non-negative|continuous|differentiable|convex|concave"
_WHERE_IT_HOLDS = re.compile(rf"\b(?:is|are) (?:strictly |monotonically |therefore |thus )?(?:{PROPERTIES}|defined) (?:on|over|in|for|when) ?$",
                             re.IGNORECASE)
# a bare name, `x`, `a_n`, `x_{12}` (what an assignment assigns to)
BARE_NAME = r"[A-Za-z](?:_\{?\w{1,3}\}?)?"


_JOINED_IN_BLOCK = re.compile(r"([a-z])\s*=\s*[^=]{1,40}?(?:\s*(?:\\text\{\s*(?:or|and|,)\s*\}|\\q?quad|,|\\[;,])\s*"
                              r"(?:\\text\{\s*(?:or|and)\s*\}\s*)?\1\s*=\s*[^=]{1,40}?)+")


def _value_ending_of(sentence: str, concluding: bool) -> str | None:
    """The value a sentence ends with, its day only when it ends in a date (`value_ending` reads the date)."""
    bold = re.search(r"\*\*([^*]{1,60})\*\*$", sentence.strip().rstrip(".!"))
    if bold and bold.group(1).strip():  # class bold-at-end: "... lands on **Monday**."
        return bold.group(1).strip()
    s = drop_restatement(sentence.strip().rstrip(".!").replace("**", "").strip())  # class two-formats
    blocks = math_blocks(s)
    # (a sign the text wrote as a symbol, "x = ±1", stands in math of its own: it is still a plain value)
    signed = re.sub(r"\$((?:[a-z](?:_\d)? ?= ?)?\\pm ?\d+(?:\.\d+)?(?:/\d+)?)\$", r"\1", s) if blocks else s
    listed = _PLAIN_ASSIGNMENTS.search(signed) if not math_blocks(signed) else None
    s = signed if listed else s
    if listed and len({a[0] for a in re.findall(_ASSIGNMENT, listed.group(0))}) == 1:  # class plain-assignment-list
        head = s[: listed.start()]
        if _SET_ASIDE.search(head) or not (_COPULA_AT_END.search(head) or (concluding and _LIST_LEAD.search(head))):
            return None  # several values of one unknown, not stated as the answer: never only the last of them
        name = listed.group(0).split("=", 1)[0].strip()
        values = dict.fromkeys(v.rsplit("=", 1)[-1].strip() for v in re.split(r",? (?:and|or) |, ", listed.group(0)))
        return ", ".join(f"{name} = {v}" for v in values)  # (a double root written twice, "x = 3 and x = 3", is one value)
    if blocks and not s[blocks[-1][1] :].strip() and _WHERE_IT_HOLDS.search(s[: blocks[-1][0]]) \
            and not re.search(r"\b(?:whether|if|check\w*|let's|let us|we (?:first|will|need|want))\b", s[: blocks[-1][0]], re.IGNORECASE):
        return blocks[-1][2].strip()  # class where-it-holds
    permuted = permutations_value(s, blocks)
    if permuted:
        return permuted
    clock = _CLOCK_AT_END.search(s) if not blocks else None
    if clock and not NEGATION.search(s) and not HEDGED.search(s) and len(re.findall(r"\d:\d\d", s)) == 1 \
            and not re.search(r"\b(?:or|originally|scheduled|planned|was|were|would|maybe|perhaps|probably|possibly|might"
                              r"|about|around|approximately|roughly)\b", s, re.IGNORECASE):
        # class clock-time-at-end: "They will arrive at 16:30.", "... ends at 3:45 p.m." (one time, no alternative)
        return clock.group(1)
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
        if value and _denied_or_bounded(s[:first_start]):
            return None  # class number-in-math: "Thus the value cannot be $x = 5$.", "at least $\frac{1}{2}$"
        if value and _COPULA_AT_END.search(s[:first_start]):
            return value
        if value and concluding and re.search(r"(?<![<>!\\])=", blocks[-1][2]) \
                and not TRAILING_CLAUSE.search(s[: blocks[-1][0]]):  # never "..., occurring when $b = 9$"
            names = {re.split(r"(?<![<>!\\])=", b[2])[0].strip() for b in blocks if b[0] >= first_start}
            if first_start < blocks[-1][0] and len(names) == 1:
                return value  # class joined-assignments: "Therefore $b = 21$ or $b = 49$." (one unknown) states both
            if _JOINED_IN_BLOCK.fullmatch(blocks[-1][2].strip()):
                return blocks[-1][2].strip()  # (also in one block, "Therefore $x = 1 \text{ or } x = 3$.")
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
            opener = CONCLUDING.match(before)
            if _COPULA_AT_END.search(before) or (concluding and opener and not before[opener.end() :].strip(" ,")
                                                 and re.search(r"(?<![<>!=])=(?!=)", expression)):
                return expression
            return None
    if concluding and not _SET_ASIDE.search(s):
        # "Therefore, Lara read 128 pages on the first day.": one value; never one the sentence sets aside ("So x = -7
        # (rejected, since lengths are positive).") or denies (see `_one_value_denied`)
        outside = outside_math(s, blocks)  # never split at an escaped dollar ("$\\$18$")
        found = [m for m in _LEADING_NUMBER.finditer(outside)  # (a unit's power, `12 cm^2`, is no number)
                 if re.search(r"\d", m.group(0)) and not unit_power(outside, m.start(), m.end())]
        numbers = [m.group(0) for m in found]
        if len(blocks) == 1 and not numbers and re.search(r"\d", blocks[0][2]) and "=" not in blocks[0][2] \
                and not NEGATION.search(s):
            return blocks[0][2]
        if not blocks and len(numbers) == 1 and not is_bound(outside, numbers[0]) \
                and not _one_value_denied(outside, found[0]) \
                and standalone(outside, found[0].start(), found[0].end()):  # class glued-number: never the 2 of x^2
            return numbers[0]
        if not blocks and len(numbers) == 1 and _FACTORIAL_IN_PROSE.match(outside, found[0].end()) \
                and re.fullmatch(r"\d{1,3}", numbers[0]) and outside[found[0].start() - 1 : found[0].start()] in ("", " "):
            return f"${numbers[0]}!$"  # class factorial-in-prose: "So there are 7! ways." counts 7! = 5040 ways (as math,
            # so that no later clean-up reads its sign as punctuation)
    listed = list_after_copula(s) if not blocks else None
    if listed:  # class list-after-copula: "The primes are 2, 3, 5 and 7."
        return listed
    # class verb-of-value: the verbs that state a value before a math block state it before a plain number too
    # ("... add up to 720°", "sum to 540°", "measures 90°", "The bill comes to 1200 dollars."); a degree sign is a unit
    copula = (r"(?:\b(?:is|are|was|equals|be|it's|becomes|remains|measures|totals|adds? up to|sums? to"
              r"|(?:works?|comes?) (?:out )?to|amounts? to)|(?<![<>!\\])=|:) (?:(?:" + _FILLERS + r") )*")
    number = re.search(copula + "(" + NUMBER_TEXT + r"(?: ?(?:percent|pct)\b)?)(?:[ ]?[A-Za-z²³°][A-Za-z.²³°\-]{0,15}"
                       r"(?:/[A-Za-z]{1,8})?){0,3}$",  # (a unit per unit, "mol/L", "km/h")
                       s, re.IGNORECASE)
    if number and not _NOT_A_UNIT.search(s, number.end(1)):
        # "is 25 square units", "= 80", "is 1 000 dollars", "is 5 percent" (the percent kept: a hundredth); the words
        # after it are its unit, never a predicate ("So x = 2 and x = 3 are the roots." states no single value)
        return number.group(1)
    word = re.search(r"\b(?:is|are) (?:(?:" + _FILLERS + r") )*([A-Za-z][a-z\-]{1,20})$", s, re.IGNORECASE)
    if word:
        return word.group(1)  # a word answer: "so the function is even."
    return None


# class mid-sentence-value: the value ends the main clause and a trailing clause follows it ("the maximum
# is **13**, occurring when ...", "Thus, \\( E(7, 3) = 3 \\), as demonstrated above", "the solution is
# \\(f(n) = n\\) for all positive integers \\(n\\)"). Only clauses that qualify a value, never one that
# could state another value ("giving a total of 5", "and 6 if n is even").
TRAILING_CLAUSE = re.compile(
    r", ?(?:which|where|when|whenever|since|because|as|occurring|attained|achieved|reached|confirming|ensuring"
    r"|demonstrating|satisfying|assuming|given|provided|according|consistent|in line|in agreement|so that"
    r"|in which|at which|with|not|namely|i\.e(?=\.)|that is|specifically|e\.g(?=\.)|for example|of which"
    r"|(?:or )?(?:about|approximately|roughly|around|nearly|almost|equivalently))\b"
    r"| \((?:about|approximately|roughly|around|nearly|almost|≈|~|i\.e\.)"
    r"| (?:for (?:all|every|any|each)|as (?:demonstrated|shown|required|expected|desired|computed|calculated"
    r"|derived|found|claimed|stated))\b", re.IGNORECASE)
# class concluding-clause: a sentence whose last clause concludes ("Its value becomes $.72x$, so it keeps a
# fraction .72 of its value.", "..., so she has 7 apples left, which is ...").
CONCLUDING_CLAUSE = re.compile(r"[,;] (?:and )?(?:so|thus|hence|therefore|consequently)\b,? ?", re.IGNORECASE)


# class prose-tail: a trailing comma phrase with no value of its own cannot state the answer, the value before
# it does ("the probability is $\\frac{5}{12}$, slightly less than one half", "= 24$ in all, counting each pair
# once"): a comma followed by two or more words and no digit or math up to the sentence end.
# A phrase, not a clause: no verb of its own and no bold value ("..., the skater is facing **west**").
PROSE_TAIL = re.compile(r", (?=[A-Za-z][A-Za-z'\-]* [A-Za-z](?:(?!\b(?:is|are|was|were|be|has|have|had|equals?)\b)[^\d$\\*])*$)",
                        re.IGNORECASE)


def math_balanced(head: str) -> bool:
    return head.count("$") % 2 == 0 and head.count("\\(") == head.count("\\)") and head.count("**") % 2 == 0


_COORDINATE = re.compile(r"[,;] (?:and|while|whereas|but) (?!so\b|thus\b|hence\b|therefore\b)", re.IGNORECASE)

# class concluded-clause: of the clauses of a sentence that states several values ("...; ...", "..., while ...",
# "..., whereas ..."), the one that alone concludes states the answer ("The median asked for is therefore $5$; the
# mean and range both happen to be $6$.", "..., so their sum is $5$, while their product is $6$.")
_CLAUSE_BREAK = re.compile(r"; (?!and\b|but\b|or\b)|, (?:while|whereas) ", re.IGNORECASE)
_CONCLUDES = re.compile(r"\b(?:so|thus|hence|therefore|consequently|asked(?: for)?|required|sought|which (?:makes|means|gives)"
                        r"|in all|in total|altogether|wants?|wanted|we need)\b"
                        r"(?! (?:that|far|on|much|many|long|will|would|could|might)\b)", re.IGNORECASE)
# class comparison-tail: a closing comparison with other values ("..., compared with $\frac{3}{28}$ for both blue")
# states none of them
_COMPARISON_TAIL = re.compile(r", (?:compared (?:with|to)|as opposed to|versus|vs\.|in contrast to|against) ", re.IGNORECASE)
# (never one that goes on to a result of its own, "..., compared with $60 for plan A, a saving of $15.")
_COMPARISON_RESULT = re.compile(r"\b(?:saving|savings|saves?|difference|total|so|thus|which|that is|i\.e|gain|loss|increase"
                                r"|decrease|more|less|fewer)\b", re.IGNORECASE)


# class which-remark: a relative clause after the main clause's one value remarks on it ("Anna has 15 apples, which is 3
# more than Tom.", "So Ethan pays $50 each month, which is $600 in total over 12 months.", "The sale price is $20, which
# is 80% of the original price."): the value is the main clause's. A main clause that computes, "500 + 1,500 + 125
# blocks, which is 2,125 blocks", or holds no value of its own is concluded by the clause, which is read as before.
_WHICH_REMARK = re.compile(r", (?:which|that)(?:'s| is| was| are| comes to| works out to| amounts to)? (?!(?:\w+ )?(?:means|gives|makes|leaves)\b)",
                           re.IGNORECASE)
_WHICH_RESULT = re.compile(r"[=+×*·÷^]|(?<!\d)/|/(?!\d)|\\(?:times|cdot|div)\b|\s[-−]\s|\b(?:plus|minus|times)\b", re.IGNORECASE)


def which_remark_value(s: str, concluding: bool) -> str | None:
    """The main clause's one value before a relative clause that remarks on it (class which-remark), or None."""
    m = _WHICH_REMARK.search(s)
    if m is None or not _one_value(s[: m.start()]) or not re.search(r"\d|\$", s[m.end() :]) \
            or CONCLUDING_CLAUSE.search(s, m.end()) or re.search(r"[=÷;]|\b(?:wrong|incorrect|not|mistake|error)\b|n't\b", s[m.end() :]):
        return None  # (never a clause that goes on to conclude or compute: "..., which is 80% of it, so the original was $25")
    # (a sentence read only for a value it states after a copula, "..., which is 3 more than Tom", states the main one)
    head = s[: m.start()]
    return value_ending(head, True) if concluding or value_ending(s, False) else value_ending(head, False)


def _one_value(head: str) -> bool:
    """Whether a main clause states one value and computes nothing (class which-remark)."""
    head = re.sub(r"\$(?=\d[\d,]*(?:\.\d+)?(?![\d.,]*\$))", "", head)  # (a currency sign is no math: "pays $50 each month")
    if not math_balanced(head) or _WHICH_RESULT.search(head):
        return False
    blocks = math_blocks(head)
    return len(blocks) + len(re.findall(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?", outside_math(head, blocks))) == 1


def _concluded_clause(s: str) -> str | None:
    cuts = [m for m in _CLAUSE_BREAK.finditer(s) if math_balanced(s[: m.start()])]
    if not cuts:
        return None
    edges = [0] + [at for m in cuts for at in (m.start(), m.end())] + [len(s)]
    clauses = [s[edges[i] : edges[i + 1]] for i in range(0, len(edges), 2)]
    # (a sentence's opening "So" concludes all of it, never one clause: "So $n = 15$ fails; ..., the largest is 14.")
    opener = re.match(r"\W{0,4}(?:so|thus|hence|therefore|consequently)\b,?", clauses[0], re.IGNORECASE)
    clauses[0] = clauses[0][opener.end() :] if opener else clauses[0]
    concluding = [clause for clause in clauses if _CONCLUDES.search(clause) and not NEGATION.search(clause)]
    return concluding[0] if len(concluding) == 1 else None


def main_clause_value(s: str, concluding: bool) -> str | None:
    """The value ending the sentence's main clause, before a trailing clause that qualifies it."""
    compared = _COMPARISON_TAIL.search(s)
    if compared and math_balanced(s[: compared.start()]) and not _COMPARISON_RESULT.search(s, compared.end()) \
            and (value := value_ending(s[: compared.start()], concluding)):
        return value
    concluded = _concluded_clause(s)
    if concluded is not None and (value := value_ending(concluded.rstrip(" ."), True)):
        return value
    whole = value_ending(s, concluding)
    for m in _COORDINATE.finditer(s):  # class two-values: "The smallest solution is $A$, and the next one is $B$."
        if whole and s.rfind(whole) > m.start() and math_balanced(s[: m.start()]) and value_ending(s[: m.start()], False):
            return None  # two coordinated statements of value: which one answers is a guess
    reason = justification_start(s)
    if whole and reason is not None and s.rfind(whole) > reason and math_balanced(s[:reason]):
        # class justification-clause: a value inside the reason ("He needs 7 buses because ... there are 260
        # students.", "x = 5 since 2x = 10") is not the one stated; the main clause's own value, if any, is
        return value_ending(s[:reason], concluding)
    if whole and not re.fullmatch(r"[A-Za-z\-]+", whole):
        return whole
    clauses = list(TRAILING_CLAUSE.finditer(s)) + list(PROSE_TAIL.finditer(s))
    for m in clauses:  # a word ending the trailing clause ("when $y$ is minimal") is not it
        head = s[: m.start()]
        if re.search(r"\d|\$|\\\(", head) and math_balanced(head):
            value = value_ending(head, concluding)
            if value:
                return value
    # class word-in-trailing-clause: "There are 14 squares ..., because each corner ... is excluded" does not
    # answer "excluded"; the word ends a clause that qualifies the main one
    return None if clauses and whole else whole


# class bound-not-value: a value stated as a bound ("at least 100 people attended", "4 or more colors are
# needed") is not the value the question asks for; a sentence that states only a bound is not read.
_BOUND_BEFORE = re.compile(r"(?:\b(?:at least|at most|more than|less than|fewer than|greater than|no more than|no less than"
                           r"|up to|over|under|below|above)|\\[gl]eq(?:slant)?|\\[gl]e\b|[≥≤]) ?$", re.IGNORECASE)  # (and "\\geq 45")
BOUND_AFTER = re.compile(r"^[^\w]{0,3}(?:[A-Za-z]+ )?(?:or (?:more|fewer|less|greater|above|below|higher|lower|so)|and (?:above|up|more)"
                         r"|\+)|^[ *_,(]{0,4}(?:[A-Za-z]+[ (]{1,2}){0,2}at (?:most|least|the (?:most|least))\b", re.IGNORECASE)  # ("$70 at most")


def bounds(before: str, after: str) -> bool:
    """Whether the text before and after a value makes it a bound (`at least 100`, `4 or more`)."""
    # (markup and a currency sign between the bound and its number change nothing: "at least **$70**")
    return bool(_BOUND_BEFORE.search(before.rstrip(" *_$€£\\")) or BOUND_AFTER.match(after))


def is_bound(text: str, number: str) -> bool:
    """Whether the one number of `text` is written as a bound (`at least 100`, `4 or more`)."""
    at = text.find(number)
    return at != -1 and bounds(text[:at], text[at + len(number) :])
