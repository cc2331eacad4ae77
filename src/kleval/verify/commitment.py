"""Which text commits to an answer: retractions, confirmations, asides and cut-off endings.

The final-answer grammar (kleval.verify.grammar) reads the LAST committed answer statement. These
vocabularies decide what does not commit: a later retraction withdraws an earlier statement ("Wait,
I double counted"), a confirmation keeps it ("Yes, that matches"), an aside after the answer only
varies or rechecks numbers ("For comparison, ...", "If there were 8 boxes instead, ..."), and a text
cut off inside its reasoning or its answer commits to nothing. Pure string work, linear time.
"""
from __future__ import annotations

import re

from kleval.verify.statements import last_box_group, open_copy

# class retracted-statement: the writer withdraws what came before. Only words about the writer's own work
# ("I double counted", "that's wrong", "let me redo"), never problem words ("a common wrong answer", "the
# number of incorrect answers", "the error term"): those would make any later remark look like a correction.
# A WITHDRAWAL says the statement was wrong; a DOUBT ("Wait", "Hmm", "let me recheck") only reopens it, and a
# doubt that reaches no new value leaves the statement standing.
_WITHDRAWAL = (r"oops|on second thought|scratch that|correction|mistake|mistaken|miscount|miscalculat|overcount|undercount"
               r"|extraneous|(?:is|are) not (?:a )?valid|(?:does not|doesn't|do not|don't) satisfy"
               r"|double[- ]count(?:ed|ing)|let me (?:re-?do|redo|restart|start over|try again|fix|correct)|start(?:ing)? over"
               r"|I (?:forgot|missed|misread|mixed up|used the wrong|made an? )"
               r"|(?:that|this|it|which|the above|my (?:first |previous |earlier )?(?:answer|result|count))(?:'s| is| was) "
               r"(?:wrong|incorrect|not (?:right|correct)|off|an error)|no,? (?:wait|that)\b"
               # ("\boxed{2}\n\nActually, no.", "my own calculation is different", "I get a different answer")
               r"|(?<![?]\s)(?<![?]\s\s)actually,? no(?=[.!;,—–-]|\s*$)|(?:my own|I get an?|I got an?) (?:\w+ )?(?:is |comes out )?(?:different|another)"
               # ("Fixing the row count: ...", "Oh no, there are 8 rows.", "Whoops, ...", "Update: ...", "Ugh, I multiplied the
               # wrong numbers", "My earlier total ignored the 2 broken seats")
               r"|fixing (?:the|my|that|this)\b|oh no\b|whoops|update:|ugh\b|wrong numbers?"
               r"|my (?:earlier|first|previous|original) (?:total|answer|count|result|calculation|value|sum) (?:ignored|missed|forgot|left out|was)")
_DOUBT = (r"wait|actually|hmm+|re-?check|recount|recalculat|recomput|reconsider|let me (?:re-?examine|re-?think)"
          # (a second look in other words: "On reflection, ...", "Upon review, ...", "Rethinking this, ...", "Hold on, B
          # ignores friction.", "I overlooked that 2 chairs are broken", "so each friend really gets 15", "the true distance
          # is 90 km"; a doubt only, so a second look that reaches no new value leaves the statement standing)
          r"|on (?:further |second |closer )?reflection|upon (?:further )?(?:review|reflection|inspection)"
          r"|on (?:closer|further|a second) (?:look|inspection|reading)|rethink(?:ing)?\b|re-?reading|looking (?:at (?:it|this) )?again"
          r"|hold on|hang on|oh,? I see|I (?:overlooked|neglected|ignored|failed to|should have|didn't|did not) "
          r"|really (?:gets?|is|are|has|have|equals?|comes? to|needs?)\b"
          r"|(?:true|actual|real|correct) (?:\w+ ){0,2}(?:is|are|comes to|equals)\b"
          # (a paragraph that opens with "But" after the answer, "But the last row has 3 seats, so ..."; "It should be 6 × 8
          # = 48.", a doubt only: "it should be C if we consider air resistance" reaches no new answer)
          r"|(?:(?<=\n)|(?<=^))\s*but\b|it should (?:be|have been)\b")
