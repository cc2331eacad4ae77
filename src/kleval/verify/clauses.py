"""Clauses of a final sentence that qualify its value without stating it (kind `number`, the closing line).

The closing-line readers (kleval.verify.grammar.find_number_answer, clause_numbers.main_clause_number) take the value of
the main clause. Two kinds of clause carry numbers that are not that value:

- a justification clause ("n = 14 works because 13 is prime", "k is 9 since 8 fails", with or without a
  comma before it): it reasons about the value after stating it; it runs to the next concluding clause
  (", so she has 40"), to the main verb after it (", given that ..., is 1") or to the end of the line;
- an appositive phrase between commas right after the subject ("The bridge, opened in 1969, was 51 years
  old", "Maria, who was born in 2011, had 12 stamps"): a participle or relative phrase that describes the
  subject.

Pure string work with bounded patterns (linear time).
"""
from __future__ import annotations

import re

# class justification-clause: "since"/"because" need no comma ("as" does: "as many as", "as shown" are no reasons)
_JUSTIFICATION = re.compile(r", (?:since|because|as|given that|due to)\b| (?:since|because|given that|due to)\b",
                            re.IGNORECASE)
# where the main clause resumes after a reason: a concluding clause (", so she has 40") or, for a reason set off
# mid-sentence, the main verb after its closing comma ("The probability, given that ..., is \\(1\\).")
_RESUME = re.compile(r"[,;] (?:and )?(?:so|thus|hence|therefore|consequently)\b"
                     r"|, (?:[a-z]+ ){0,2}?(?:is|are|was|were|equals|gives|becomes)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?![A-Za-z0-9])")


def _first_reason(line: str) -> re.Match[str] | None:
    """The first justification clause of `line` that follows a number."""
    for reason in _JUSTIFICATION.finditer(line):
        if line[: reason.start()].endswith(";"):
            continue  # (a reason that opens a clause of its own, "...; since squares grow, the largest is 14", leads to it)
        if _NUMBER.search(line, 0, reason.start()) or "$" in line[: reason.start()]:
            return reason
    return None


def justification_start(line: str) -> int | None:
    """Where the first justification clause after a value starts, when no concluding clause follows it."""
    reason = _first_reason(line)
    if reason is None or _RESUME.search(line, reason.end()):
        return None
    return reason.start()


def drop_justification(line: str) -> str:
    """`line` without the first justification clause that follows a number (up to a concluding clause)."""
    reason = _first_reason(line)
    if reason is None:
        return line
    resume = _RESUME.search(line, reason.end())
    return line[: reason.start()] + (line[resume.start() :] if resume else "")


# class appositive-phrase: a subject of at most four words, then ", <participle or relative pronoun> ... ," and a verb
_PARTICIPLE = (r"(?:who|which|that)\b|[a-z]{3,}ed\b|(?:built|born|made|written|begun|held|known|aged|grown|run|founded"
               r"|sold|bought|seen|given|taken|set|begun|laid)\b")
_APPOSITIVE = re.compile(rf"^(\W{{0,3}}[A-Za-z][\w'’\-]{{0,30}}(?: [A-Za-z][\w'’\-]{{0,30}}){{0,3}}), (?:{_PARTICIPLE})"
                         rf"[^,;.!?:]{{0,60}}, (?=[a-z])")


def drop_appositive(sentence: str) -> str:
    """`sentence` without the appositive phrase right after its subject (`The bridge, opened in 1969, was ...`)."""
    m = _APPOSITIVE.match(sentence)
    return f"{m.group(1)} {sentence[m.end() :]}" if m else sentence


# class since-clause-conclusion: a short completion whose math sits in an opening reason ("Since $f(-x) = -f(x)$,
# the function is odd.") states its answer in the main clause, a word after "is"/"are"; the math only justifies it.
# The reason must hold every math block; a main clause with math, a digit or more than three words is no such answer.
_SINCE_CONCLUSION = re.compile(
    r"(?:since|because|as|given that)\b([^,]{1,400}), (?:so |then |hence |thus |therefore )?"
    r"(?:(?:the|this|that|our|it|its|each|every)\b[^,$\\\d.!?]{0,60}? )?(?:is|are)(?: therefore| thus| hence| then)? "
    r"([A-Za-z][A-Za-z\-]{0,30}(?: [A-Za-z][A-Za-z\-]{0,30}){0,2})[.!]?", re.IGNORECASE)


def reason_then_word(text: str, last_block_end: int) -> str | None:
    """The worded main-clause answer of `text` when an opening reason holds all its math (ending at
    `last_block_end`), else None."""
    m = _SINCE_CONCLUSION.fullmatch(text.strip())
    if m is None or last_block_end > m.end(1) + (len(text) - len(text.lstrip())):
        return None
    return m.group(2)
