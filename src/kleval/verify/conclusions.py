"""The concluding sentence of a statement-less completion ("Therefore ... is X", a final sentence ending in a value)."""
from __future__ import annotations

import re

from kleval.verify.clauses import justification_start
from kleval.verify.clause_numbers import computed_statement, main_clause_number, stated_total, total_stands
from kleval.verify.commitment import DOUBT, RETRACTION, asks_hypothetical, elaborates, is_aside, opens_remark
from kleval.verify.complements import membership_statement
from kleval.verify.dates import worded_clock_as_digits
from kleval.verify.extract import clean_span, math_blocks, math_safe_tail
from kleval.verify.forms import OPERATION, worded_numbers_as_digits
from kleval.verify.restatement import restated_value, set_aside_values
from kleval.verify.sentence_values import (
    BARE_NAME,
    BOUND_AFTER,
    BRACKETED_CORRECTION,
    CONCLUDING,
    CONCLUDING_CLAUSE,
    DENIED,
    HEDGED,
    NEGATION,
    NUMBER_TEXT,
    is_bound,
    main_clause_value,
    math_balanced,
    split_sentences,
    which_remark_value,
    without_check_clause,
    without_parenthetical_aside,
)
from kleval.verify.statements import Statement
from kleval.verify.units import closing_compound

# (class closing-courtesy; also encouragement, "Keep it up, you're doing great! 🎉", "Remember, always double-check your
# work!", and a line of emoji alone)
_COURTESY = re.compile(r"hope|let me know|feel free|thank|glad|happy to help|good luck|cheers|keep it up|keep going"
                       r"|(?:you're|you are) doing (?:great|well|awesome)|great (?:job|work)|well done|practice makes perfect"
                       r"|double-check your work|happy (?:learning|studying|solving|math)|you(?:'ve| have)? got this"
                       r"|^[^\w$\\✓✔✅☑]+$", re.IGNORECASE)  # (never a check mark, which closes a check)


# class subject-value: a concluding sentence whose value is its subject, right after the concluding word
# ("Therefore, 20 workers are needed to finish in 4 hours.", "Hence $7$ boxes are required ...", "Thus, 6 is
# the smallest such number greater than 5."): the value, up to three words, then a verb. Never with a
# negation ("Thus 5 is not a solution") and never an expression ("So 2 + 3 ...": a word must follow).
_SUBJECT_VALUE = re.compile(
    r"^(?:\*\*)?(?:Therefore|Thus|Hence|So|In conclusion|Finally|Consequently)\b,? (?:a total of |exactly |only )?"
    r"(?:(" + NUMBER_TEXT + r")|\$([^$]{1,40})\$|\\\(([^$]{1,40}?)\\\))"
    r"(?: [A-Za-z][a-z\-]{0,20}){0,3} (?:is|are|was|were|will|would|can|must|should|remain|remains|did|do|does"
    r"|have|has|had|satisfy|satisfies|fit|fits|exist|exists|[a-z]{2,}ed)\b", re.IGNORECASE)


# (a subject the sentence sets aside states no answer: "Hence $n = 12$ is too large", "Thus $x = 3$ is extraneous")
_SET_ASIDE_PREDICATE = re.compile(r"\b(?:too|extraneous|invalid|rejected|impossible|wrong|fails?|excluded|discarded|not)\b",
                                  re.IGNORECASE)
_ONE_ASSIGNMENT = re.compile(BARE_NAME + r" ?= ?-?\d[\d,]*(?:\.\d+)?")


# class joined-assignments: a concluding sentence that is only assignments to distinct unknowns, each in its own math,
# joined by "and" or commas ("So $x = 3$ and $y = 7$.", "Thus $a = 2$, $b = -1$, and $c = 5$.") states them all, as
# "$x = 3, y = 7$" does, for a gold that is a tuple or a list; a single gold is the unknown named last ("Therefore $x = 4$
# and $y = 16$." answers 16, the quantity the question asked for); never one name twice (the values of one unknown
# are their own class)
_ASSIGNED = r"\$[A-Za-z] ?= ?[^$=]{1,40}\$"
_JOINED_ASSIGNMENTS = re.compile(r"^\W{0,4}(?:so|thus|therefore|hence|finally|in conclusion),? (?:we (?:get|have|find|obtain) )?"
                                 rf"({_ASSIGNED}(?:(?:,? and |, ){_ASSIGNED})+)[.!]?\W{{0,4}}$", re.IGNORECASE)


