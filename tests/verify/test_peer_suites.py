"""kleval's verifier on a peer suite nobody here wrote: every parametrized case of Math-Verify's own tests.

One test per row of tests/verify/peer/math_verify.jsonl (id = the case's source in Math-Verify),
once with the prediction as written and once wrapped in \\boxed{} where it is a bare expression.
A row passes when kleval's verdict (correct or not) matches Math-Verify's expected label.

Two kinds of expected failure, both visible in the test report, never silent skips:
- PRINCIPLED: rows where kleval is right to disagree with the label (each says why);
- KNOWN_MISSES: rows kleval still gets wrong though the label is right (each says why).
Both are strict: a row that starts to pass must leave its list.
"""
from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import pytest

from kleval.verify import verify

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("kleval_verify_corpus", Path(__file__).parent / "peer" / "corpus.py")
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

pytestmark = pytest.mark.peer_suite

ROWS = corpus.load_jsonl(corpus.PEER_SUITE)
BOXED_ROWS = [{**row, "completion": corpus.boxed_variant(row["completion"])}
              for row in ROWS if corpus.boxed_variant(row["completion"]) is not None]

# Issue 10's bar: on Math-Verify's own suite kleval must agree with >= 97% of the labels
# (Math-Verify's own score there). Deliberately a constant, read from no file.
AGREEMENT_BAR = 0.97

# Rows where kleval's verdict is the right one and Math-Verify's label is not (or holds only under
# a non-default Math-Verify setting that kleval's default policy rightly does not apply).
PRINCIPLED = {
    "tests/test_yujianll.py::test_string_extraction[9]":
        "1 - 1/e and 1 + 1/e differ; the label is an artifact of Math-Verify failing to parse \\mathrm{e} "
        "(both sides read as 1), and Math-Verify PR #82 corrects this very expectation",
    "tests/test_all.py::test_set_rel_assymetry[3]":
        "x in [-2,7] and -2 <= x <= 7 denote the same set; Math-Verify rejects it only because "
        "allow_set_relation_comp=False, an anti-hacking switch, not a mathematical difference",
    "tests/test_strict.py::test_strict_variable_comparison[1]":
        "f(x) vs f(y) is accepted only with Math-Verify's non-default strict=False; a default grader must "
        "not rename variables",
    "tests/test_all.py::test_precision[0]":
        "0.3333 for 1/3 is accepted only at Math-Verify's non-default precision=4; a default grader must "
        "not accept a 4-digit approximation of an exact answer",
    "tests/test_all.py::test_complex_math_expressions[7]":
        "0.33 and 0.2 for 1/3 and 1/5 are accepted only at the non-default precision=2",
    "tests/test_all.py::test_complex_math_expressions[13]":
        "2.6667 for 8/3 is accepted only at the non-default precision=2",
    "tests/test_all.py::test_symbols[0]":
        "the gold is `\\text{13}` written in a non-raw Python string, so it holds a tab and 'ext{13}'; the issue the "
        "test cites (Math-Verify #37) asks for `\\text{13}` to equal 13, fixed in 0.8.0. kleval reads the tab back as "
        "the `\\t` it was (class escape-damage) and agrees with the issue, not with the escaping accident",
}
# Principled rows become strict xfails once the fix lands (today some pass for the wrong reason).
PRINCIPLED_STRICT = True


# Rows kleval still gets wrong although the label is right: known limits, strict xfails so a fix shows up.
# None since 2.1.0: the two malformed golds of 2.0.0 (`\\boxed{35 cm} ++++++ \\boxed{4}` and an unclosed
# `\\boxed{W(n) = 1 \\text{ and } W(n) = -1`) are read by the general gold repairs gold-box-list and
# gold-unclosed-box (kleval.verify.core._gold_span).
_MISSES: dict[str, str] = {}
KNOWN_MISSES: dict[str, dict[str, str]] = {"peer-plain": _MISSES, "peer-boxed": _MISSES}


@functools.cache
def _kleval_accepts(gold: str, completion: str, kind: str) -> bool:
    return verify(gold=gold, completion=completion, kind=kind).correct