WITHDRAWAL = re.compile(rf"\b(?:{_WITHDRAWAL})", re.IGNORECASE)
RETRACTION = re.compile(rf"\b(?:{_WITHDRAWAL}|{_DOUBT})", re.IGNORECASE)
DOUBT = re.compile(rf"\b(?:{_DOUBT})", re.IGNORECASE)
# class earlier-mistake: after an answer that corrects a value ("So the answer is 3, not 5."), a sentence that says an
# EARLIER attempt was wrong ("I misread the question at first.") explains that correction; it withdraws nothing said
# since. Never with a retraction of its own ("scratch that", "this answer is wrong", "redoing it") or a new value
# after it, in digits or words ("I made a mistake at first: it is 14" still retracts).
_OWN_RETRACTION = re.compile(r"\b(?:scratch that|on second thought|(?:this|that|the|my) answer|wrong|different|higher|lower"
                             r"|instead|re-?do(?:ing)?|should have|giving|gives|so it is|so the)\b"
                             r"|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
                             r"|fifty|hundred)\b", re.IGNORECASE)
_EARLIER = re.compile(r"\b(?:at first|initially|originally|the first time|in my first)\b", re.IGNORECASE)


def retraction_after(text: str) -> re.Match | None:
    """The first retraction in `text` (the text after an answer statement), never one in an earlier-mistake sentence."""
    explains = _OWN_RETRACTION.search(text) is None  # (a retraction of its own anywhere: every match retracts)
    for m in RETRACTION.finditer(text):
        start = max(text.rfind(". ", 0, m.start()), text.rfind("\n", 0, m.start())) + 1
        end = min((i for i in (text.find(". ", m.end()), text.find("\n", m.end())) if i != -1), default=len(text))
        if not (explains and WITHDRAWAL.match(text, m.start()) and _EARLIER.search(text[start:end])
                and not re.search(r"\d|\\boxed|\$", text[m.start() :])):
            return m
    return None

# class confirmed-statement: a recheck that ends by affirming the earlier statement keeps it
# ("Wait, let me double-check: 7 x 6 = 42, which matches. Yes, the answer is correct.")
# ("correct" only as a predicate: "The correct count is 44" states a new value, it confirms nothing)
CONFIRMATION = re.compile(r"\b(?:is|was|be|are|looks|seems) (?:indeed |also |still )?(?:correct|right|consistent|valid)\b"
                          r"|\b(?:confirm(?:s|ed)?|matches|checks out|verified|holds|as expected)\b|^\W*(?:correct|yes)\b"
                          r"|[✓✔]", re.IGNORECASE)
_DENIAL = re.compile(r"\b(?:not|isn't|doesn't|don't|never|no longer|can't|cannot|couldn't|won't)\b[^.!?]{0,30}"
                     r"\b(?:correct|confirm|match|consistent|check|verif|hold|right)"
                     r"|\bincorrect\b|\binconsistent\b", re.IGNORECASE)


def confirms(text: str) -> bool:
    """Whether a recheck text affirms the statement before it (and nowhere denies it)."""
    return bool(CONFIRMATION.search(text)) and not _DENIAL.search(text)


# class reopened-answer: a doubt after the answer that offers other values in its place leaves no answer committed:
# "The answer is 6.\n\nActually, the answer could be 7 or 8.", "Wait, could it be 7?", "Hmm, 7 or 8." (a doubt that
# reaches no value, or only the stated one, leaves the statement standing; a value in passing, "Hmm, 2 or 3 of them
# might overlap", offers nothing)
NUMBER = r"(?:\$?-?\d[\d,]*(?:\.\d+)?|\\frac\{[^{}]*\}\{[^{}]*\})"  # (a number or a fraction, as a statement writes it)


def numbers_in(text: str) -> set[str]:
    """The numbers `text` writes, without their currency sign and thousands commas ("$1,500" -> "1500")."""
    return {n.lstrip("$").replace(",", "") for n in re.findall(NUMBER, text)}