def joined_assignments(sentence: str) -> str | None:
    """"x = 3, y = 7" for a concluding "So $x = 3$ and $y = 7$." (class joined-assignments), else None."""
    joined = _JOINED_ASSIGNMENTS.match(sentence.strip())
    if joined is None or NEGATION.search(sentence):
        return None
    pairs = re.findall(r"\$([A-Za-z]) ?= ?([^$=]{1,40})\$", joined.group(1))
    if len({name for name, _ in pairs}) < len(pairs):
        return None
    # (in the order of the names, as a tuple lists its unknowns: "Thus $y = 3$ and $x = 7$." is (7, 3))
    return ", ".join(f"{name} = {value.strip()}" for name, value in sorted(pairs, key=lambda pair: pair[0].lower()))


# class passive-subject-clause: a concluding clause whose value is its subject and whose verb is passive ("..., so 0.3 kg
# of sugar is needed.", "..., so 12 tiles are required."): the subject's value, never the participle ("needed")
_PASSIVE_SUBJECT = re.compile(r"^(?:a total of |exactly |only )?(?:(" + NUMBER_TEXT + r")|\$([^$]{1,40})\$)"
                              r"(?: [A-Za-z][a-z\-]{0,20}){0,4} (?:is|are|was|were|will be) (?:needed|required|used|left"
                              r"|necessary|sold|bought|eaten|made|spent|saved|produced|collected)[.!]?$", re.IGNORECASE)


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


# class joined-statements: a concluding sentence of statements joined by commas, the last by "and" ("So the original
# number is 85, its reversal is 58, and their sum is 143.", "So the angles are 30°, 60° and 90°, and the smallest
# angle measures 30 degrees."): the last statement's value, as "So the width is 4 and the length is 9." states 9. Only
# when the part before states a value with a verb of its own, and the last clause has its own subject and verb (in a
# final sentence that does not open as a conclusion, only a last statement that computes its value, "The dimensions
# are 5 cm by 8 cm by 10 cm, and the volume is 5 × 8 × 10 = 400 cm³.")
# (never a last statement that supposes, hedges or sets its value aside, "..., and their sum is 143 if we ignore the
# carry", "..., and the sum we were tempted to write is 143")
_NOT_STATED = re.compile(r"\b(?:if|unless|would|could|might|may|tempted|guess|suppose|assuming|wrongly|mistakenly|not|never"
                         r"|we|I|you|one)\b|n't\b", re.IGNORECASE)
_COMPUTED = re.compile(OPERATION + r"[^=]{0,60}=")
_STATEMENT_VERB = r"(?:is|are|was|were|equals?|measures?|comes? to|totals?|becomes?)"
_STATEMENT = re.compile(rf"\b{_STATEMENT_VERB}\b[^,;]*?(?:\d|\$)", re.IGNORECASE)
_LAST_STATEMENT = re.compile(r"[,;] and ((?:the|its|their|his|her|this|that|our|each|every) (?:[A-Za-z\-']+ ){0,5}?"
                             rf"{_STATEMENT_VERB} [^,;]{{1,80}}?)[.!]?\**$", re.IGNORECASE)


# class in-form-statement: a final sentence that names the form and gives the value in it, as one math block ("In bar
# notation, $\frac16 = 0.1\overline{6}$.", "In lowest terms, $\frac{3}{4}$.", "As a decimal, $0.75$."): the value (the
# last side of a chain)
_IN_FORM = re.compile(r"^\W{0,4}(?:so,? |thus,? |hence,? |therefore,? )?(?:in (?:bar|decimal|scientific|standard|exact|radical|fraction"
                      r"|interval|set|polar|rectangular|simplest|lowest|simplified|reduced|base[- ]\w+) (?:notation|form|terms)"
                      r"|as an? (?:decimal|fraction|percentage|percent|mixed number|improper fraction|interval|set))"
                      r",? \$([^$]{1,200})\$[ .!]*$", re.IGNORECASE)


