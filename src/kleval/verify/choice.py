"""Multiple-choice answers: the final committed option letter of a completion.

Committed statements are a boxed letter, an answer phrase ("the answer is (B)", "Answer: D",
"the correct option is C", Mr-Ben's "Choice_B") and a completion that *is* an option ("C) 42",
"(B)", "B"). The LAST committed statement wins, so an abandoned first guess loses to a later
"Therefore, the correct answer is (A)", and a later mere mention ("option B fails because ...")
is not a statement at all. Only without any statement does the last `(B)` or `**B**` count.
A loop of four or more statements naming three or more letters is degenerate: `no_answer`.
"""
from __future__ import annotations

import re

from kleval.verify.answer_phrases import ANSWER_COPULA, ARROW, EXPLAINS, FOREIGN_ANSWER, arrow_heads_sentence, has_foreign_answer_word
from kleval.verify.commitment import RETRACTION, WITHDRAWAL, confirms, is_aside
from kleval.verify.extract import boxes_with_positions, compact_whitespace
from kleval.verify.grammar import answer_region, find_number_answer
from kleval.verify.sentence_values import sentence_start
from kleval.verify.statements import answer_tag, is_joiner, json_answer

_WINDOW = 6000
_NO_COMMITMENT = re.compile(r"\b(?:cannot|can't|can ?not|unable to) (?:determine|decide|choose|pick|select|tell)"
                            r"|\bnone of the (?:options|choices|answers)\b", re.IGNORECASE)


_REASON_AFTER = re.compile(r"^[*)\].]{0,4},? (?:because|since|as|given that)\b[^.!?\n]{0,200}[.!?]?", re.IGNORECASE)

def _phrase_pattern(letters: str, foreign: bool) -> re.Pattern[str]:
    """The answer-phrase pattern; the other languages' phrases only when the text has one of their words."""
    return re.compile(
        # class choice-answer-line: "Answer: B", "**Answer:** B", "Answer - B", "#### B", "I choose B"
        # (class choice-emphasis: markdown emphasis, `*` `_` `**` `__`, around the answer word, its colon or the letter:
        # "*Answer*: *D*", "__Answer__: __B__", "_Answer:_ C")
        rf"(?:(?<![A-Za-z])answer[*_]{{0,2}}(?: {ANSWER_COPULA})?(?: ?:| ?{ARROW})?(?:[*_]{{1,2}})?(?: ?[-–—])?"
        r"|(?:option|choice)(?: is| ?:| ?" + ARROW + ")"
        r"|(?<![A-Za-z])final(?: choice| pick| verdict)?[*_]{0,2} ?:[*_]{0,2}"  # ("Final: C", "**Final choice:** B")
        r"|(?<!#)####|\bI(?: would| will|['’]ll|['’]d| must| have to| am going to|['’]m going to)? (?:choose|pick|select|go with)"
        r"|\bI(?: am|['’]m) (?:going|sticking|staying) with"
        # (class choice-answer-belief: "Answer: I think it is C", "Answer: I believe B")
        r"|(?<![A-Za-z])answer[*_]{0,2} ?:[*_]{0,2} ?I (?:think|believe|guess|would say|['’]d say)(?: that)?(?: it(?:['’]s| is| must be))?"
        # (class choice-closing-it-is: the text's last words, "..., but it is III.", "So it's (B).")
        rf"|\b(?:but|so) it(?:'s| is| must be) (?=[*(\[]{{0,3}}[{letters}][)\]*]{{0,3}}[.!]?\s*$)"
        r"|\bit(?:'s| is) (?=(?:option|choice) )|\bthe (?:correct|right|best) (?:one|option|choice) is"
        # class choice-chinese-choose: the verb "choose" before a letter ("故选B", "我選擇 D", "应该选 A"); never
        # 选项 "option", which names an option in discussion ("选项 B 错误", "对应选项 (D)")
        r"|(?:选择|選擇|选|選)(?![项項])"
        + (rf"|{FOREIGN_ANSWER}(?: (?:final|finale|correcta|correcte|correta|corretta|richtige))?"
           rf"(?: ?(?:es|est|ist|lautet|è|é)(?: (?:la|le|die|a))?| ?[:：]| ?(?:是|为|は|은|는))" if foreign else "")
        + rf")"
        rf" ?(?:option |choice )?[*_(\[$]{{0,3}}(?:\\text\{{)?(?-i:([{letters}]))(?![A-Za-z0-9])"
        # (class choice-two-letters: "ANSWER: A, C." names two options and commits to neither)
        rf"(?![)\]*]{{0,3}} ?(?:,|&|/|\band\b|\bor\b) ?[*(\[]{{0,3}}(?-i:[{letters}])(?![A-Za-z0-9]))"
        # class choice-pronoun-I: on ten-option questions (MMLU-Pro, A-J) the pronoun is no option letter: "Answer: I don't
        # know", "ANSWER: I'm not sure, but (C)", "Answer: I'd go with E" (jundot/omlx#3668). The letter I followed by an
        # apostrophe or by a word other than one that continues an option ("I is correct", "I, since", "I because") is the pronoun.
        rf"(?!(?<=I)(?:['’]|\s(?!(?:is|was|seems|looks|fits|works|matches|because|since|as|and|or|with|which|only)\b)[A-Za-z]{{2,}}))"
        # (never a letter the phrase rejects: "Answer: A is wrong", "Antwort: A ist falsch")
        # (class choice-verdict-per-option: also a bracketed letter, "Answer: (B) is wrong, (D) is right")
        rf"(?![)\]]? ?,? (?:is|ist|es|est|è|é) (?:wrong|incorrect|false|not|falsch|nicht|incorrecta|falsa|faux|fausse|sbagliata)\b)"
        rf"|(?<![A-Za-z])choice_(?-i:([{letters}]))\b"
        # (class choice-chinese-choose: an option declared right, "只有选项C是对的", "C项正确"; never "D项不对")
        rf"|(?<![A-Za-z])(?-i:([{letters}]))(?:项|項)?(?:是|为|為)?(?:对|對|正确|正確)"
        rf"|(?<![A-Za-z(])(?-i:([{letters}]))\)? is (?:the )?(?:correct|right|valid|true|best|better"
        r"|only (?:one|option|choice|statement|answer) that (?:holds|works|fits|is true|is correct|survives))\b"
        # (class choice-verdict-after-clause: the verdict after a relative clause that restates the option, "Option I,
        # which says that no two electrons pair up while an empty orbital is left, is correct."), only as the writer's own
        # sentence, from its start: never what a misconception, a doubt or a check says of it ("A common misconception is
        # that option D, which ..., is correct.", "I doubt that option A, which ..., is correct.")
        rf"|(?:^|(?<=[.!?] )|(?<=\n))(?:(?:so|thus|hence|therefore|overall|finally),? )?(?:option|choice) \(?(?-i:([{letters}]))\)?, (?:which|that)\b[^.;!?\n]{{3,200}}?, (?:is|was) (?:the )?(?:correct|right|valid|true|best)"
        # (the verdict ends the sentence: never "is correct only for ...", "is the best distractor", "is true in the long run")
        rf"(?: (?:one|option|choice|answer))?(?=[.!;](?:\s|$)|\s*$)"
        # class choice-verdict-per-option: a line that gives each option a verdict chooses the one declared right; a
        # bracketed letter after a clause break ("(B) is wrong, (D) is right", "[C] is wrong; [A] is right") is such a verdict
        rf"|(?<=[,;] )(?:while |but |and |whereas )?[(\[](?-i:([{letters}]))[)\]] is (?:the )?(?:correct|right|valid|true|best)\b",
        re.IGNORECASE,
    )


