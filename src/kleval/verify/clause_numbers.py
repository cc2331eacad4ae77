"""The number a closing sentence states: the one number of its main clause, or a stated total."""
from __future__ import annotations

import re

from kleval.verify.clauses import drop_appositive
from kleval.verify.glued import standalone, unit_power
from kleval.verify.sentence_values import CONCLUDING_CLAUSE, NEGATION, split_sentences

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


def standalone_numbers(text: str) -> list[re.Match]:
    """The numbers of `text`, without the power of a unit (`12 cm^2`)."""
    return [m for m in _STANDALONE_NUMBER.finditer(text) if not unit_power(text, m.start(), m.end())]


def main_clause_number(line: str) -> str | None:
    """The one number of the final sentence's main clause when a trailing phrase holds the others."""
    sentences = split_sentences(line)
    if not sentences:
        return None
    sentence = drop_appositive(sentences[-1])  # class appositive-phrase: "The bridge, opened in 1969, was 51 ..."
    clauses = [m for m in CONCLUDING_CLAUSE.finditer(sentence)]
    if clauses:
        sentence = sentence[clauses[-1].end() :]
    found = standalone_numbers(sentence.replace("$", " "))
    if len(found) < 2 or _SUBORDINATE_OPENING.match(sentence):
        return None
    first = found[0]
    split = _QUALIFIER.search(sentence, first.end()) if first else None  # "has to pay $45 for ...": after the number
    if split is None:
        return None
    head = sentence[: split.start()].replace("$", " ")
    numbers = standalone_numbers(head)
    if len(numbers) != 1 or re.search(r"[=+*/×]|\\times|\\cdot", head) or NEGATION.search(head):
        return None
    if not standalone(head, numbers[0].start(), numbers[0].end()):
        return None  # class glued-number: the one number of the main clause is part of an expression ("2^k")
    return numbers[0].group(0).rstrip(",")


# class computed-result (kind number): of the numbers of a final line, the one the working computed (it follows an "="
# there) is the answer and the others are the givens it restates: "5 × 8 = 40. The total is 40 pencils across 5 boxes."
# is 40, "There are 40 pencils inside the 5 boxes." too, whatever the preposition. Only when exactly one of the line's
# numbers is such a result and every other one was given before the working computed anything.
_RESULT = re.compile(r"(?:=|≈|\\approx)\s*\$?\s*(-?\d[\d,]*(?:\.\d+)?)(?![\d.,]*\d)")


def _written(number: str, text: str) -> bool:
    """Whether `text` writes `number` as a number of its own (never inside 150 or 1.5)."""
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", text) is not None


def computed_result(line: str, working: str) -> str | None:
    """The one number of `line` that the `working` before it computed, when the line's other numbers are givens."""
    numbers = {m.group(0).rstrip(",").replace(",", "") for m in standalone_numbers(re.sub(r"[$*]", " ", line))}
    if len(numbers) < 2:
        return None
    plain = working.replace(",", "")
    results = list(_RESULT.finditer(plain))
    # (the working's last result only, and nothing of the line worked out after it: never the 100 of "4 × 25 = 100. She
    # had 125 dollars, so she has 25 dollars left.\nShe has 25 dollars left after spending 100.")
    hits = numbers & {results[-1].group(1)} if results else set()
    if hits and any(_written(n, plain[results[-1].end() :]) for n in numbers - hits):
        return None
    # (a given is written before the working computes anything: never "Final Answer: mean 9, standard deviation 4" after
    # "Mean = 72 / 8 = 9 and variance = 16, so the standard deviation is 4", which names two results)
    givens = plain[: plain.find("=")] if "=" in plain else plain
    if len(hits) != 1 or not all(_written(n, givens) for n in numbers - hits):
        return None
    return hits.pop()


# class computed-statement: a closing sentence of plain prose that states one number, the result the working computed
# before it ("4 × 6 = 24.\n\nShe baked 24 cookies."), states the answer, with no copula or concluding word; never a
# step of the working ("Then she buys 12 more.", "So far we have 60."), a sentence that computes, bounds or denies, nor
# a number the working did not compute
_STEP_OPENING = re.compile(r"^\W{0,4}(?:then|next|now|first|second|after that|so far|let|we (?:need|want|have to)|to )\b", re.IGNORECASE)


def computed_statement(sentence: str, working: str) -> str | None:
    """The one number of a plain closing `sentence` when the `working` before it computed that number, else None."""
    plain = re.sub(r"[*_]{1,3}", "", sentence).strip()
    if len(re.findall(r"[A-Za-z]{2,}", plain)) < 2 or re.search(r"[^\x00-\u024f\u2000-\u22ff]|\d!", plain):
        return None  # (English prose only, "所以舍去的值是 3" discards its 3; never a factorial, "4! ways")
    if _STEP_OPENING.match(plain) or re.search(r"[=+×*·÷^<>≤≥]|\\|\$(?!\d)|\b(?:more|less|fewer|than|at least|at most|up to|"
                                               r"if|when|would|could|might|not|no|never|each|per|every)\b|n't\b", plain, re.IGNORECASE):
        return None
    numbers = standalone_numbers(plain.replace("$", " "))
    if len(numbers) != 1:
        return None
    number = numbers[0].group(0).rstrip(",")
    results = [m.group(1) for m in _RESULT.finditer(working.replace(",", ""))]
    # (the working's last result only: never "The unordered count was 6." after "6 × 2 = 12. So there are 12 ordered pairs.")
    return number if results and number.replace(",", "") == results[-1] else None


_TOTAL_NUMBER = re.compile(r"\b(?:a|the) total of \$?(\d[\d,]*(?:\.\d+)?)"
                           r"|(\d[\d,]*(?:\.\d+)?)(?: [A-Za-z]+){0,2},? (?:in )?total\b(?! of)", re.IGNORECASE)


def stated_total(text: str) -> re.Match | None:
    """The first stated total of `text` ("a total of 45", "30 miles in total"), never a glued number ("a total
    of 2^n subsets", class glued-number)."""
    total = _TOTAL_NUMBER.search(text)
    if total is None:
        return None
    group = 1 if total.group(1) else 2
    return total if standalone(text, total.start(group), total.end(group)) else None


def total_stands(rest: str) -> bool:
    """Whether the text after a stated total leaves it the answer: no other number, or only numbers inside a
    qualifying phrase ("... after giving away 2"), never an alternative ("7 in total and 9 otherwise")."""
    if not re.search(r"\d", rest):
        return True
    return bool(re.match(r"(?: [A-Za-z]+){0,3} (?:after|before|for|from|with|per|over|at|by|using|when|since)\b", rest)) \
        and not re.search(r"\b(?:and|or|otherwise|but|plus)\b", rest)
