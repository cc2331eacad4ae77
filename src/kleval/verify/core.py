"""`verify()`: grade one completion against one gold answer, in process, deterministically.

The pipeline is extract (policy decides where to look) -> normalize (string clean-up) ->
canonicalize (structure + latex2sympy2_extended) -> compare (rules in kleval.verify.compare).
Every outcome is a Verdict with a status, the extracted span, both canonical forms, the rule that
decided and a one-line explanation. Wall-clock limits live in kleval.verify.pool, not here.
"""
from __future__ import annotations

import dataclasses
import functools
import re

from kleval.types import AnswerKind, Status, Verdict
from kleval.verify import grammar, statements
from kleval.verify.commitment import without_cut_repetition
from kleval.verify.bare_answers import answered_label, label_gold, option_label_answer
from kleval.verify.canonical import MAX_ANSWER_CHARS, Canon, ParseFailure, canonicalize
from kleval.verify.choice import find_choice_answer
from kleval.verify.compare import equal
from kleval.verify.complements import final_complement
from kleval.verify.dates import clock_without_meridiem, weekday_or_date
from kleval.verify.decimals import marked_approximate, rounds_to_gold
from kleval.verify.extract import boxes_with_positions, dollar_delimiters, plain_numbers, restore_escapes, unify_box_commands
from kleval.verify.locale_numbers import locale_numbers
from kleval.verify.normalize import answer_unit, degrees_implied, normalize_span, text_key, unit_ratio
from kleval.verify.parts import part_answers
from kleval.verify.policy import Policy, resolve_policy
from kleval.verify.restatement import rounded_pair
from kleval.verify.roman_labels import LABELS as ROMAN_LABELS, ascii_labels, roman_as_labels, roman_gold
from kleval.verify.sentence_values import BARE_NAME, PROPERTIES, out_of_ratio
from kleval.verify.textblocks import unwrap_text
from kleval.verify.units import compound_in_smaller_unit, larger_unit_value, unit_after, unit_restatement, unit_word_at
from kleval.verify.value_lists import comma_list

# Bump whenever any verdict can change (extraction, normalization, comparison or policy presets).
VERIFIER_VERSION = "2.22.0"


@functools.lru_cache(maxsize=65536)
def _canonical_gold(gold: str, policy: Policy) -> tuple[str, Canon]:
    """Golds repeat n times per problem (n samples); parse each once per worker."""
    span = _gold_span(gold, policy)
    sentence = _TEXT_SENTENCE.fullmatch(span.strip())
    if sentence is None:
        normalized = normalize_span(span, policy)
        try:
            return normalized, canonicalize(normalized, policy)
        except ParseFailure as exc:
            stated = _stated_value(span) if str(exc).startswith("prose, not math") else None
            if stated is None:
                raise
    else:  # (a sentence in \text with its math after it, "\text{The function is increasing on } (0,2)")
        stated = _stated_value(f"{sentence.group(1).strip()} ${sentence.group(2).strip()}$.")
        if stated is None:
            raise ParseFailure("prose, not math: a sentence in \\text")
    normalized = normalize_span(stated, policy)
    return normalized, canonicalize(normalized, policy)


def _stated_value(sentence: str) -> str | None:
    """class prose-gold-statement: the one value a gold written as a sentence states ("The sequence converges to 0."),
    read as a completion's closing sentence is; None for a sentence without one or stating two ("The minimum value is
    3, attained at x = 1.")."""
    stated, how = grammar.find_math_answer(sentence)
    if stated is None or how in ("bare-phrase", "whole-completion") or stated.strip() == sentence.strip() \
            or not re.search(r"\d", stated) or re.search(r"\d", sentence.replace(stated, " ", 1).replace(stated.strip("$"), " ", 1)):
        return None
    return stated


# a gold sentence set in \text with its math after it: the words (three or more) and the math
_TEXT_SENTENCE = re.compile(r"\$?\\text\{((?:[^{}]*?[A-Za-z]{2,}){3}[^{}]*)\}\s*([^{}$]*[\d(\[][^{}$]*)\$?")


# A span that ends in a percent sign or word: `62.5\%`, `28 percent`, `5\text{ percent}`, `12 pct`.
_PERCENT_MARK = re.compile(r"(?<=[\d}.]) ?(?:\\?%|\\text\{ ?(?:percent|percentage|pct) ?\}|percent(?:age)?|pct)[ $.]*$")