# class choice-elimination: an elimination that ends on one option chooses it ("we can rule out C ..., leaving A",
# "which leaves C", "only B remains", "D is the only option left"); the eliminated letters are never chosen, and an
# elimination that leaves two options ("leaving A and D") chooses nothing.
def _elimination_pattern(letters: str) -> re.Pattern[str]:
    one = (rf"[*(\[]{{0,3}}(?-i:([{letters}]))(?![A-Za-z0-9])[)*\]]{{0,3}}"
           rf"(?!,? (?:and|or) [*(\[]{{0,3}}[{letters}]\b|, [*(\[]{{0,3}}[{letters}]\b| (?:aside|out)\b)")
    return re.compile(
        rf"\b(?:leaving|leaves|left with)(?: us with| only| just)?(?: (?:option|choice))? {one}"
        rf"|\bonly (?:option |choice )?{one} (?:remains|is left)\b"
        rf"|(?<![A-Za-z(])(?:option |choice )?{one} is the only (?:one|option|choice|answer) (?:left|remaining)\b",
        re.IGNORECASE)


def _lower_letter_pattern(letters: str) -> re.Pattern[str]:
    # (also an option label with its text, "**Answer:** d) 45°")
    return re.compile(rf"(?<![A-Za-z])answer[*_]{{0,2}}(?: {ANSWER_COPULA})? ?:?[*_]{{0,2}} ?\(?(?-i:([{letters.lower()}]))"
                      rf"(?:\)?(?=[,;]|\.(?:\s|$))|\)(?= \S))", re.IGNORECASE)


def _conclusion_letter_pattern(letters: str) -> re.Pattern[str]:
    # (class choice-option-sentence: a closing sentence that names the option it settles on, "That is option D.",
    # "A careful reading gives option A.", "so I choose option (C).")
    # (a bracketed lower-case letter after the word option is a label too, "so I choose option (c)."; and a softened
    # "Probably D." still commits)
    # (also with a colon and the word option, in emphasis: "Therefore: *Option B*.")
    return re.compile(rf"\b(?:(?:overall|so|thus|therefore|hence|finally|probably|most likely|in (?:conclusion|summary|short|sum))[,:]? "
                      rf"[*_]{{0,2}}(?:(?:option|choice) )?|(?:that|this) is (?:option|choice) |(?:gives|choose|pick|select) (?:option|choice) )"
                      rf"(?:\(?(?-i:([{letters}]))\)?|(?<=option )\(([{letters.lower()}])\)|(?<=choice )\(([{letters.lower()}])\))"
                      rf"[*_]{{0,2}}(?=[.!]?[*_]{{0,3}}\s*$|[.!]\s)", re.IGNORECASE)


def _option_at_end_pattern(letters: str) -> re.Pattern[str]:
    # (class choice-option-at-end: a closing sentence that ends on the option its value or text is, "So x = 5, which is
    # choice (a).", "..., which corresponds to option C, because ...", "... ≈ 0.84, i.e. about 84%, option C."; only
    # where nothing else commits, `_closing_choice`)
    return re.compile(rf"(?<=, )(?:(?:which|that|this) (?:is|corresponds to|matches) )?(?:option|choice) "
                      rf"(?:\(?(?-i:([{letters}]))\)?|(?<=option )\(([{letters.lower()}])\)|(?<=choice )\(([{letters.lower()}])\))"
                      rf"(?=[.!]?$|[.!]\s|,? (?:because|since|as)\b)", re.IGNORECASE)


def _copula_label_pattern(letters: str) -> re.Pattern[str]:
    # (class choice-copula-label: a copula, then the option as its label prints it, letter and text: "The largest active
    # pool of carbon is C. Recoverable fossil fuels.", "The best estimate is (B) 42 m/s", "... would be D) the ileum")
    return re.compile(rf"\b(?:is|are|was|were|would be|should be|must be)(?: option| choice)? (?:\((?-i:([{letters}]))\)"
                      rf"|(?-i:([{letters}]))[.):])(?: |\*\* ?)(?=[A-Z0-9$\\]|(?<=\) )[a-z])"
                      rf"(?!(?<=I[.):] )I\b|(?:and|or|nor|then|but|vs)\b)", re.IGNORECASE)


def _not_then_letter(letters: str) -> re.Pattern[str]:
    # (also several letters denied, "It is not A or B \u2014 it is D, the tilt of Earth's axis.", and the option's text after
    # a comma; never a second letter after it, "it is B, C")
    one = rf"(?:option |choice )?\(?(?-i:[{letters}])\)?"
    return re.compile(rf"\bnot {one}(?:(?:,| or| nor) {one})*(?:[;,.]| [\u2014\u2013-])? (?:but |rather )?(?:it(?:'s| is)|the answer"
                      rf" is|the correct (?:answer|option|choice) is) (?:option |choice )?\(?(?-i:([{letters}]))\)?"
                      rf"(?![A-Za-z0-9])(?! ?(?:,(?= ?(?:and |or )?\(?(?-i:[{letters}])\)?(?![A-Za-z]))|&|/|-|—|–|\.\."
                      rf"|\b(?:and|or|for|in|when|at|through|to|versus|vs|plus|with)\b))",
                      re.IGNORECASE)