_SUBJECT = r"(?:it|that|the (?:final )?answer|the (?:result|total|value|count))"
_REOPENING = re.compile(
    rf"\b{_SUBJECT}(?: actually| really)? (?:could|might|may|would)"
    r"(?: also| instead| actually| well| just| really)? be\b(?! (?:written|expressed|simplified|seen))(?: [A-Za-z]+){0,3}"
    r" [$\\(]*-?\d[^.!?\n]{0,40}"
    rf"|\b(?:could|might|may|would|should) {_SUBJECT} (?:actually |really )?be\b"
    r"(?: [A-Za-z]+){0,3} [$\\(]*-?\d[^.!?\n]{0,40}"
    # ("Actually, wait: the answer is at least $\frac{2}{3}$.": a later answer phrase that no reading took as the answer)
    r"|\bthe (?:final |correct |real )?answer (?:is|was|should be|must be) (?:(?:at least|at most|more than|less than|between"
    r"|about|around|roughly|probably|maybe|perhaps|either|actually|really|then) ){0,2}[$\\(]*(?:-?\d|\\[dt]?frac)[^.!?\n]{0,40}"
    # ("Wait, 13 is also possible.", "Actually, either 12 or 13 works.")
    r"|(?:\$?-?\d[\d,.]*\$?|\$[^$\n]{1,30}\$) (?:is|are|would be|could be) also (?:possible|valid|an option|a solution|correct|right)\b"
    r"|\beither\b[^.!?\n]{0,30}\bor\b[^.!?\n]{0,30}"
    # ("Wait, is it 13?", "Wait — or is it 13?")
    r"|\b(?:is|was) it (?:actually |really |maybe )?[$\\(]*-?\d[^.!?\n]{0,20}\?"
    # ("Actually, she needs 2 more boxes than that.")
    r"|\b\d[\d,.]* (?:[a-z]+ ){0,2}(?:more|fewer|less|greater|smaller|higher|lower)\b[^.!?\n]{0,40}\bthan (?:that|this|it)\b"
    rf"|^\W*(?:{_DOUBT})\W+(?:(?:maybe|perhaps|possibly|or|it'?s|it is) )*{NUMBER}(?:,? (?:or|maybe|perhaps) {NUMBER})*\W*$",
    re.IGNORECASE | re.MULTILINE)


def reopens(after: str, stated: str) -> bool:
    """Whether the text after a statement offers another value in its place (class reopened-answer); never a question
    the text answers with a no ("Wait, could it be 7? No, because she gave one away.")."""
    stated_values = numbers_in(stated)
    for m in _REOPENING.finditer(after):
        rest = after[m.end() :]
        question = re.match(r"[^.!\n]{0,80}\?", rest)
        if question and re.search(r"(?:^|[\s,;:*])(?:no|nope)\b(?! doubt| question)", rest[question.end() : question.end() + 160],
                                  re.IGNORECASE):
            continue  # (a question the text answers with a no, at once or after its reason)
        if numbers_in(m.group(0)) - stated_values:
            return True
    return False


# Openers that announce a remark (class aside-opener: "Fun fact: with five books ...", "Just for fun, ...") or a closing
# courtesy or offer (class courtesy-offer: "I hope this helps! If you'd like, I can also find the perimeter (it's 40
# meters).", "Let me know if you want the return trip: 2 hours."); either is an aside whatever numbers it mentions.
_REMARK_OPENERS = (r"by the way|fun fact|just for fun|for fun|as a bonus|bonus|interestingly|out of curiosity"
                   r"|(?:as an? )?side note|I hope (?:this|that|it) (?:helps|is helpful|was helpful)|hope (?:this|that) helps"
                   r"|let me know|feel free|if you(?:'d| would) like|if you want|would you like|happy to help"
                   r"|glad (?:I could|to) help|thanks|thank you")

# class aside-after-answer: a sentence after the answer that rechecks, compares or varies the problem
# ("Note: at 70 mph it would have covered 175 miles.", "For comparison, ...", "As a quick check: 3 x 15 =
# 45. ✓", "If there were 8 boxes instead, there would be 96 eggs."). It states numbers, never the answer.
# A plain conditional ("If he buys 3 more, he will have 12") is not an aside: only a counterfactual
# ("instead", "were", "had been", "would have <participle>") is.
ASIDE = re.compile(
    r"^\W{0,4}(?:note|remark|for comparison|by comparison|in comparison|for reference|for example|for instance"
    r"|as an? (?:quick |final |sanity |simple )?(?:check|verification|aside|comparison|sanity check)"
    r"|to (?:check|verify|confirm|double-check)|check(?:ing)?|verif(?:y|ication|ying)|double[- ]check(?:ing)?"
    r"|sanity check|alternatively|(?:this|that) (?:took|matches|agrees|checks|is consistent)"
    rf"|{_REMARK_OPENERS})\b"
    # an elaboration of the answer just stated ("This includes the $5 tip.", "It assumes she sells all 9.")
    r"|^\W{0,4}(?:this|that|these|it) (?:includes|include|assumes|assume|accounts|covers|corresponds|satisfies|uses"
    r"|makes sense|excludes|ignores|counts)\b"
    r"|^\W{0,4}if\b[^.!?]{0,200}\b(?:instead|were|had been)\b"
    # class hypothetical-answer: "If each bus made 2 trips, the answer would be 900." varies the problem
    r"|^\W{0,4}if\b[^.!?]{0,200}\b(?:the )?(?:final )?answer would (?:be|have been)\b"
    r"|\b(?:would|could|might) have (?:been|taken|made|gotten|given|spent|won|lost|paid|sold|bought|run|driven"
    r"|[a-z]{2,}ed)\b"
    r"|[✓✔]\W*$"
    # a remark wholly in parentheses, in words ("(She uses 7 eggs herself.)"; never a tuple such as "(5, 7)")
    r"|^\((?=[^()]{0,200}[A-Za-z]{2,} [A-Za-z]{2,})(?:[^()]|\([^()]*\))*\)\W*$",
    re.IGNORECASE,
)