def has_percent_sign(span: str) -> bool:
    """Whether an answer span is written as a percentage (before normalization drops the sign)."""
    return bool(_PERCENT_MARK.search(span.strip().rstrip("$").strip()[-60:]))


_PROSE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_UNCLOSED_BOX = re.compile(r"\\(?:boxed|fbox) ?\{(?![^{}]*(?:\{[^{}]*\}[^{}]*)*\})")


def _outside(text: str, boxes: list[tuple[int, int, str]]) -> str:
    """The text of `text` outside the given boxes."""
    parts, at = [], 0
    for start, end, _ in boxes:
        parts.append(text[at:start])
        at = end
    return "".join(parts) + text[at:]


_GOLD_ANSWER_LABEL = re.compile(r"^(?:\\text(?:bf)? ?\{ ?)?(?:the (?:final )?answer is|(?:final )?answer ?:) ?(?:\} ?)?(?=\S)",
                                re.IGNORECASE)


def _without_gold_noise(gold: str) -> str:
    """class noisy-gold: a dataset's answer label (`\\text{The answer is } 5`, `Answer: 12`) and closing braces
    left over past the last opened one (`\\frac{3}{4}}`) are not part of the gold's value."""
    gold = _GOLD_ANSWER_LABEL.sub("", gold.strip())
    excess = (gold.count("}") - gold.count("\\}")) - (gold.count("{") - gold.count("\\{"))
    while excess > 0 and gold.endswith("}") and not gold.endswith("\\}"):
        gold, excess = gold[:-1].rstrip(), excess - 1
    return gold


@functools.lru_cache(maxsize=65536)
def _gold_span(gold: str, policy: Policy) -> str:
    """A gold given as a whole solution is reduced to its final answer: its box (several adjacent
    boxes are one list), or for a long worded solution the answer the grammar finds in it."""
    gold = _without_gold_noise(unify_box_commands(gold))  # class box-command-variants: `\\framebox{}`, `\\bbox{}`
    if "\\boxed" in gold or "\\fbox" in gold:
        boxes = boxes_with_positions(gold)
        if len(boxes) > 1 and not _PROSE.search(_outside(gold, boxes)):
            # class gold-box-list: a gold that is only boxes and separators (`\boxed{35} ++++ \boxed{4}`)
            # answers with every box; a gold never drafts an answer and boxes it again
            return ", ".join(content.strip() for _, _, content in boxes)
        group = statements.last_box_group(gold)
        if group is not None and not _UNCLOSED_BOX.search(gold, group.start + 1):
            return group.span
        opened = _UNCLOSED_BOX.search(gold)
        if opened is not None and (group is None or opened.start() > group.start):
            # class gold-unclosed-box: a gold's box left open (a typo; golds are not truncated) holds the
            # rest of the gold
            return gold[opened.end() :].strip().rstrip("$").strip()
        if group is not None:
            return group.span
    if len(gold) > 150 and len(re.findall(r"[A-Za-z]{3,}", gold)) > 12:
        span, _ = grammar.find_math_answer(gold)
        if span is not None:
            return span
    return gold


def _worded_value(phrase: str, policy: Policy) -> bool:
    """Whether a short phrase is a value written in words (a number or the empty set), not a remark."""
    try:
        canon = canonicalize(normalize_span(phrase, policy), policy)
    except ParseFailure:
        return False
    return canon.kind == "number" or (canon.kind == "set" and not canon.value)


def _find_span(completion: str, policy: Policy) -> tuple[str | None, str]:
    if policy.answer_is_whole_completion:
        text = completion.strip()
        return (text or None), "whole-completion"
    if policy.choice_letters:
        return find_choice_answer(completion, policy.choice_letters)
    if policy.allow_last_number:
        return grammar.find_gsm8k_answer(completion)
    if policy.final_line_number:
        return grammar.find_number_answer(completion)
    return grammar.find_math_answer(completion)


def _choice_letter(text: str, letters: str) -> str | None:
    key = text_key(text, Policy()).upper().strip()
    m = re.fullmatch(rf"\(?([{letters}])\)?(?:[.:)]\s*.*)?", key, re.DOTALL)
    return m.group(1) if m else None