def _revised_letter_pattern(letters: str) -> re.Pattern[str]:
    # (class choice-revised-letter: a revision that names its letter and ends its clause, "On reflection it should be
    # D.", "Actually, it must be (B), since ..."; never a conditional, "Actually, it should be C if we consider air
    # resistance", nor "it should be A bit more careful")
    return re.compile(r"(?<![A-Za-z])(?:on reflection|on second thought|actually|instead|rather|looking again|correction),? "
                      r"(?:I think )?(?:it|this|that|the answer) (?:should|must) (?:instead |actually |really )?be "
                      rf"(?:option |choice )?(?:\((?-i:([{letters}]))\)|(?-i:([{letters}]))(?=[.!:)]|\s*[—–-]|,? (?:since|because|as)\b|\s*$))",
                      re.IGNORECASE)


def _it_is_letter_pattern(letters: str) -> re.Pattern[str]:
    # (class choice-it-is-letter: a sentence that is only "It's C", then a colon, a full stop or a dash and the reason:
    # "It's not B — ... . It's C: women and children make up most enrollees."; never the article, "It's a trap")
    return re.compile(rf"(?:^|(?<=[.!?] )|(?<=\n))(?:so,? |thus,? |therefore,? |hence,? )?it(?:'s|’s| is| must be) "
                      rf"(?:option |choice )?\(?(?-i:([{letters}]))\)?(?=[.:!]\s|[.!]?$| [—–-] )", re.IGNORECASE)


_NOT_THE_ANSWER = re.compile(r"\b(?:distractor|misconception|trap|incorrect|wrong|tempting|other (?:choice|option)s?|if|options"
                             r"|choices|might|guess|glance|possibly|not say|would not|was|were|could|doubt)\b", re.IGNORECASE)
# (what a sentence says of an option it goes on to name: a mistake, a belief, an elimination, never a choice)
_NOT_CHOSEN = re.compile(r"\b(?:mistakes?|misconceptions?|think that|believe|believed|assume|claim|forget(?:s|ting)?|skips?|careless"
                         r"|errors?|students|often|rule out|ruled out|eliminate|eliminated|discard|would be|would give)\b",
                         re.IGNORECASE)
_DOUBT_AFTER = re.compile(r"\b(?:could|also|though|then again|possibl[ey]|still|but|or|wait|hmm|unless|however|actually|reconsider"
                          r"|re-?check|check|verify|not|sure|wrong|cannot|doubt|maybe|perhaps)\b|n't\b|\?", re.IGNORECASE)


_ANSWER_NEXT = re.compile(r"\b(?:the (?:remaining|last|only) (?:option|choice|one) (?:must be|is)|must be the (?:right|correct|answer)"
                          r"|(?:is|must be) the (?:right|correct|best) (?:one|option|choice|answer))\b[^:]*[.!]\W*$", re.IGNORECASE)


# class value-option: a completion that lists the options with their values ("The options are (A) 1, (B) 4, (C) 2, (D)
# 6.") and commits to a value, not a letter ("So 2^10 leaves remainder **2** when divided by 7.", "**Half-life = 10
# days**"), names the one option that holds that value (never two options with it, never a value no option holds)
_LISTED_VALUE = re.compile(r"\(([A-J])\)\s*\$?(-?\d[\d,]*(?:\.\d+)?)(?![\d.,]*\d)")
# class value-arrow-letter: a closing line that maps the value to its option, "9 J → C"
_SUPPOSES = re.compile(r"\b(?:would|could|if|distractor|mistak\w*|wrong|trap|check\w*|requires?|instead|suppose)\b", re.IGNORECASE)
_VALUE_ARROW_LETTER = re.compile(rf"(?:^|\n)[^\n]*\d[^\n]{{0,30}}?{ARROW} ?\$? ?\**\(?([A-J])\)?[*$]{{0,4}}[.!]?[*$]{{0,4}}$")


def _value_option(region: str, letters: str) -> str | None:
    listed: dict[str, str] = {}
    for m in _LISTED_VALUE.finditer(region):
        if m.group(1) in letters:
            listed.setdefault(m.group(1), m.group(2).replace(",", ""))
    if len(listed) < 3 or len(set(listed.values())) != len(listed):
        return None
    value, _ = find_number_answer(region)
    if value is None or not re.fullmatch(r"\$?-?\d[\d,]*(?:\.\d+)?", value.strip()):
        return None
    number = float(value.strip().lstrip("$").replace(",", ""))
    named = [letter for letter, listed_value in listed.items() if float(listed_value) == number]
    return named[0] if len(named) == 1 else None


_VALUE_ANSWER = re.compile(r"(?:\\boxed\{|\banswer(?: is)?[*_]{0,2} ?:?[*_]{0,2} ?\$?)(-?\d[\d.,/]*)", re.IGNORECASE)
_ASKS = re.compile(r"\b(?:which|what|whether|determine|figure out|identify|decide|find out)\b", re.IGNORECASE)


def _letter_of(m: re.Match) -> str:
    """The option letter a pattern with one letter group per alternative matched (upper case)."""
    return next(g for g in m.groups() if g).upper()


def _stands_alone(text: str, m: re.Match, letter: str, letters: str) -> bool:
    """Whether a letter stated at `m` is the last word on the question: no other option letter after it, plain or
    labelled ("It's B. Hmm, but D also fits"), and no doubt or alternative ("Probably D. It could also be C.")."""
    after = text[m.end() :]
    others = letters.replace(letter, "")
    return not (others and re.search(rf"(?<![A-Za-z'’])[{others}](?![A-Za-z'’])", after)) and not _DOUBT_AFTER.search(after)