def _params(rows: list[dict], set_name: str) -> list:
    params = []
    for row in rows:
        marks = []
        if row["source"] in PRINCIPLED:
            marks.append(pytest.mark.xfail(strict=PRINCIPLED_STRICT, reason=PRINCIPLED[row["source"]]))
        elif row["source"] in KNOWN_MISSES.get(set_name, {}):
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[set_name][row["source"]]))
        params.append(pytest.param(row, id=row["source"], marks=marks))
    return params


def _check(row: dict) -> None:
    accepted = _kleval_accepts(row["gold"], row["completion"], row["kind"])
    wanted = row["expected"] == "correct"
    if accepted != wanted:
        verdict = verify(gold=row["gold"], completion=row["completion"], kind=row["kind"])
        pytest.fail(f"expected {row['expected']}, kleval says {verdict.status.value} "
                    f"(rule {verdict.rule!r}); gold {row['gold']!r}; prediction {row['completion'][:200]!r}")


@pytest.mark.parametrize("row", _params(ROWS, "peer-plain"))
def test_peer_case(row):
    _check(row)


@pytest.mark.parametrize("row", _params(BOXED_ROWS, "peer-boxed"))
def test_peer_case_boxed(row):
    _check(row)


def test_peer_suite_false_accepts_stay_within_the_issue_bar():
    """At most 2 false accepts (Math-Verify's own count on its suite with default settings)."""
    false_accepts = [row["source"] for row in ROWS
                     if row["expected"] != "correct" and _kleval_accepts(row["gold"], row["completion"], row["kind"])
                     and row["source"] not in PRINCIPLED]
    assert len(false_accepts) <= 2, false_accepts


def test_peer_suite_agreement_counting_principled_rows_as_kleval_right_meets_the_issue_bar():
    """The issue's bar on Math-Verify's suite, where a PRINCIPLED row counts for kleval (raw agreement
    with the labels, principled rows counted against kleval, is printed by benchmarks/verify_heldout.py)."""
    agree = sum((_kleval_accepts(row["gold"], row["completion"], row["kind"]) == (row["expected"] == "correct"))
                or row["source"] in PRINCIPLED for row in ROWS)
    assert agree / len(ROWS) >= AGREEMENT_BAR


def test_peer_suite_is_complete():
    """The corpus holds every case the builder took, with unique sources and valid labels."""
    sources = [row["source"] for row in ROWS]
    assert len(ROWS) == 277 and len(set(sources)) == len(sources)
    assert {row["kind"] for row in ROWS} <= {"math", "number", "choice"}
    assert set(PRINCIPLED) <= set(sources)
    assert 100 <= len(BOXED_ROWS) < len(ROWS)


