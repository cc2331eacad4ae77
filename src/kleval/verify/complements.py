"""The worded complement of a closing sentence, for a worded gold (`\\text{Sunday}`, `\\text{even}`, `\\text{Devon}`).

class final-complement: a worded gold is answered by the word a closing sentence predicates of its subject: "So 40
days after Tuesday it will be Sunday." (not the 40 of its subject), "It will be a Sunday.", "So $f$ is an even
function." (a generic noun after the word, "function", "day", "number", is the word's head, not the answer), and
"..., and Devon won the race.", "So Navin would earn the most ..." (the winner named), "The series converges
(conditionally)." (the verdict verb). Never a sentence that denies, doubts, asks or offers another
choice ("It will not be Sunday.", "maybe Sunday", "Sunday or Monday"), and a bracketed remark after the sentence
("(It is not odd, since ...)") is no closing sentence. Read only for a worded gold, and only where the completion
gives no box or answer phrase: the reader looks for a word, and a number gold has none.

Pure string work with bounded patterns (linear time).
"""
from __future__ import annotations

import re

from kleval.verify.commitment import RETRACTION, is_aside
from kleval.verify.sentence_values import CONCLUDING, HEDGED, NEGATION, split_sentences

_GENERIC_HEAD = r"(?: (?:function|day|number|integer|sequence|series|one|person|name|answer|result))?"
_COPULA_COMPLEMENT = re.compile(r"\b(?:is|are|was|were|will be|would be|must be|has to be|falls on|lands on)"
                                rf"(?: (?:an?|the))? (?P<word>[A-Za-z][a-z]{{1,20}}){_GENERIC_HEAD}[.!]?$")
_WINNER = re.compile(r"(?:^|\b(?i:so|thus|therefore|hence|and)\b,? )(?P<word>[A-Z][a-z]{1,20}) (?:won|wins|is the winner|came first"
                     r"|finished first|comes first|(?:would |will )?(?:earns?|has|gets?|scores?|makes?|ran|runs|reads?) the"
                     r" (?:most|least|highest|lowest|fewest|farthest|furthest|longest|fastest)"
                     r"|is the (?:[a-z]+est|winner|oldest|youngest))\b[^.!?]{0,40}[.!]?$")
# (an intransitive verdict: "The series converges (conditionally).", "So the sequence diverges.")
_VERDICT_VERB = re.compile(r"\b(?:series|sequence|integral|sum|it)\s+(?P<word>converges|diverges)\b[^.!?]{0,30}[.!]?$",
                           re.IGNORECASE)
_REASON = re.compile(r",? \b(?:because|since|as|given that|due to|for)\b", re.IGNORECASE)
_ASIDE = re.compile(r"\s*\((?:[^()]|\([^()]{0,40}\)){0,300}\)[.!]?\s*$")
_OTHER_CHOICE = re.compile(r"\b(?:or|either|maybe|perhaps|probably|possibly|might|could|unless|if)\b|\?", re.IGNORECASE)
_NOT_A_WORD_ANSWER = {"it", "that", "this", "true", "correct", "right", "wrong", "the", "so", "also", "then", "here", "there",
                      "done", "same", "equal", "needed", "required", "left", "given", "shown", "found", "as", "follows"}