def _closing_choice(text: str, m: re.Match, letters: str) -> bool:
    """Whether an option named at a sentence's end closes the text and chooses: in its last 240 characters, with no
    mistake, belief, elimination or distractor before it in its sentence, and no other option named shortly before."""
    start = sentence_start(text, m.start())
    before = text[start : m.start()]
    letter = _letter_of(m)
    return m.start() >= len(text) - 240 and not _NOT_THE_ANSWER.search(before) and not _NOT_CHOSEN.search(before) \
        and not _mentions_other_option(text[max(0, m.start() - 400) : m.start()], letters.replace(letter, ""),
                                       labels_only=letters[0].isdigit()) \
        and _stands_alone(text, m, letter, letters)


_HEDGE_AFTER = re.compile(r"\?|\b(?:or perhaps|or maybe|maybe|not sure|perhaps|or possibly|doubt)\b", re.IGNORECASE)
_CONDITION_AFTER = re.compile(r"\?|\b(?:if|when|whenever|unless|only|otherwise)\b", re.IGNORECASE)
_VERB_WORDS = re.compile(r"\b(?:is|are|was|were|has|have|had|will|would|can|could|should|we|I|you|it|they|this|that|there|but"
                         r"|or)\b", re.IGNORECASE)


def _sentence_after(text: str, at: int) -> str:
    """The rest of the sentence from `at`: up to a full stop, question or exclamation mark before a space, or a newline."""
    end = re.search(r"[.!?](?:\s|$)|\n", text[at:])
    return text[at : at + end.end()] if end else text[at:]


def _denial_commits(text: str, m: re.Match, letters: str) -> bool:
    """Whether a "not A; it is B" match commits to B: it closes the text (its last 240 characters), no hedge follows,
    and its sentence has no condition before it ("If it's not A, it's B.", "Why is it not A") nor a condition, an
    assumption or another letter after it ("it is B if we ignore friction", "it is B assuming ...", "B ... C")."""
    rest = _sentence_after(text, m.end())
    return m.start() >= len(text) - 240 and not _HEDGE_AFTER.search(text[m.end() : m.end() + 120]) \
        and not _CONDITION_AFTER.search(rest) \
        and not re.search(rf"(?<![A-Za-z])\(?[{letters}]\)?(?![A-Za-z])|\b(?:assuming|provided|though|although|except)\b", rest) \
        and not re.search(r"\b(?:if|unless|were|whether|why)\b", text[sentence_start(text, m.start()) : m.start()], re.IGNORECASE)


def _labels_the_answer(text: str, m: re.Match, letters: str) -> bool:
    """Whether a copula-label statement names the answer: not a distractor ("The trap is (D) Lead."), an option list
    ("The options are A) Madrid, B) Paris"), a conditional or a guess, a letter doubted right after it ("It is C.
    Photosynthesis? Actually I'm not sure."), or a capital that opens the next sentence ("The area is A. The perimeter
    is P."): the label's text is a short noun phrase that ends its sentence, with no other option label in it."""
    label_text = _sentence_after(text, m.end())
    return not _NOT_THE_ANSWER.search(text[sentence_start(text, m.start()) : m.start()]) \
        and not _HEDGE_AFTER.search(text[m.end() : m.end() + 120]) and _is_option_text(label_text, letters)


def _is_option_text(label_text: str, letters: str) -> bool:
    """Whether the text after an option label is an option's text: a short noun phrase with no verb and no other label."""
    return not _VERB_WORDS.search(label_text) and len(label_text.split()) <= 8 and not _HEDGE_AFTER.search(label_text) \
        and not re.search(rf"(?:^|[\s,(])\(?[{letters}][.):]\s", label_text)


_VERDICT_WORDS = re.compile(r"\b(?:wrong|incorrect|not|no|fails?|cannot|never|ruled out|eliminated?|tempting|trap|distractor"
                            r"|mistake|could|though|also|wait|hmm|check|defended|might|maybe|unsure|impossible|unlikely"
                            r"|false|true|second)\b|n't\b|\?", re.IGNORECASE)


def _is_final_option_text(label_text: str, letters: str) -> bool:
    """Whether the text after an option label on a final line restates the option: no verdict on it ("D. This is
    wrong because ..."), no hedge, at most 16 words and no other label."""
    # (no other option named: "C. Methane (and D)", "A. Argon, not B"; a capital in another role is the option's text,
    # "C. B is tangential to the surface.", "C) Dialysis center: Type II error"; nor a revision that names another
    # option, "A. Actually C is more consistent ...", "A. Or rather D, since ...")
    return not _VERDICT_WORDS.search(label_text) and not _HEDGE_AFTER.search(label_text) and len(label_text.split()) <= 16 \
        and not re.search(rf"[(\[](?-i:[{letters}])[)\]]|(?<![A-Za-z])(?-i:[{letters}])\)|\b(?:option|choice|and|or|nor|not|than|vs\.?"
                          rf"|versus) [(\[]?(?-i:[{letters}])(?![A-Za-z])", label_text, re.IGNORECASE) \
        and not re.search(rf"\b(?:actually|rather|instead|wait|hmm|correction|scratch that|I mean)\b[^.!?]*?"
                          rf"(?<![A-Za-z'’])(?-i:[{letters}])(?![A-Za-z'’])", label_text, re.IGNORECASE)


def _several_options(letters: str) -> re.Pattern[str]:
    """An answer phrase that names two or more options ("ANSWER: A, C.", "The answer is (D), (E), and (J).",
    "Answer: (B)(C)")."""
    one = rf"[*(\[]{{0,2}}(?-i:[{letters}])[)\]*]{{0,2}}"
    # (two bracketed letters side by side, "(B)(C)", name two; "(C) B is tangential" is one option and its text)
    return re.compile(rf"(?<![A-Za-z])answer(?: is)?[*_]{{0,2}} ?:?[*_]{{0,2}} ?{one}(?: ?(?:,|&|/|\band\b|\bor\b|(?<=[)\]])(?= ?[(\[]| ?(?-i:[{letters}])[)\]])) ?(?:and )?{one})+"
                      rf"(?![A-Za-z0-9])", re.IGNORECASE)