# class aside-paragraph: a paragraph that opens by announcing a remark or a courtesy ("By the way, the GCD is 6 ...",
# "Fun fact: ...", "Hope this helps! If you're adding fractions like 5/12 + 7/18, ...") is an aside as a whole,
# whatever its later sentences state; a check or a note may still conclude ("Check: 3 x 4 = 12. So 12 apples.")
_REMARK_OPENER = re.compile(rf"^\W{{0,4}}(?:{_REMARK_OPENERS})\b", re.IGNORECASE)


def opens_remark(paragraph: str) -> bool:
    """Whether a paragraph opens by announcing a remark or a courtesy (class aside-paragraph)."""
    return bool(_REMARK_OPENER.match(paragraph.strip()))


# class closing-elaboration: a closing sentence that describes the answer just stated in terms of the givens ("She baked 24
# cookies.\n\nThat is 6 cookies for each of the 4 friends.", "That works out evenly for all 4 friends.", "This gives each
# of the 4 friends the 6 cookies they were promised.") states nothing new: every number of it was written before it.
# Never a sentence with a new value ("That gives 24 cookies." after "4 batches of 6"), one that doubts or denies, nor
# one without a number.
_ELABORATES = re.compile(r"^\W{0,4}(?:that|this|it)(?:'s|\u2019s| is| was| gives| works out| matches| covers| fits)\b",
                         re.IGNORECASE)
# (a result is no elaboration, "This gives her 6 dollars left over.", "That is 3 bags."; an elaboration puts the answer in
# terms of the givens: two numbers, or a number with what it describes, "for all 4 friends", "in the 3 hours of driving")
_RESULT_WORDS = re.compile(r"\b(?:left|remain\w*|over|leftover|total|altogether|in all|answer|so|therefore|thus|hence)\b",
                           re.IGNORECASE)
_GIVEN_CONTEXT = re.compile(r"\b(?:each|every|all|per|as (?:the problem|given|stated|required|asked)|promised|covered|of (?:the|her|his"
                            r"|their|its))\b", re.IGNORECASE)


def elaborates(sentence: str, before: str) -> bool:
    """Whether `sentence`, after the text `before` it, only describes the answer in numbers already written."""
    if not _ELABORATES.match(sentence.strip()) or RETRACTION.search(sentence) or re.search(r"\?|\bnot\b|n't\b", sentence) \
            or not re.search(r"\d", before):
        return False  # (never "That leaves 3/8 of the pizza.", a result, nor "This is not the final answer yet.")
    numbers = numbers_in(sentence)
    if _RESULT_WORDS.search(sentence) or not (len(numbers) >= 2 or _GIVEN_CONTEXT.search(sentence)):
        return False
    return bool(numbers) and numbers <= numbers_in(before)


# class counterfactual-frame: a condition put as a counterfactual, "Had he bought the hat too, he would have 5.", "Were he
# to buy it, ...", "Without the coupon, she would pay $30.", or a variation the sentence calls one, "For choosing 2 of the 7
# instead, it would be 21.", "... we would get 120 instead."; never one that goes on to conclude ("Had they eaten none, 20
# would remain; they ate 12, so 8 remain."), a reason ("21, not 42, because we would otherwise count each pair twice
# instead of once"), a correction ("Correction: ..., so the count would be 13 instead."), nor the very thing the question
# asks ("The question asks what she would pay without the coupon.": `asked`)
_COUNTERFACTUAL = re.compile(r"^\W{0,4}(?:had|were) (?:he|she|it|they|we|you|I|there|the|his|her|their|[A-Z][a-z]+)\b[^.!?]{0,200}\bwould\b"
                             r"|^\W{0,4}without\b[^.!?]{0,200}\bwould\b"
                             r"|\bwould\b[^.!?]{0,200}\binstead\b|\binstead\b[^.!?]{0,200}\bwould\b", re.IGNORECASE)