def _verify_choice(gold: str, span: str, how: str, policy: Policy) -> Verdict:
    gold_letter = _choice_letter(gold, policy.choice_letters)
    if gold_letter is None:
        return Verdict(Status.GOLD_ERROR, span, gold, None, "choice-letter",
                       f"gold {gold!r} is not one of the letters {policy.choice_letters}")
    pred_letter = _choice_letter(span, policy.choice_letters)
    if pred_letter is None:
        return Verdict(Status.PARSE_ERROR, span, gold_letter, None, "choice-letter",
                       f"found {span!r} ({how}) but it is not a choice letter")
    status = Status.CORRECT if pred_letter == gold_letter else Status.INCORRECT
    return Verdict(status, span, gold_letter, pred_letter, "choice-letter",
                   f"letter {pred_letter} ({how}) vs gold {gold_letter}")


def _verify_literal(gold: str, span: str | None, how: str) -> Verdict:
    if span is None:
        return Verdict(Status.NO_ANSWER, None, gold, None, "extract", how)
    status = Status.CORRECT if span == gold else Status.INCORRECT
    verb = "equals" if span == gold else "differs from"
    return Verdict(status, span, gold, span, "literal", f"answer ({how}) {verb} the gold string exactly")


def verify(
    *, gold: str, completion: str, kind: AnswerKind | str = "math", policy: str | Policy = "default"
) -> Verdict:
    """Grade `completion` against `gold`. Never executes model text; never raises on model text.

    The verdict names the policy (`Verdict.policy`) and the rule (`Verdict.rule`) that decided.
    """
    if policy == "countdown":  # an expression graded by its value, not an answer compared with a gold
        from kleval.countdown import verify_countdown

        return dataclasses.replace(verify_countdown(gold=gold, completion=completion), policy="countdown")
    kind_value = AnswerKind(kind).value
    chosen = resolve_policy(policy, kind_value)
    if isinstance(gold, str) and isinstance(completion, str):
        gold, completion = restore_escapes(gold), restore_escapes(completion)  # class escape-damage
        completion = plain_numbers(dollar_delimiters(locale_numbers(completion)))  # class locale-numbers, math-delimiters,
        # number-in-math
        completion = without_cut_repetition(completion)  # class cut-repetition (kleval.verify.commitment)
    verdict = _verify(gold, completion, chosen)
    return dataclasses.replace(verdict, policy=chosen.name)


_PROPERTY = re.compile(rf"\b(?:{PROPERTIES})\b")  # (the properties of class where-it-holds)
_APPROXIMATED = re.compile(r"([^≈]*?[^\\\s≈])\s*(?:\\approx|≈)\s*(-?\d[\d,]*(?:\.\d+)?(?:\.{3}|\\ldots)?(?:\s*[A-Za-z/²³]{1,8}|\s*\\%|%)?)")