def _mentions_other_option(text: str, others: str, labels_only: bool = False) -> bool:
    """Whether `text` names one of the letters `others` as an option ("(C)", "**C**", "option C", "C is better"; only
    the labelled forms for digit labels, `labels_only`, where "2," is a number)."""
    if labels_only:
        return bool(re.search(rf"\(([{others}])\)|\b(?:option|choice) ([{others}])\b", text, re.IGNORECASE))
    return bool(re.search(rf"\(([{others}])\)|\*\*([{others}])\*\*|\b(?:option|choice) ([{others}])\b"
                          rf"|(?<![A-Za-z])([{others}])(?: (?:is|seems|looks|would|fits|works)\b|[.,)])", text))


_TURNS = r"then again|however|actually|on second thought|instead"  # (words that turn from what was said)
_TURNS_AWAY = re.compile(rf"\b(?:{_TURNS})\b", re.IGNORECASE)
_DISMISSED = re.compile(rf"\b(?:wrong|incorrect|trap|tempting|distractor|mistake|tricky|not|no|but|rather|{_TURNS})\b|n't\b",
                        re.IGNORECASE)


_NEUTRAL_LEAD = re.compile(r"(?:let'?s|let us|okay|ok|sure|alright|here(?:'s| is) (?:my|the) (?:answer|solution|reasoning))\b"
                           r"[^.!?\n\d]{0,60}[.!:]?", re.IGNORECASE)


def _paragraph_openings(region: str, letters: str) -> list[re.Match]:
    """The first or last paragraph's opening label and option text (class choice-paragraph-opening), as a list of one
    match or none."""
    # (the option's text closes its sentence, or its paragraph: "C. 6\n\nA complete graph ...")
    found = list(re.finditer(r"(?:^|\n[ \t]*\n)[ \t]*(\**\(?([" + letters + r"])\)?\**(?:,|\.|\)|:) [^\n.!?]{1,40}(?:[.!]|(?=[ \t]*\n[ \t]*\n)))"
                             r"(?=\s|$)", region))
    if not found or len(re.findall(rf"(?m)^[ \t]*[-*]*[ \t]*\**[(\[]?[{letters}](?:[.,):\]]| ?[—–])", region)) != 1:
        return []
    m = found[0]
    before = region[: m.start()].strip()  # (nothing, or one neutral line, "Let's work through this carefully.")
    first = not before or bool(_NEUTRAL_LEAD.fullmatch(before))
    last = not re.search(r"\n[ \t]*\n", region[m.end() :])
    closing = re.split(r"(?<=[.!?])\s+", region.rstrip())[-1]  # (never with a closing sentence that names another option,
    # "... so the height is 20 m, option B.")
    if not (first or last) or len(m.group(1).split()) > 6 or _DISMISSED.search(m.group(1)) \
            or RETRACTION.search(region[m.end() :]) or _TURNS_AWAY.search(region[m.end() :]) \
            or (first and _mentions_other_option(closing, letters.replace(m.group(2), ""))):
        return []
    return [m]