# Each held-out round: its dev and frozen sets, the fewest rows it was written with.
HELDOUT_ROUNDS = {
    "round 1": ("heldout-dev", "heldout-frozen", 250),
    "round 3": ("heldout-v3-dev", "heldout-v3-frozen", 240),
    "round 4": ("heldout-v4-dev", "heldout-v4-frozen", 280),
    "round 5": ("heldout-v5-dev", "heldout-v5-frozen", 380),
    "round 6": ("heldout-v6-dev", "heldout-v6-frozen", 250),
    "round 7": ("heldout-v7-dev", "heldout-v7-frozen", 340),
    "round 8": ("heldout-v8-dev", "heldout-v8-frozen", 340),
    "round 9": ("heldout-v9-dev", "heldout-v9-frozen", 340),
    "round 10": ("heldout-v10-dev", "heldout-v10-frozen", 350),
    "round 11": ("heldout-v11-dev", "heldout-v11-frozen", 360),
    "round 12": ("heldout-v12-dev", "heldout-v12-frozen", 390),
}
# Rounds 13 and 14 (class probes) keep a right answer and its near-miss twin on one side: their split is by twin groups
# (tests/verify/heldout/v13/README.md), not split.py's per-category shuffle. Round 14's writer A was read whole
# before the split, so all of its rows are dev and its frozen share is smaller (heldout/v14/README.md).
GROUP_SPLIT_ROUNDS = {"round 13": ("heldout-v13-dev", "heldout-v13-frozen", 480, (0.35, 0.45)),
                      "round 14": ("heldout-v14-dev", "heldout-v14-frozen", 570, (0.25, 0.32)),
                      "round 15": ("heldout-v15-dev", "heldout-v15-frozen", 470, (0.36, 0.42)),
                      "round 16": ("heldout-v16-dev", "heldout-v16-frozen", 360, (0.36, 0.42)),
                      "round 17": ("heldout-v17-dev", "heldout-v17-frozen", 340, (0.36, 0.42)),
                      "round 18": ("heldout-v18-dev", "heldout-v18-frozen", 125, (0.36, 0.42)),
                      "round 19": ("heldout-v19-dev", "heldout-v19-frozen", 350, (0.36, 0.42)),
                      "round 20": ("heldout-v20-dev", "heldout-v20-frozen", 308, (0.36, 0.42)),
                      "round 21": ("heldout-v21-dev", "heldout-v21-frozen", 331, (0.36, 0.42)),
                      "round 22": ("heldout-v22-dev", "heldout-v22-frozen", 344, (0.36, 0.42))}


@pytest.mark.parametrize("round_name", sorted(HELDOUT_ROUNDS))
def test_heldout_corpora_are_well_formed_and_split_reproducibly(round_name):
    """Structure only (no verdicts): unique ids, valid labels, a cited source, the seeded ~40% split."""
    dev_name, frozen_name, min_rows = HELDOUT_ROUNDS[round_name]
    spec = importlib.util.spec_from_file_location("kleval_heldout_split", corpus.HELDOUT_DIR / "split.py")
    split = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(split)
    files = corpus.heldout_files()
    seed = split.seed_for(files[dev_name].parent)
    dev, frozen = corpus.load_jsonl(files[dev_name]), corpus.load_jsonl(files[frozen_name])
    rows = dev + frozen
    assert len({row["id"] for row in rows}) == len(rows) >= min_rows
    for row in rows:
        assert row["kind"] in {"math", "number", "choice"} and isinstance(row["debatable"], bool), row["id"]
        assert row["source"] == "hand-written" or row["source"].startswith("https://github.com/"), row["id"]
        assert row["category"].split("/")[0] in {"extraction", "number", "equations", "golds", "normalization",
                                                 "equivalence"}, row["id"]
    again_dev, again_frozen = split.split(rows, seed)
    assert [row["id"] for row in again_dev] == [row["id"] for row in dev]
    assert [row["id"] for row in again_frozen] == [row["id"] for row in frozen]
    assert 0.35 <= len(frozen) / len(rows) <= 0.45


@pytest.mark.parametrize("round_name", sorted(GROUP_SPLIT_ROUNDS))
def test_group_split_rounds_keep_twins_on_one_side(round_name):
    """Structure only (no verdicts): unique ids, valid labels, and no completion (or its opening) on both sides."""
    dev_name, frozen_name, min_rows, (low, high) = GROUP_SPLIT_ROUNDS[round_name]
    files = corpus.heldout_files()
    dev, frozen = corpus.load_jsonl(files[dev_name]), corpus.load_jsonl(files[frozen_name])
    rows = dev + frozen
    assert len({row["id"] for row in rows}) == len(rows) >= min_rows
    for row in rows:
        assert row["kind"] in {"math", "number", "choice"} and row["expected"] in {"correct", "incorrect"}, row["id"]
        assert row["source"] == "hand-written" or row["source"].startswith("https://github.com/"), row["id"]
    dev_openings = {row["completion"][:150] for row in dev}
    assert not [row["id"] for row in frozen if row["completion"][:150] in dev_openings]
    assert low <= len(frozen) / len(rows) <= high