_WHOLLY_BOLD = re.compile(r"\*\*([^*]{3,300}?)([.!]?)\*\*([.!]?)")
_LARGER_UNIT_BEFORE = re.compile(r"(?<![\d.,])(\d+) ?(?:(hours?|hrs?|h)|minutes?|mins?|min)\.?,? (?:and )?$", re.IGNORECASE)


def sentence_value(sentence: str, concluding: bool) -> tuple[str | None, bool]:
    """(value, concluding) a candidate sentence states: the whole sentence, its main clause, or its last
    concluding clause ("..., so it keeps .72 of its value")."""
    s = math_safe_tail(sentence, 600)
    form = _IN_FORM.match(s)
    # (never a name set to a value, "In decimal form, $r = 0.05$.", which restates a given)
    if form and not NEGATION.search(s) and not re.match(rf"\s*{BARE_NAME}\s*=", form.group(1)):  # class in-form-statement
        return re.split(r"(?<![<>!\\])=", form.group(1))[-1].strip() or None, True
    restated = restated_value(s)
    if restated and re.match(r"[\[({]|\\\{|\\left", restated) and not NEGATION.search(s) \
            and len(set(re.findall(r"(?<![\\A-Za-z])([a-z])\s*=", s[: s.rfind(restated)]))) >= 2:
        # class ie-restatement: "So x = 4 and y = 3, i.e. the ordered pair (4, 3)." is (4, 3), when two or more unknowns
        # are assigned before it (never "the x-intercept is at x = 5, i.e. the point (5, 0)", which answers 5)
        return restated, concluding
    closing = closing_compound(s)
    count = re.match(r"\$?\d+", closing or "")  # (none in words, "an hour and a half")
    if closing and not NEGATION.search(s) and not (count and is_bound(s, count.group(0))):
        # class compound-in-smaller-unit: "So she works 3 hours 24 minutes." states one quantity (read in hours and
        # in minutes, kleval.verify.units), never its 24
        return closing, concluding
    remarked = which_remark_value(s, concluding)
    if remarked is not None:
        return remarked, concluding
    last_clause = None
    for last_clause in CONCLUDING_CLAUSE.finditer(s):
        pass
    passive = _PASSIVE_SUBJECT.match(s[last_clause.end() :]) if last_clause and math_balanced(s[: last_clause.start()]) else None
    if passive and not NEGATION.search(passive.group(0)):  # class passive-subject-clause
        return clean_span(passive.group(1) or passive.group(2)), True
    value = main_clause_value(s, concluding)
    if value:
        return value, concluding
    if concluding:
        subject = _SUBJECT_VALUE.match(s)
        # (a reason after the statement, "..., because $n = 10$ gives 1024", states no value of its own)
        reason = justification_start(s) if subject else None
        stated = s[:reason] if reason is not None and reason > subject.end() else s
        if subject and not NEGATION.search(stated) and not _STATES_ANOTHER.search(stated[subject.end() :]) \
                and not RETRACTION.search(s) and not _SET_ASIDE_PREDICATE.search(stated[subject.end() :]):
            group = next(i for i in (1, 2, 3) if subject.group(i))
            value = subject.group(group)
            # (also one unknown's value, "Hence $n = 11$ is the smallest such integer.")
            if re.search(r"\d", value) and ("=" not in value or _ONE_ASSIGNMENT.fullmatch(value.strip())) \
                    and not BOUND_AFTER.match(s[subject.end(group) :]):
                return clean_span(value), True
    clauses = [m for m in CONCLUDING_CLAUSE.finditer(s) if math_balanced(s[: m.start()])]
    if clauses:
        value = main_clause_value(s[clauses[-1].end() :], True)
        if value:
            return value, True
    total = stated_total(s) if concluding else None
    if total is not None and not negated(s, total.group(0)) and total_stands(s[total.end() :]):
        # class total-statement: "..., 30 miles in total." (never "7 in total and 9 otherwise")
        number = total.group(1) or total.group(2)
        compound = _LARGER_UNIT_BEFORE.search(s[: total.start(1 if total.group(1) else 2)])
        if compound:  # class compound-in-smaller-unit: "She works 3 hours 24 minutes in total." is both, never the 24
            units = ("hours", "minutes") if compound.group(2) else ("minutes", "seconds")
            return f"{compound.group(1)} {units[0]} {number.rstrip(',')} {units[1]}", True
        return number.rstrip(","), True
    if concluding:  # class mid-sentence-value: "So Tom has 9 marbles left after giving 6 to Anna and 5 to Ben."
        plain = _numbers_only(s)  # math that is one number stays it; other math holds no number ($\\sqrt{41}$ is no 41)
        main = main_clause_number(plain)
        if main and not is_bound(plain, main) and not _RESTATES.search(plain[plain.find(main) + len(main) :]):
            return main, True
    if (last := _LAST_STATEMENT.search(s)) and (concluding or _COMPUTED.search(last.group(1))) and _STATEMENT.search(s[: last.start()]) \
            and not _NOT_STATED.search(last.group(1)) \
            and math_balanced(s[: last.start()]) and (value := sentence_value("So " + last.group(1), True)[0]):
        return value, True  # class joined-statements
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
_ROUNDING = re.compile(r"^(?:\*\*)?(?:(?:Correct|Accurate|Rounded|Rounding) to|To the nearest|To (?:one|two|three|four|\d+) (?:decimal"
                      r"|significant))\b", re.IGNORECASE)