def find_choice_answer(text: str, letters: str) -> tuple[str | None, str]:
    """The chosen letter and how it was found (or None and why not)."""
    region = answer_region(text)
    offset = max(0, len(region) - _WINDOW)
    tail = region[offset:]
    statements: list[tuple[int, str, str, int]] = []  # (start, letter, how, end)
    boxes = boxes_with_positions(region)
    if len(boxes) >= 2 and is_joiner(region[boxes[-2][1] : boxes[-1][0]]) \
            and all(re.fullmatch(rf" ?\(?[{letters}]\)? ?", box[2]) for box in boxes[-2:]) \
            and boxes[-2][2].strip(" ()") != boxes[-1][2].strip(" ()"):
        # class choice-two-letters: "$\boxed{A}$ or $\boxed{C}$" boxes two options, which is no choice
        return None, "two boxed options side by side, not one"
    for start, end, content in boxes[-1:]:
        m = re.fullmatch(rf" ?(?:\\text\{{)?\(?([{letters}])\)?\}}?(?:[.:)] ?.*)?", content.strip(), re.DOTALL)
        statements.append((start, m.group(1) if m else content.strip(), "boxed", end))
    # class answer-first (kleval.verify.answer_phrases): "**C**. Here's why:" opens with the chosen letter
    # (also the letter on a line of its own and the explanation below it: "**C**\n\nExplanation: ...", "**C** — the
    # pulmonary vein.\n\nHere's why:")
    opening = re.match(rf"\W{{0,3}}?(?:\*\*)?\(?([{letters}])\)?(?:\*\*)?[.:)]?(?:(?: ?[-\u2014\u2013:] ?(?![^\n]*(?:\b(?:wait|actually"
                       rf"|no|hmm|but|not|or|maybe|instead)\b|[(\[][{letters}][)\]]))[^\n]{{1,80}})?[ \t]*\n\s*"
                       rf"| ?(?:[-\u2014\u2013:] ?)?){EXPLAINS}",
                       region.lstrip(), re.IGNORECASE)
    if opening is not None:
        at = len(region) - len(region.lstrip())
        statements.append((at + opening.start(1), opening.group(1).upper(), "answer-first", at + opening.end()))
    tagged = answer_tag(region)  # class choice-answer-tag: R1-style "<think>...</think>\n<answer>A</answer>"
    if tagged is not None and (m := re.fullmatch(rf"\(?([{letters}])\)?(?:[.:)] ?.*)?", tagged.span.strip(), re.DOTALL)):
        closing = region.find("</answer>", tagged.start)
        statements.append((tagged.start, m.group(1), "answer-tag", closing + 9 if closing >= 0 else len(region)))
    structured = json_answer(region)  # class json-answer: {"answer": "B", "explanation": "..."}
    if structured is not None and (m := re.fullmatch(rf"\(?([{letters}])\)?\.?", structured.span)):
        statements.append((structured.start, m.group(1), "json-answer", structured.end))
    phrases = [(offset + m.start(), next(g for g in m.groups() if g).upper(), "answer-phrase", offset + m.end())
               for m in _phrase_pattern(letters, has_foreign_answer_word(tail)).finditer(tail)
               if not re.search(ARROW, m.group(0)) or arrow_heads_sentence(tail, m.start())]
    # (the words option and choice with what states it, "Correct option → c", "the right choice is (b)"; never a mention,
    # "the most common mistake is option (b).", "not the tempting choice (b).")
    lower = re.search(rf"(?<![A-Za-z])(?:answer[*_]{{0,2}}(?: is)? ?(?::|{ARROW})?|(?:option|choice)[*_]{{0,2}}(?: is| ?:| ?{ARROW})"
                      rf"|I(?: am|['’]m) (?:going|sticking|staying) with|I(?:['’]ll| will)? (?:choose|pick|select|go with))"
                      rf"[*_]{{0,2}} ?\(?([{letters.lower()}])\)?[.*_]*$",
                      tail.rstrip(), re.IGNORECASE)
    # "Answer: b", "**Answer:** (b)", "Correct option → c" closing the text; never "is a prime"
    if lower and lower.group(1).islower():
        phrases.append((offset + lower.start(), lower.group(1).upper(), "answer-phrase", len(region)))
    # class choice-lowercase-letter: a lower-case letter after "answer is" that a clause break follows ("The correct
    # answer is d, the ionic bond."); never the article, which a noun follows ("the answer is a prime")
    phrases += [(offset + m.start(), m.group(1).upper(), "answer-phrase", offset + m.end())
                for m in _lower_letter_pattern(letters).finditer(tail)]
    # class choice-conclusion-letter: a concluding adverb and a letter that ends the sentence ("Overall, B.", "So, D.")
    # (a softened "Probably D." only with nothing after it that doubts it or names another option)
    phrases += [(offset + m.start(), _letter_of(m), "conclusion-letter", offset + m.end())
                for m in _conclusion_letter_pattern(letters).finditer(tail)
                if not re.match(r"(?i)probably|most likely", m.group(0)) or _stands_alone(tail, m, _letter_of(m), letters)]
    phrases += [(offset + m.start(), next(g for g in m.groups() if g), "elimination", offset + m.end())
                for m in _elimination_pattern(letters).finditer(tail)]  # class choice-elimination
    phrases += [(offset + m.start(), m.group(1) or m.group(2), "answer-phrase", offset + m.end())
                for m in _revised_letter_pattern(letters).finditer(tail)
                if not _CONDITION_AFTER.search(_sentence_after(tail, m.end()))]  # class choice-revised-letter
    if not phrases:  # class choice-not-then-letter: a closing "The answer is not A; it is B." denies one letter and
        # names another (never a condition, "If it's not A, it's B.", nor a second letter after it, "it's B or C")
        phrases = [(offset + m.start(1), m.group(1), "answer-phrase", offset + m.end())
                   for m in _not_then_letter(letters).finditer(tail) if _denial_commits(tail, m, letters)
                   and (not tail.startswith(",", m.end()) or not tail[m.end() + len(_sentence_after(tail, m.end())) :].strip())]
        # (an option's text after a comma only in the sentence that closes the text: never "it's B, since ... Hmm, ...")
    if not phrases:  # class choice-option-at-end, only where nothing else commits
        phrases = [(offset + m.start(), _letter_of(m), "conclusion-letter", offset + m.end())
                   for m in _option_at_end_pattern(letters).finditer(tail) if _closing_choice(tail, m, letters)]
    if not phrases:  # class choice-it-is-letter, only where no answer phrase stands and never with a hedge or condition
        # (never with another option after it: "It is C. Photosynthesis, or it is D. Respiration.", "It's B. Hmm, but D")
        phrases = [(offset + m.start(), m.group(1), "answer-phrase", offset + m.end())
                   for m in _it_is_letter_pattern(letters).finditer(tail) if _denial_commits(tail, m, letters)
                   and _stands_alone(tail, m, m.group(1), letters)]
    if not phrases:  # class choice-copula-label, only where no answer phrase stands (never over "The answer is (B).")
        labels = list(_copula_label_pattern(letters).finditer(tail))
        phrases = [(offset + m.start(), m.group(1) or m.group(2), "copula-option-label", offset + m.end())
                   for m in labels if len(labels) == 1 and _labels_the_answer(tail, m, letters)]
    if not phrases and not statements:
        # class choice-paragraph-opening: the first or the last paragraph opens with a label and the option's text in a
        # short sentence of its own ("C, 3p.\n\nAn electron with l = 1 ...", "... leave fastest.\n\nC, 3p. Option D (3d)
        # isn't even occupied."), the one line of the text that opens with a label (never a review of the options, one
        # per paragraph), only where nothing else states an answer, and never a label the text dismisses ("B. Tempting,
        # but wrong.", "B, a common trap.") or an opening that the text then turns from ("A, 2s.\n\nThen again, ...")
        phrases = [(m.start(2), m.group(2), "paragraph-opening-option", m.end()) for m in _paragraph_openings(region, letters)]
    phrases = sorted((p for p in phrases if p[1] in letters), key=lambda p: p[0])
    statements.extend(phrases[-1:])
    # class choice-final-line-letter: reasoning, then a last line that is only an option letter ("...\n\nC", "(B)", "C.")
    # (never the next label of a lettered list cut off there: "H. No, because ...\nI")
    # (also in brackets, "[D]", and as the option's label with its text, "D. Ammonia", "**B: buildings will be made
    # safer**", "2 — Kinetic energy increases": the text, with no verdict, hedge or other label in it)
    # (the label with its text only where nothing else commits and no other line of the text opens with a label: never
    # the last option of a list or a review of the options, "Why the others fail:\nA. Hydrogen\nB. Helium"; a colon
    # only in bold, "**B: ...**", never a Q/A-style "A: Ammonia")
    final_line = re.search(rf"\n[ \t]*(\**)[(\[]?([{letters}])[)\]]?(?:\.?\**|([.):]| ?[—–])\**[ \t]+([^\n]{{1,160}}))[ \t]*$",
                           region.rstrip())
    before_line = region[: final_line.start()].rstrip().rsplit("\n", 1)[-1] if final_line else ""
    labelled = final_line is not None and final_line.group(4) is not None
    if final_line and not re.match(rf"[ \t]*\**\(?[{letters}][.)]", before_line) \
            and (not labelled or (not statements and _is_final_option_text(final_line.group(4), letters)
                                  and (not re.search(r"\b(?:options?|choices?|let's|look at|consider|check)\b", before_line, re.IGNORECASE)
                                       # (a line that says the answer comes next is no lead-in to a list: "Since none of the
                                       # three holds, the remaining option must be the right one.")
                                       # (never a question: "We need to determine which option is the correct one.")
                                       or (_ANSWER_NEXT.search(before_line) and not _ASKS.search(before_line)))
                                  and (final_line.group(3) != ":" or final_line.group(1))
                                  and not before_line.rstrip(" *").endswith(":")  # (never "Options:\nD. Ammonia")
                                  and not re.search(rf"(?m)^[ \t]*[-*]*[ \t]*\**[(\[]?[{letters}](?:[.):\]]| ?[—–])",
                                                    region[: final_line.start()]))):
        statements.append((final_line.start() + 1, final_line.group(2), "final-line-letter", len(region)))
    # (class choice-opening-option: also "Option H — total revenue equals total cost." and an explanation after it)
    whole = compact_whitespace(region).strip()
    bare = re.fullmatch(rf"(?:(?:option|choice) )?\(?([{letters}])(?:(?:[).:]| ?[—–-])(?: .{{0,300}})?)?",
                        whole, re.DOTALL | re.IGNORECASE)
    # (a lower-case label only with its punctuation and a value, "b. 4", "c) 12"; never the article "a")
    if bare is not None and bare.group(1) not in letters and re.fullmatch(rf"[{letters.lower()}][.)] \S.{{0,40}}", whole):
        return bare.group(1).upper(), "bare-option"
    bare = bare if bare is None or bare.group(1) in letters else None
    if bare and not re.search(rf"(?<![A-Za-z])(?:\(?[{letters}]\)|\*\*[{letters}]\*\*)|(?m:^[ \t]*[{letters}][.:][ \t])", region[bare.end(1) :]):
        # (never the first line of an option list the text restates: "A. Mitochondria\nB. Nucleus\n...")
        statements.append((0, bare.group(1), "bare-option", len(region)))  # "C) 42"; not "B) is tempting, but D) is right"
    # a repetition loop states the answer again and again with other letters; weighing the options one by one ("so A
    # is true ... so C is true", then "**Answer: B**") is not one (class choice-option-review)
    stated = [p for p in phrases if p[2] == "answer-phrase" and not re.match(r"[(\[]?[A-Z][)\]]? is ", region[p[0] : p[3]])]
    if len(stated) >= 4 and len({p[1] for p in stated[-4:]}) >= 3:
        return None, f"conflicting answers {[p[1] for p in stated[-4:]]} (a repetition loop), not graded as a guess"
    if statements:
        start, letter, how, end = max(statements, key=lambda s: s[0])
        named = _several_options(letters).search(region, max(0, start - 12), end + 40) if how == "answer-phrase" else None
        if named is not None and named.start() <= start + 2:  # (the statement itself; not "... is to answer A or B")
            return None, "the answer names several options, not one"  # class choice-two-letters: "Answer: (B)(C)"
        several = _several_options(letters).search(region, end)
        if several is not None and several.start() >= end and re.match(r"(?i)answer(?: is|[*_]{0,2} ?:)", several.group(0)):
            # "That leaves 1 (...) and 3 (...). My answer: 1 or 3." (never the verb: "A common mistake is to answer A or B")
            return None, "a later answer names several options, not one"
        after = region[end:]
        # (class choice-reason-after-answer: the reason given in the answer's own sentence, "Answer: B because C is not
        # valid for negative inputs.", argues for the letter; only what follows that sentence can retract it)
        reason = _REASON_AFTER.match(after)
        if reason and not re.search(r"\b(?:wait|actually|hmm|hold on|oops|scratch|no,|really|instead|rather|so)\b",
                                    reason.group(0), re.IGNORECASE):
            after = after[reason.end() :]
        opening = re.split(r"(?<=[.!?])\s|\n", after.lstrip(" *)].\n"), maxsplit=1)[0]
        # (class choice-note-after-answer: a note that opens with its own marker, "Note that option D is the trap:
        # it keeps the extraneous root.", explains the distractors; it retracts nothing)
        if RETRACTION.search(after) and not is_aside(opening) and not confirms(" ".join(after.rstrip()[-300:].split(". ")[-2:])):
            # class retracted-statement: "The answer is (B). Wait, that's wrong ...", "Hmm, actually B ignores
            # friction, so C is better." A withdrawal, or a doubt that turns to another option, unsays the letter.
            other = _mentions_other_option(after, letters.replace(letter, ""))
            if WITHDRAWAL.search(after) or other:
                return None, f"the chosen option {letter} ({how}) is retracted later and no new option is stated"
        return letter, how
    if _several_options(letters).search(tail):  # class choice-two-letters: "The answer is (B) and (D)." is no guess
        return None, "the answer names several options, not one"
    if _NO_COMMITMENT.search(tail):  # class no-commitment: "I cannot determine a single answer"
        return None, "the completion declines to choose an option; a mentioned letter is not a guess"
    arrow = _VALUE_ARROW_LETTER.search(tail.rstrip())
    if arrow is not None and arrow.group(1) in letters and not _SUPPOSES.search(arrow.group(0)):
        # class value-arrow-letter: "9 J → C" closing the text (never a distractor checked, "12 J would require 4 m → D")
        return arrow.group(1), "value-arrow-letter"
    valued = _value_option(region, letters)
    if valued is not None:
        return valued, "value-option"
    last = None
    for mention in re.finditer(rf"\(([{letters}])\)|\*\*([{letters}])[.):]?\*\*", tail):
        if not _reviewed_or_denied(tail, mention, letters):
            last = mention
    # (class choice-answer-not-a-label: a closing answer that is a value, "**Answer: 4**", "\\boxed{7}", commits to no
    # option; the last label mentioned before it, an option list's "(iv) 7", is no guess)
    if last is not None and (value := _VALUE_ANSWER.search(tail, last.end())):
        return None, f"the answer {value.group(1)!r} is a value, not an option label"
    if last is not None:
        return (last.group(1) or last.group(2)), "last-mentioned"
    named = _option_named(region, letters)
    if named is not None:
        return named, "option-text-answer"
    named = _option_text_in_closing(region, letters)
    if named is not None:
        return named, "option-text-in-closing-sentence"
    return None, "no choice letter found"