def final_complement(completion: str) -> str | None:
    """The word a completion's closing sentence predicates ("Sunday", "even", "Devon"), else None."""
    tail = re.sub(r"</?answer>", "\n", completion[-800:]).rstrip()  # ("<answer>It will be a Friday.</answer>")
    tail = re.sub(r"[ \t]{2,}", " ", tail.replace("\r\n", "\n").replace("\r", "\n"))  # (line endings and spaces as written)
    while (aside := _ASIDE.search(tail)) and aside.start() > 0:
        tail = tail[: aside.start()].rstrip()  # "(It is not odd, since ...)" remarks on the closing sentence
    paragraph = [p for p in tail.split("\n\n") if p.strip()][-1:]
    sentences = [s for line in paragraph[0].split("\n") for s in split_sentences(line)] if paragraph else []
    while len(sentences) > 1 and is_aside(sentences[-1]):
        sentences.pop()  # ("... so the product is even.\nNote that 3 is odd." answers even)
    if not sentences:
        return None
    concluding = [i for i, s in enumerate(sentences[:-1]) if CONCLUDING.match(re.sub(r"[*_]{1,3}", "", s).strip())]
    rest = " ".join(sentences[concluding[-1] + 1 :]) if concluding else ""
    if concluding and not CONCLUDING.match(re.sub(r"[*_]{1,3}", "", sentences[-1]).strip()) and not RETRACTION.search(rest) \
            and not re.search(r"\b(?:but|however|so|thus|hence|therefore|shows?|showing|instead|now|later)\b", rest, re.IGNORECASE):
        # (never a revision after it: "Thus f is odd. But f(-x) = f(x), so f is actually even.", "However, checking f(-1)
        # shows f is even.")
        # (a closing sentence about something else after the concluding one, "Thus $f$ is odd. Its derivative ... is
        # even.", "So it will be Friday. The day after that is Saturday.", adds a remark; the conclusion answers)
        sentences = sentences[: concluding[-1] + 1]
    # (a reason after the statement is no part of it: "So $f$ is odd, because $x^4$ and $x^2$ are even.")
    sentence = _REASON.split(re.sub(r"[*_]{1,3}|\$", "", sentences[-1]).strip(), maxsplit=1)[0].rstrip(" ,.!") + "."
    if NEGATION.search(sentence) or HEDGED.search(sentence) or _OTHER_CHOICE.search(sentence):
        return None
    m = _COPULA_COMPLEMENT.search(sentence) or _WINNER.search(sentence) or _VERDICT_VERB.search(sentence)
    if m is None or m.group("word").lower() in _NOT_A_WORD_ANSWER:
        return None
    return m.group("word")


# class membership-statement: a gold that states membership (`13824 \notin A`, `x \in A`) is answered by a concluding
# sentence that states it, in math ("Hence $x \notin A$.") or in words ("Therefore 13824 is not in $A$.", "7 is not an
# element of A", "so 9 belongs to A"); the statement is compared whole, element, relation and set
_ELEMENT = r"(?:-?\d{1,12}|[A-Za-z](?:_\{?\w{1,3}\}?)?)"
_SET_NAME = r"(?:[A-Z](?:_\{?\w{1,3}\}?)?|\\mathbb ?\{?[NZQRC]\}?)"
MEMBERSHIP = re.compile(rf"^\$?\s*({_ELEMENT}) ?\\(notin|in)(?![a-z]) ?({_SET_NAME})\s*\$?$")
_MATH_MEMBERSHIP = re.compile(rf"\$\s*({_ELEMENT}) ?\\(notin|in)(?![a-z]) ?({_SET_NAME})\s*\$[.!]?$")
_WORDED_MEMBERSHIP = re.compile(rf"(?:^|\s)\$?({_ELEMENT})\$? (?:is (not )?(?:in|an element of|a member of|contained in)|"
                                rf"(does not |doesn't )?belongs? to) (?:the set )?\$?({_SET_NAME})\$?[.!]?$")


def membership_statement(sentence: str) -> str | None:
    """`x \\notin A` for "Hence $x \\notin A$." or "Therefore x is not in $A$.", else None."""
    sentence = re.sub(r"[*_]{2}", "", sentence).strip()
    if (m := _MATH_MEMBERSHIP.search(sentence)) is not None:
        return f"{m.group(1)} \\{m.group(2)} {m.group(3)}"
    m = _WORDED_MEMBERSHIP.search(sentence)
    if m is None or HEDGED.search(sentence) or re.search(r"\b(?:if|whether|unless)\b", sentence, re.IGNORECASE):
        return None
    denied = bool(m.group(2) or m.group(3))
    return f"{m.group(1)} \\{'notin' if denied else 'in'} {m.group(4)}"