# (a step of working, "Then she buys 12 more.", "Next, ...", "Now we add ...", is no conclusion, in bold or not)
_STEP = re.compile(r"^\W{0,4}(?:then|next|first|second|third|after that|afterwards|now(?=,? (?:we|let|I)\b)|step \d+|also"
                   r"|we (?:still |now )?(?:need|have|want) to|let(?:'s| us)|we (?:will|must|should) (?:now )?(?!be\b|have\b)[a-z]+)\b",
                   re.IGNORECASE)
# class closing-doubt: a final sentence that doubts or reopens what came before ("But this can't be right, since she gave
# some away.", "This is not the final answer yet.", "It could also be 11 or 13.", "Or maybe fewer.", "Hmm, this seems
# too large.", "I'm not sure.") leaves no earlier sentence committed to (never a closing question, "Does that make
# sense?", nor a restatement, "Or, in simplest form, 3/4.", "It could also be written as 0.5.")
_CLOSING_DOUBT = re.compile(
    r"\b(?:can(?:'t|not| not) be (?:right|correct)|not (?:yet )?(?:the|my) final (?:answer|count|result|value)\b|I doubt\b"
    r"|(?<!no need to )(?<!n't )(?<!never )doubt (?:this|that|it)\b|seems? (?:too (?:large|small|big|high|low|much|many|few)|wrong|off)\b"
    r"|(?:could|might|may) (?:also|instead|well) be (?!\w+ as\b)(?:[a-z]+ ){0,2}\$?-?\d"
    r"|or (?:maybe|perhaps|possibly)\b|I(?:'m| am) not (?:sure|certain)\b|(?:may|might) be wrong\b"
    r"|I (?:don't|do not) think (?:that|this|it)(?:'s| is)\b|(?:cannot|can't|can not) (?:determine|tell) (?:how|what|which|whether)\b)"
    # ("Or 13 if she keeps the extra one.", never a restatement, "Or 75 cents, if you prefer.")
    r"|^\W*(?:but )?or,? \$?-?\d[\d,.]*\$?(?: [a-z]+){0,3},? if (?!you\b)", re.IGNORECASE)


def closing_doubt(sentence: str) -> bool:
    """Whether a final sentence doubts or reopens the statement before it (class closing-doubt)."""
    return bool(_CLOSING_DOUBT.search(sentence.strip().strip("*")))


_TOTAL = re.compile(r"\b(?:a|the) total of\b|\bin total\b|\baltogether\b|\bin all\b", re.IGNORECASE)


def _committed_sentences(paragraph: str, asked: bool = False) -> list[str]:
    """The sentences of a paragraph without the closing courtesy, verification lines and asides."""
    # "... is:\n\\[ x^2 + y^2 = 13 \\]" states its value on the next line
    # (and "..., so\n$P = 1/3$." continues its sentence on the next line)
    paragraph = re.sub(r"((?:\b(?:is|are|so|thus|hence|therefore|we get|gives)|=|:) ?)\n(?!\n)", r"\1 ", paragraph)
    if opens_remark(paragraph):  # class aside-paragraph
        return []
    sentences = split_sentences(paragraph)
    while sentences and _COURTESY.search(sentences[-1]) and not re.search(r"\d|\$|\\\(", sentences[-1]):
        sentences.pop()
    while sentences and is_aside(sentences[-1], asked):
        sentences.pop()  # class verification-line, class aside-after-answer
    return sentences