# class choice-mention-roles: the last option label mentioned is the answer only when it is mentioned as one; a label
# that opens a line reviewing the options ("- (D) Fermentation only regenerates NAD+"), one of a list of the options
# ("The options were (A) NH3, (B) BF3, (C) H2O, (D) CH4.") or one the sentence denies ("option (C), not (B)", "rather
# than (B)") is read past
_DENIED_LABEL = re.compile(r"(?:\bnot|\bnor|\bneither|\brather than|\binstead of|\bover|n't)\W{0,3}(?:options? |choices? )?\W{0,2}$",
                           re.IGNORECASE)


def _reviewed_or_denied(text: str, m: re.Match, letters: str) -> bool:
    line_start = text.rfind("\n", 0, m.start()) + 1
    opening = re.fullmatch(r"[ \t]*([-*\u2022]|\d+[.)])?[ \t]*\**", text[line_start : m.start()])
    if opening and (opening.group(1) or "\n" in text[m.end() :].rstrip()):
        return True  # (a list item, or a line before the last, that opens with the label reviews that option; a last line
        # that opens with one, "(C) 42", answers)
    start = sentence_start(text, m.start())
    sentence = text[start : m.end()] + _sentence_after(text, m.end())
    if len(re.findall(rf"\((?-i:[{letters}])\)", sentence)) >= 3:
        return True
    return bool(_DENIED_LABEL.search(text[max(start, m.start() - 24) : m.start()]))