# Each later round and the corpora it must not repeat a (gold, completion) pair of (besides the earlier rounds).
NEWER_ROUNDS = {"round 3": ("heldout-v3", ()), "round 4": ("heldout-v4", ("adversarial.jsonl",)),
                "round 5": ("heldout-v5", ("adversarial.jsonl",)),
                "round 6": ("heldout-v6", ("adversarial.jsonl",)),
                "round 7": ("heldout-v7", ("adversarial.jsonl",)),
                "round 8": ("heldout-v8", ("adversarial.jsonl",)),
                "round 9": ("heldout-v9", ("adversarial.jsonl",)),
                "round 10": ("heldout-v10", ("adversarial.jsonl",)),
                "round 11": ("heldout-v11", ("adversarial.jsonl",)),
                "round 12": ("heldout-v12", ("adversarial.jsonl",)),
                "round 13": ("heldout-v13", ("adversarial.jsonl",)),
                "round 14": ("heldout-v14", ("adversarial.jsonl",)),
                "round 15": ("heldout-v15", ("adversarial.jsonl",)),
                "round 16": ("heldout-v16", ("adversarial.jsonl",)),
                "round 17": ("heldout-v17", ("adversarial.jsonl",)),
                "round 18": ("heldout-v18", ("adversarial.jsonl",)),
                "round 19": ("heldout-v19", ("adversarial.jsonl",)),
                "round 20": ("heldout-v20", ("adversarial.jsonl",)),
                "round 21": ("heldout-v21", ("adversarial.jsonl",)),
                "round 22": ("heldout-v22", ("adversarial.jsonl",))}


@pytest.mark.parametrize("round_name", sorted(NEWER_ROUNDS))
def test_later_heldout_cases_are_new(round_name):
    """A later held-out round repeats no (gold, completion) pair of the earlier rounds, peer or regression corpora."""
    files = corpus.heldout_files()
    prefix, extra = NEWER_ROUNDS[round_name]
    number = int(round_name.split()[1])
    rounds = HELDOUT_ROUNDS | {name: spec[:3] for name, spec in GROUP_SPLIT_ROUNDS.items()}
    earlier = [(dev, frozen) for name, (dev, frozen, _rows) in rounds.items() if int(name.split()[1]) < number]
    older = [files[set_name] for pair in earlier for set_name in pair]
    older += [corpus.PEER_SUITE, ROOT / "tests" / "verify" / "regression.jsonl"]
    older += [ROOT / "tests" / "verify" / name for name in extra]
    rows = [json.loads(line) for path in older for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    seen = {(row["gold"].strip(), row["completion"].strip()) for row in rows}
    new = corpus.load_jsonl(files[f"{prefix}-dev"]) + corpus.load_jsonl(files[f"{prefix}-frozen"])
    repeated = [row["id"] for row in new if (row["gold"].strip(), row["completion"].strip()) in seen]
    assert not repeated, repeated


def test_the_heldout_benchmark_never_shows_a_frozen_set():
    """benchmarks/verify_heldout.py counts every frozen held-out file (frozen.jsonl) among the sets it never prints rows of."""
    spec = importlib.util.spec_from_file_location("kleval_verify_heldout_bench", ROOT / "benchmarks" / "verify_heldout.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    names = {name: path.name for name, path in corpus.heldout_files().items()}
    assert {name for name, file in names.items() if file == "frozen.jsonl"} == {name for name in names if bench.is_frozen(name)}
    assert {"heldout-frozen", "heldout-v3-frozen"} <= set(names)


@pytest.mark.parametrize("prediction, boxed", [
    ("$k = \\frac{1}{3}$", "\\boxed{k = \\frac{1}{3}}"),
    ("28 percent", "\\boxed{28 percent}"),
    ("$$(1, +\\infty)$$", "\\boxed{(1, +\\infty)}"),
    ("Answer $ 9 $ and $ 10 $", None),
    ("the number is not 10 which is 1,000.99", None),
    ("$\\boxed{\\frac{1}{3}}$", None),
])
def test_boxed_variant_wraps_only_bare_expressions(prediction, boxed):
    assert corpus.boxed_variant(prediction) == boxed