def negated(sentence: str, value: str) -> bool:
    """Whether the clause that states `value` negates it ("the value cannot be 5"; not "since 4 is not prime, ...")."""
    at = sentence.rfind(value)
    if at == -1:
        return False
    clause = re.split(r"[,;:\d$]", sentence[:at])[-1]  # a negation before another value is that value's ("not 10, it's 12")
    # (a negation inside the subject, "the arrangements in which A and B are not adjacent is 72", denies no value)
    return bool(DENIED.search(clause.rstrip(" *")))


def conclusion(region: str, marked_final: bool = False) -> Statement | None:
    """A concluding sentence of the final paragraph, or a final sentence ending in a stated value. A final
    paragraph of asides only ("For comparison, ...", "Note: ...") is skipped for the one before it. `marked_final`:
    the text's final sentence was set in bold, which marks it as the conclusion (class bold-final-sentence)."""
    tail = math_safe_tail(region.rstrip(), 1600)
    paragraphs = [p for p in tail.split("\n\n") if p.strip()]
    if not paragraphs:
        return None
    # each paragraph is read in its final 800 characters (a conclusion closes its paragraph)
    paragraphs = [math_safe_tail(p, 800) for p in paragraphs[-3:]]
    asked = asks_hypothetical(region)

    def committed(paragraph: str) -> list[str]:
        sentences = _committed_sentences(paragraph, asked)
        while sentences and elaborates(sentences[-1], tail[: tail.rfind(paragraph) + max(0, paragraph.rfind(sentences[-1]))]):
            sentences.pop()  # class closing-elaboration (kleval.verify.commitment)
        return sentences

    paragraph, sentences = paragraphs[-1], committed(paragraphs[-1])
    for earlier in reversed(paragraphs[:-1]):
        if sentences:
            break
        paragraph, sentences = earlier, committed(earlier)
    if not sentences:  # nothing but asides: the last one is read as before (a lone "Check: 7 x 6 = 42" line)
        paragraph = paragraphs[-1]
        sentences = split_sentences(re.sub(r"((?:\b(?:is|are)|=|:) ?)\n", r"\1 ", paragraph))[-1:]
    if sentences and (closing_doubt(sentences[-1]) or DOUBT.search(sentences[-1]) and not re.search(r"\d", sentences[-1])):
        return None  # class closing-doubt (also a doubt without a value, "Let me reconsider this.", "Hmm, I doubt this.")
    offset = len(region) - len(tail) + tail.rfind(paragraph)
    final = len(sentences) - 1
    # (a closing sentence whose value is in words, "So it takes three bolts in total.", is no remark)
    while final > 0 and len(sentences) - final <= 2 and _is_closing_remark(sentences[final]) \
            and sentence_value(sentences[final], False)[0] is None \
            and (final < len(sentences) - 1 or _is_closing_remark(worded_numbers_as_digits(worded_clock_as_digits(sentences[final])))):
        final -= 1  # a closing remark without any value ("This covers all steps ...")
    for index in range(final, -1, -1):
        sentence = sentences[index]
        bold = _WHOLLY_BOLD.fullmatch(sentence.strip())
        if bold:  # class bold-sentence: a sentence set in bold is the one the text marks ("**The fifth number is 11.**"
            sentence = bold.group(1) + (bold.group(2) or bold.group(3))  # then "Verification: ..."), read as its words
        if index == final == len(sentences) - 1:  # class worded-number-in-sentence: "So in 15 minutes he will go ten
            # miles." (only a sentence that closes the text)
            # (class clock-in-words: "The movie ends at half past seven." states 7:30)
            working = region[: offset + max(0, paragraph.rfind(sentences[index]))]  # (the text before the sentence)
            sentence = worded_numbers_as_digits(worded_clock_as_digits(without_parenthetical_aside(without_check_clause(sentence),
                                                                                                   working)))
        # class total-statement: a final sentence that states a total concludes ("... gives us a total of 45 dollars")
        # (class rounding-conclusion: a final sentence that opens by rounding, "Correct to one decimal place, r ≈ 4.2%.")
        concluding = bool(CONCLUDING.match(sentence) or (index == final and (_TOTAL.search(sentence) or _ROUNDING.match(sentence)))
                          or (bold and index == final)
                          or (marked_final and index == final == len(sentences) - 1 and not _STEP.match(sentence))) \
            and not _FORWARD.match(sentence)
        if not concluding and index != final:
            if RETRACTION.search(sentence):
                break  # class retracted-statement: what came before "Wait, the side is not 6" is withdrawn
            continue
        if HEDGED.search(sentence) or sentence.rstrip("*$) ").endswith("?"):
            break  # class hedged-statement: the closing candidate is doubted or asked, no earlier one is read instead
        if BRACKETED_CORRECTION.search(sentence):
            break  # class bracketed-correction: "Total: $1,800 (correction: ..., so $1,500)." withdraws its value
        if concluding and (joined := joined_assignments(sentence)):
            return Statement(joined, "joined-assignments", offset)
        if concluding and (member := membership_statement(sentence)):  # class membership-statement (complements)
            return Statement(member, "membership-statement", offset)
        value, concluding = sentence_value(sentence, concluding)
        if not value and index == final == len(sentences) - 1:  # class computed-statement (kleval.verify.clause_numbers)
            value = computed_statement(sentence, region[: offset + max(0, paragraph.rfind(sentences[index]))])
        if value and negated(sentence, value):
            break  # class negated-statement: "Thus the value cannot be 5."
        shown = value if value is None or value in sentence else value.strip("$")  # (class factorial-in-prose: `$5!$`)
        if value and sentence.rfind(shown) != -1 and re.search(r", but\b", sentence[sentence.rfind(shown) :]):
            break  # "..., but it fails the original equation" ("I got 12, but ..., so the count is 11" stays 11)
        if value and not concluding and index < len(sentences) - 1 and re.fullmatch(r"[A-Za-z\-]+", value):
            value = None  # a word ("... is valuable.") before skipped remarks is prose, not a worded answer
        at = paragraph.rfind(sentences[index])
        if value and _set_aside_later(value, [paragraph[at + len(sentences[index]) :]] if at != -1 else sentences[index + 1 :]):
            break  # class set-aside-later: "So x = 2 or x = 3. Checking, x = 2 is extraneous." withdraws a listed value
        if value:
            return Statement(clean_span(value), "conclusion-sentence" if concluding else "final-statement", offset)
        if RETRACTION.search(sentence):
            break
    return None