# class option-text-in-closing-sentence: the closing paragraph names the text of exactly one of the options the completion
# listed, on lines of their own ("B. Mitochondrial matrix — contains the citric acid cycle enzymes.") or in one line
# ("The options were (A) NH3, (B) BF3, (C) H2O, (D) CH4."), and no option label: "The Krebs cycle takes place in the
# mitochondrial matrix." chooses B. Each clause of the paragraph is read: one naming two options reviews them, and one
# that denies, hedges or remarks on an option ("The mitochondria is the wrong choice.", "It is easy to confuse with the
# mitochondria.", "The mitochondria also holds a little DNA.", "..., while the mitochondria is known for ATP.") names
# none; an answer only when one option is named and no clause in doubt of the paragraph names another.
_INLINE_OPTION = re.compile(r"\(([A-J])\)\s*([^,;()\n]{1,60}?)\s*(?=,|;|\.(?:\s|$)|\s\([A-J]\)|\s*$|\s+or\b|\s+and\b)")
_OPTION_REMARK = re.compile(r"\b(?:not|never|maybe|perhaps|probably|possibly|might|or|wrong|incorrect|confuse[ds]?|confusing|mistake[ns]?"
                            r"|also|too|as well|unlike|rather|instead|trap|tempting|distractor|while|whereas|but|although|though"
                            r"|except|if|would|could|known for)\b|n't\b|\?", re.IGNORECASE)


def _option_text_in_closing(region: str, letters: str) -> str | None:
    body = region.rstrip().replace("**", "")
    found = list(_OPTION_LINE.finditer(body)) + list(_INLINE_OPTION.finditer(body))
    if not found:
        return None
    listed_end = max(m.end() for m in found)  # (the closing paragraph, or what follows the list inside it)
    closing = body[max(listed_end, body.rfind("\n\n") + 1) :]
    if not closing.strip() or re.search(rf"(?<![A-Za-z])\(?(?-i:[{letters}])\)?(?![A-Za-z'\u2019])", closing):
        return None
    listed = [(m.group(1), m.group(2)) for m in found]
    texts: dict[str, str] = {}
    for letter, text in listed:
        name = re.split(r"\s+[\u2014\u2013-]\s+|:\s|\s+\(", re.sub(r"[*_]", "", text).strip())[0].strip(" .").lower()
        if letter in letters and len(name) >= 2:
            texts[letter] = name
    if len(texts) < 2 or len(set(texts.values())) < len(texts):
        return None
    positive: set[str] = set()
    for clause in re.split(r"(?<=[.!?])\s+|\n|[;,]\s*(?=(?:while|whereas|but|although|though)\b)", closing):
        low = clause.lower()
        named = {letter for letter, name in texts.items() if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", low)}
        # (a name inside another's, "mitochondrial membrane" in "inner mitochondrial membrane", names the longer one only)
        named = {a for a in named if not any(a != b and texts[a] in texts[b] for b in named)}
        if len(named) == 1 and not _OPTION_REMARK.search(clause):
            positive |= named
    return positive.pop() if len(positive) == 1 else None


# class option-text-answer: a closing "So the answer is the mitochondria." after the text's own option list ("B.
# Mitochondria – carry out ...") names option B by its text; only where no letter is stated anywhere after the list,
# the named text is the start of exactly one option, and the sentence neither denies nor hedges
_OPTION_LINE = re.compile(r"(?m)^[ \t]*[-*]?[ \t]*\**\(?([A-J])[.):]\**[ \t]+\**([A-Za-z][^\n]{0,120})$")
_TEXT_ANSWER = re.compile(r"\b(?:the (?:correct |final |right )?answer is|the answer:|answer:)\s*(?:the |an? )?"
                          r"([A-Za-z][A-Za-z \-]{1,60}?)[.!]?\s*$", re.IGNORECASE)


def _option_named(region: str, letters: str) -> str | None:
    closing = _TEXT_ANSWER.search(region.rstrip()[-300:].replace("**", ""))
    if closing is None or _DENIES_OR_HEDGES.search(closing.group(0)):
        return None
    named = closing.group(1).strip().lower()
    options = [(m.group(1), re.sub(r"[*_]", "", m.group(2)).lower()) for m in _OPTION_LINE.finditer(region) if m.group(1) in letters]
    hits = {letter for letter, text in options if re.match(rf"(?:the |an? )?{re.escape(named)}\b", text)}
    return hits.pop() if len(hits) == 1 and len({letter for letter, _ in options}) >= 2 else None


_DENIES_OR_HEDGES = re.compile(r"\b(?:not|never|maybe|perhaps|probably|possibly|might|or)\b|n't\b", re.IGNORECASE)
