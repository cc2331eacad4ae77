"""The worded complement of a closing sentence, for a worded gold (`\\text{Sunday}`, `\\text{even}`, `\\text{Devon}`).

class final-complement: a worded gold is answered by the word a closing sentence predicates of its subject: "So 40
days after Tuesday it will be Sunday." (not the 40 of its subject), "It will be a Sunday.", "So $f$ is an even
function." (a generic noun after the word, "function", "day", "number", is the word's head, not the answer), and
"..., and Devon won the race." (the winner named). Never a sentence that denies, doubts, asks or offers another
choice ("It will not be Sunday.", "maybe Sunday", "Sunday or Monday"), and a bracketed remark after the sentence
("(It is not odd, since ...)") is no closing sentence. Read only for a worded gold, and only where the completion
gives no box or answer phrase: the reader looks for a word, and a number gold has none.

Pure string work with bounded patterns (linear time).
"""
from __future__ import annotations

import re

from kleval.verify.sentence_values import HEDGED, NEGATION, split_sentences

_GENERIC_HEAD = r"(?: (?:function|day|number|integer|sequence|series|one|person|name|answer|result))?"
_COPULA_COMPLEMENT = re.compile(r"\b(?:is|are|was|were|will be|would be|must be|has to be|falls on|lands on)"
                                rf"(?: (?:an?|the))? (?P<word>[A-Za-z][a-z]{{1,20}}){_GENERIC_HEAD}[.!]?$")
_WINNER = re.compile(r"(?:^|\b(?:so|thus|therefore|hence|and)\b,? )(?P<word>[A-Z][a-z]{1,20}) (?:won|wins|is the winner|came first"
                     r"|finished first|comes first)\b[^.!?]{0,30}[.!]?$")
_ASIDE = re.compile(r"\s*\((?:[^()]|\([^()]{0,40}\)){0,300}\)[.!]?\s*$")
_OTHER_CHOICE = re.compile(r"\b(?:or|either|maybe|perhaps|probably|possibly|might|could|unless|if)\b|\?", re.IGNORECASE)
_NOT_A_WORD_ANSWER = {"it", "that", "this", "true", "correct", "right", "wrong", "the", "so", "also", "then", "here", "there",
                      "done", "same", "equal", "needed", "required", "left", "given", "shown", "found", "as", "follows"}


def final_complement(completion: str) -> str | None:
    """The word a completion's closing sentence predicates ("Sunday", "even", "Devon"), else None."""
    tail = completion[-800:].rstrip()
    while (aside := _ASIDE.search(tail)) and aside.start() > 0:
        tail = tail[: aside.start()].rstrip()  # "(It is not odd, since ...)" remarks on the closing sentence
    lines = [line for line in tail.split("\n") if line.strip()]
    if not lines:
        return None
    sentences = split_sentences(lines[-1])
    if not sentences:
        return None
    sentence = re.sub(r"[*_]{1,3}|\$", "", sentences[-1]).strip()
    if NEGATION.search(sentence) or HEDGED.search(sentence) or _OTHER_CHOICE.search(sentence):
        return None
    m = _COPULA_COMPLEMENT.search(sentence) or _WINNER.search(sentence)
    if m is None or m.group("word").lower() in _NOT_A_WORD_ANSWER:
        return None
    return m.group("word")