def _set_aside_later(value: str, later: list[str]) -> bool:
    """Whether a sentence after a stated list of values sets one of them aside by name ("x = 2 is extraneous")."""
    numbers = re.findall(r"-?\d+(?:\.\d+)?", value)
    if len(numbers) < 2:
        return False
    named = set_aside_values(" ".join(later))
    return any(n == other for n in numbers for other in named)


# class no-solution-sentence: a final sentence that says there is no solution ("..., so the system is inconsistent and
# has no solution.", "There are no real roots.") answers with the empty set; "no solution other than x = 0" does not
_NO_SOLUTION = re.compile(r"\b(?:has|have|there (?:is|are|exists?)|admits?|with|yields?|gives?) no (?:real |integer |positive "
                          r"|integral |such |possible |valid )?(?:solutions?|roots?|zeros?|values?)\b"
                          r"(?![^.!?\n]*\b(?:but|except|other than|besides|apart from)\b)[^.!?\n$\\]{0,60}[.!]?\s*$",
                          re.IGNORECASE)


def no_solution_statement(region: str) -> Statement | None:
    """The empty set, when the completion's final sentence says there is no solution."""
    tail = region.rstrip()[-400:]
    sentences = split_sentences(tail)
    last = sentences[-1] if sentences else ""
    hedged = re.search(r"\b(?:maybe|perhaps|probably|possibly|might|may|likely|guess|seems?)\b[^,.;]{0,25}\b(?:there|has|have|no)\b",
                       last, re.IGNORECASE)
    if not _NO_SOLUTION.search(last) or re.search(r"\bnot\b|n't\b|\?", last) or hedged:
        return None
    return Statement("no solution", "no-solution-sentence", len(region) - len(tail) + tail.rfind(last))