_NOT_COUNTERFACTUAL = re.compile(r"[;,] (?:so|thus|hence|therefore)\b|\b(?:because|since|otherwise)\b", re.IGNORECASE)
_ASKS_HYPOTHETICAL = re.compile(r"\b(?:question|problem)\s+(?:asks|wants|is asking)\b[^.\n]{0,120}\b(?:would|without|if|had|were)\b",
                                re.IGNORECASE)


def asks_hypothetical(text: str) -> bool:
    """Whether the text says the question asks a hypothetical ("The question asks what she would pay without ...")."""
    return bool(_ASKS_HYPOTHETICAL.search(text))


def is_aside(sentence: str, asked: bool = False) -> bool:
    """Whether a sentence (or a line) is an aside after the answer, not a statement of it (`asked`: the question asks a
    hypothetical, so a counterfactual answers it)."""
    sentence = sentence.strip()
    return bool(ASIDE.search(sentence)) or not asked and bool(_COUNTERFACTUAL.search(sentence)) \
        and not _NOT_COUNTERFACTUAL.search(sentence) and not WITHDRAWAL.search(sentence)


# class cut-repetition: a repetition loop that the token limit cut inside its next copy ("Jake needs 12 weeks.\n\nJake
# needs $300. He saves $25") ends in a fragment that an earlier line or sentence of the text begins with; the fragment
# states nothing (what the loop repeated does), so it is read past. Only a fragment of 8 or more characters with no
# closing stop, the start of an earlier line or sentence that the text writes at least twice over (a loop: never a
# restated answer line after a correction, "Answer: 15 - 3 = 12 ... Answer: 15").
def without_cut_repetition(text: str) -> str:
    """`text` without a final fragment that is the cut-off start of a line or sentence the text repeats."""
    body = text.rstrip().rstrip("\u2705\u2713\u2714 \t\n")  # (a check mark closing the text is no part of the fragment)
    last_line = body.rsplit("\n", 1)[-1].strip()
    pieces = [last_line] + [p for p in re.split(r"(?<=[.!?])\s+", last_line)[1:]][-1:]
    for fragment in pieces:
        if len(fragment) < 8 or re.search(r"[.!?)$\]}*]\s*$", fragment):
            continue
        earlier = body[: len(body) - len(fragment)]
        lines = [u.strip() for u in earlier.split("\n") if u.strip()]
        sentences = [u.strip() for u in re.split(r"\n|(?<=[.!?])\s+", earlier) if u.strip()]
        if any(units.count(u) >= 2 and u.startswith(fragment) and u != fragment for units in (lines, sentences) for u in units):
            return earlier.rstrip()
    return text


# class truncated-statement: a text that ends inside an opened box, or right after an answer phrase, was
# cut off while stating its final answer; what it stated before is not what it was committing to.
_OPEN_BOX_AT_END = re.compile(r"(?:\\boxed|\\fbox) ?\{[^{}]{0,150}(?:\{[^{}]{0,150}\}[^{}]{0,150}){0,4}$")
_PHRASE_AT_END = re.compile(r"(?:final answer(?: is)?|answer is|answer ?[:=]) ?:?$", re.IGNORECASE)


def _repeated_then_cut(region: str) -> bool:
    """Whether the text ends in a repetition loop of one box cut inside its next copy (class repeated-box)."""
    group = last_box_group(region)
    return group is not None and group.how == "repeated-box" and open_copy(region, group.end, group.span)


def cut_off_in_statement(region: str) -> str | None:
    """Why the text stops inside its answer statement (a box it opened, an answer phrase), or None."""
    tail = region[-400:].rstrip()
    if ("\\boxed" in tail or "\\fbox" in tail) and _OPEN_BOX_AT_END.search(tail) and not _repeated_then_cut(region):
        return "the text stops inside a box or an expression (truncated); no committed answer"
    if _PHRASE_AT_END.search(tail.rstrip(" \t\n.;,!*$\\([")[-40:]):
        return "the text ends in an answer phrase with nothing after it (truncated)"
    return None


# class think-unclosed: a completion that opens `<think>` and never closes it stopped while reasoning; a box
# inside that reasoning is a guess, not a final answer.
def unclosed_think(text: str) -> bool:
    """Whether the last `<think>` of the text is never closed."""
    opened = text.rfind("<think>")
    return opened != -1 and text.find("</think>", opened) == -1