def _verify(gold: str, completion: str, chosen: Policy) -> Verdict:
    if not isinstance(gold, str) or not gold.strip():
        return Verdict(Status.GOLD_ERROR, None, None, None, "gold", f"gold answer is empty: {gold!r}")
    completion = completion or ""
    if chosen.choice_letters and re.fullmatch(r"\(?[1-9]\)?", gold.strip()):
        # class choice-digit-labels: ARC-Challenge labels some items' options 1-4 (answerKey "2"): the digits are the labels
        chosen = chosen.with_(choice_letters="123456789")
    elif chosen.choice_letters and (late := re.fullmatch(r"\(?([K-Z])\)?", gold.strip())) \
            and late.group(1) not in chosen.choice_letters:
        # class choice-late-letter: BIG-Bench Hard gives some items eleven or more options ("(K)"): the letters run to the gold's
        chosen = chosen.with_(choice_letters="".join(chr(c) for c in range(ord("A"), ord(late.group(1)) + 1)))
    roman = roman_gold(gold) if chosen.choice_letters else None
    if roman is not None:  # class choice-roman-labels: "III", "(iv)" are the third and fourth labels
        chosen, completion = chosen.with_(choice_letters=ROMAN_LABELS), roman_as_labels(completion)
    span, how = _find_span(completion, chosen)
    if not chosen.choice_letters and span is not None and _choice_letter(gold, "ABCDEFGHIJ") is None \
            and (value := option_label_answer(span, completion)) is not None:
        span, how = value, how + "/option-label-answer"
    if not chosen.choice_letters and span is not None and label_gold(gold) is not None \
            and (label := answered_label(span, completion)) is not None:
        span, how = label, how + "/label-gold-option-answer"  # (kleval.verify.bare_answers)
    if span is not None and (part := weekday_or_date(unwrap_text(span), gold)) is not None:
        span, how = part, how + "/weekday-before-date"  # (kleval.verify.dates)
    if span is not None and (listed := comma_list(span, completion)) is not None:
        span, how = listed, how + "/comma-list"  # class comma-list-not-thousands (kleval.verify.value_lists)
    if span is not None and re.fullmatch(r"-?\d+(?:\.\d+)?", gold.strip()) and (larger := larger_unit_value(span)):
        span, how = larger, how + "/compound-duration"  # (kleval.verify.units)
    if chosen.choice_letters:
        if span is None:
            return Verdict(Status.NO_ANSWER, None, None, None, "extract", how)
        if roman is not None:
            verdict = _verify_choice(ROMAN_LABELS[roman - 1], span, f"{how}, Roman labels", chosen)
            return dataclasses.replace(verdict, extracted=ascii_labels(verdict.extracted),
                                       gold_canonical=ascii_labels(verdict.gold_canonical),
                                       pred_canonical=ascii_labels(verdict.pred_canonical),
                                       explanation=ascii_labels(verdict.explanation))
        return _verify_choice(gold, span, how, chosen)
    if chosen.literal_only:
        return _verify_literal(gold.strip(), span, how)
    try:
        gold_normalized, gold_canon = _canonical_gold(gold, chosen)
    except ParseFailure as exc:
        return Verdict(Status.GOLD_ERROR, span, None, None, "gold", f"gold {gold!r} does not parse: {exc}")
    if span is not None and how == "bare-phrase" and gold_canon.kind != "text" and not _worded_value(span, chosen):
        # a few words without any math ("no answer") answer only a worded gold ("even", "Evelyn"), unless the
        # words are a worded value (class number-words: "Twelve.", "No solution." is the empty set)
        span, how = None, f"the completion is a short phrase ({span[:40]!r}) and the gold is not worded"
    if gold_canon.kind == "text" and (span is None or how in ("conclusion-sentence", "final-statement", "bare-math")
                                      or how.startswith("last-number")
                                      or how == "answer-tag" and len(span.split()) >= 3) and (word := final_complement(completion)):
        span, how = word, "final-complement"  # class final-complement (kleval.verify.complements): "It will be a Sunday."
    if how == "joined-assignments" and gold_canon.kind not in ("seq", "list", "set"):
        span, how = span.rsplit(", ", 1)[-1], "conclusion-sentence/last-assignment"  # (kleval.verify.conclusions)
    if span is None:
        return Verdict(Status.NO_ANSWER, None, gold_canon.show(), None, "extract", how)
    approximated = _APPROXIMATED.fullmatch(span.strip()) if len(span) <= MAX_ANSWER_CHARS else None
    if approximated and gold_canon.kind == "number":
        # class approximation-of-name: "v \approx 10.4 m/s" states 10.4 (an approximation after a value, "1/3 \approx
        # 0.333", is class approx-chain: kleval.verify.compare)
        named, approximation = approximated.group(1).strip(), approximated.group(2).strip()
        if re.fullmatch(BARE_NAME, named.rsplit("=", 1)[-1].strip()):
            span, how = re.sub(r"(?<=\d)\s*[A-Za-z/²³]{1,8}$", "", approximation), how + "/approximation-of-name"
    if len(span) > 4 * MAX_ANSWER_CHARS:  # size guard before any normalization pattern runs
        return Verdict(Status.PARSE_ERROR, span[:200], gold_canon.show(), None, "size-guard",
                       f"answer ({how}) is {len(span)} characters long; a final answer is shorter")
    pred_normalized = normalize_span(span, chosen)
    gold_unit, pred_unit = answer_unit(_gold_span(gold, chosen)), answer_unit(span)
    if gold_unit and not pred_unit:  # class unit-after-span: "The pine tree is 85 inches tall.", "$\boxed{30}$ radians"
        if how in ("boxed", "repeated-box"):
            boxes = boxes_with_positions(completion)
            pred_unit = unit_word_at(completion, boxes[-1][1]) if boxes and boxes[-1][2].strip() == span.strip() else None
        elif not how.startswith(("####", "answer-tag", "json-answer")):
            pred_unit = unit_after(completion, span, cue=r"answer[^.!?\n]{0,30}$" if how.startswith("answer-phrase") else None)
    unit_scale = None  # class unit-conversion: an answer in another unit of the gold's dimension is converted
    if chosen.strip_units and gold_unit and pred_unit and gold_unit != pred_unit:
        unit_scale = unit_ratio(pred_unit, gold_unit)
        if unit_scale is None:
            return Verdict(Status.INCORRECT, span, gold_canon.show(), pred_normalized, "unit-mismatch",
                           f"answer ({how}) is in {pred_unit}, the gold in {gold_unit}")
    clock = clock_without_meridiem(gold, span, completion)
    if clock is not None:
        return Verdict(Status.CORRECT if clock else Status.INCORRECT, span, gold_canon.show(), span.strip(),
                       "clock-without-meridiem", f"answer ({how}) {'reads' if clock else 'does not read'} the gold's clock")
    if pred_normalized == gold_normalized and unit_scale is None:
        return Verdict(Status.CORRECT, span, gold_canon.show(), pred_normalized, "normalized-string",
                       f"answer ({how}) equals the gold after normalization")
    try:
        pred_canon = canonicalize(pred_normalized, chosen)
    except ParseFailure as exc:
        if unit_scale is None and text_key(pred_normalized, chosen) == text_key(gold_normalized, chosen):
            return Verdict(Status.CORRECT, span, gold_canon.show(), pred_normalized, "text",
                           f"answer ({how}) equals the gold as text")
        return Verdict(Status.PARSE_ERROR, span, gold_canon.show(), None, "parse",
                       f"answer {pred_normalized!r} ({how}) does not parse: {exc}")
    except Exception as exc:  # the LaTeX parser raises unrelated types on odd model text; report it
        return Verdict(Status.PARSE_ERROR, span, gold_canon.show(), None, "parse",
                       f"answer {pred_normalized!r} ({how}) does not parse: {type(exc).__name__}: {str(exc)[:120]}")
    if unit_scale is not None:
        if gold_canon.kind != "number" or pred_canon.kind != "number":
            return Verdict(Status.INCORRECT, span, gold_canon.show(), pred_canon.show(), "unit-mismatch",
                           f"answer ({how}) is in {pred_unit}, the gold in {gold_unit}")
        pred_canon = Canon("number", pred_canon.value * unit_scale, pred_canon.source)
    try:
        same, rule = equal(gold_canon, pred_canon, chosen)
        rule = f"unit-conversion/{rule}" if unit_scale is not None else rule
    except Exception as exc:  # sympy raises many unrelated types on odd input; report, never guess
        return Verdict(Status.PARSE_ERROR, span, gold_canon.show(), pred_canon.show(), "compare",
                       f"comparison failed: {type(exc).__name__}: {str(exc)[:120]}")
    if not same and chosen.percent_sign_value and pred_canon.kind == "number" and gold_canon.kind == "number":
        # class percent-sign-value: a percent sign written on one side only is the unit 1/100, so gold
        # 62.5\% is also the quantity 0.625 and an answer 25\% also the quantity 0.25 (the sign-dropped
        # reading, 62.5 == 62.5\%, is the convention kept alongside). No sign, no scaling: 10 != 0.1.
        gold_pct, pred_pct = has_percent_sign(_gold_span(gold, chosen)), has_percent_sign(span)
        if gold_pct != pred_pct:
            g_value = gold_canon.value / 100 if gold_pct else gold_canon.value
            p_value = pred_canon.value / 100 if pred_pct else pred_canon.value
            same = equal(Canon("number", g_value, gold_canon.source), Canon("number", p_value, pred_canon.source),
                         chosen)[0]
            rule = "percent-sign-value" if same else rule
    if not same and pred_canon.kind == "number" and gold_canon.kind == "number" \
            and rounds_to_gold(gold_canon.source, pred_canon.source) and marked_approximate(completion, pred_canon.source):
        same, rule = True, "rounds-to-gold"  # class rounds-to-gold (kleval.verify.decimals): "r ≈ 7.18%" for 7.2%
    if not same and (marked := degrees_implied(_gold_span(gold, chosen), span)):
        verdict = _verify(gold, "\\boxed{" + marked + "}", chosen)  # class degrees-implied (kleval.verify.normalize)
        if verdict.correct:
            return dataclasses.replace(verdict, extracted=span, rule=f"degrees-implied/{verdict.rule}",
                                       explanation=f"answer ({how}) read in degrees, as the gold's trig arguments are, "
                                                   f"equals the gold by rule {verdict.rule}")
    if not same and gold_canon.kind == "number":
        # the same quantity read another way: with the scale word after it (class scaled-value, kleval.verify.grammar;
        # kind number scales as it extracts), rounded as asked (class rounded-restatement, kleval.verify.restatement),
        # in its other unit (class unit-restatement, kleval.verify.units), in its smaller unit (class
        # compound-in-smaller-unit), as the ratio it closes on (class out-of-ratio, kleval.verify.sentence_values)
        readings = (("scaled-value", None if chosen.final_line_number else grammar.scaled_reading),
                    ("rounded-restatement", rounded_pair), ("unit-restatement", unit_restatement),
                    ("compound-in-smaller-unit", compound_in_smaller_unit), ("out-of-ratio", out_of_ratio))
        for name, reading in readings:  # (each read only when the ones before it fail)
            other = reading(completion, span) if reading else None
            verdict = _verify(gold, "\\boxed{" + other + "}", chosen) if other else None
            if verdict is not None and verdict.correct:
                return dataclasses.replace(verdict, extracted=span, rule=f"{name}/{verdict.rule}",
                                           explanation=f"answer ({how}) read as {other!r} ({name}) equals the gold by "
                                                       f"rule {verdict.rule}")
    if not same and how in ("boxed", "repeated-box") and gold_canon.kind in ("list", "set") and pred_canon.kind not in ("list", "set"):
        # class multi-part-boxes: a gold of n values and one box per part with prose between the boxes
        joined = grammar.part_boxes(completion, len(gold_canon.value))
        if joined is not None:
            verdict = _verify(gold, "\\boxed{" + joined + "}", chosen)
            if verdict.correct:
                return dataclasses.replace(verdict, extracted=joined, rule=f"multi-part-boxes/{verdict.rule}",
                                           explanation=f"{len(gold_canon.value)} boxes, one per part, equal the "
                                                       f"gold by rule {verdict.rule}")
    if not same and gold_canon.kind in ("list", "seq") and pred_canon.kind not in ("list", "set", "seq"):
        # class multi-part-lines (kleval.verify.parts): one labelled part (a), (b), ... per gold value, in order
        verdict = _verify_parts(gold_canon, completion, chosen)
        if verdict is not None:
            return verdict
    if same and len(gold) <= 120 and len(_PROSE.findall(gold)) >= 4 and re.search(r"\d", gold) \
            and (claimed := set(_PROPERTY.findall(gold.lower()))) \
            and not claimed <= set(_PROPERTY.findall(completion[-400:].lower())):
        # class where-it-holds: a gold sentence's property ("The function is decreasing on (0,2)") must be the one the
        # completion states, not only its interval ("Hence $f$ is increasing on $(0, 2)$.")
        same, rule = False, "property-differs"
    status = Status.CORRECT if same else Status.INCORRECT
    verb = "equals" if same else "differs from"
    return Verdict(status, span, gold_canon.show(), pred_canon.show(), rule,
                   f"answer ({how}) {verb} the gold by rule {rule}")


def _verify_parts(gold_canon: Canon, completion: str, chosen: Policy) -> Verdict | None:
    """CORRECT when part i of a multi-part answer equals the gold's value i for every i, else None."""
    answers = part_answers(completion, len(gold_canon.value))
    if answers is None:
        return None
    rules = []
    for gold_value, answer in zip(gold_canon.value, answers):
        try:
            pred = canonicalize(normalize_span(answer, chosen), chosen)
            same, rule = equal(gold_value, pred, chosen)
        except Exception:  # an unparsable or uncomparable part: the parts are not read (the verdict stands)
            return None
        if not same:
            return None
        rules.append(rule)
    joined = ", ".join(answers)
    return Verdict(Status.CORRECT, joined, gold_canon.show(), joined, f"multi-part-lines/{rules[-1]}",
                   f"{len(answers)} labelled parts (a), (b), ... equal the gold's values in order")
