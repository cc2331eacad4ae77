"""Countdown: the restricted-grammar grader (also the RL reward), hostile inputs, the data files."""
from __future__ import annotations

import json
from pathlib import Path
from fractions import Fraction

import pytest

from kleval import countdown
from kleval.countdown import ExpressionError, evaluate_expression, verify_countdown
from kleval.types import Status

GOLD = countdown.format_gold(24, [1, 3, 4, 6])


@pytest.mark.parametrize("completion, status", [
    ("<answer>6 / (1 - 3 / 4)</answer>", Status.CORRECT),               # exact fractions: 6 / (1/4)
    ("so <answer>(6 - 4 + 1) * 3 + 1 * 4 - 4</answer>", Status.INCORRECT),  # 4 used twice
    ("<answer>4 * 6</answer>", Status.CORRECT),                          # numbers may stay unused
    ("<answer>4 × 6 = 24</answer>", Status.CORRECT),                      # × and a trailing '= 24'
    ("<answer>\\frac{6}{1}</answer>", Status.PARSE_ERROR),
    ("<answer>6 * 4 + 1</answer>", Status.INCORRECT),                     # 25
    ("<answer>8 * 3</answer>", Status.INCORRECT),                         # 8 is not given
    ("<answer>6 / (4 - 4)</answer>", Status.INCORRECT),                   # division by zero, 4 twice
    ("<answer>6 / (3 - 3)</answer>", Status.INCORRECT),
    ("<answer>-1 + 25</answer>", Status.PARSE_ERROR),                     # no unary minus
    ("<answer>4.0 * 6</answer>", Status.PARSE_ERROR),
    ("<answer>(4 * 6</answer>", Status.PARSE_ERROR),
    ("<answer>4 6</answer>", Status.PARSE_ERROR),
    ("<answer></answer>", Status.PARSE_ERROR),
    ("<answer>1</answer> no wait <answer>4*6</answer>", Status.CORRECT),  # the last tag counts
    ("4*6", Status.CORRECT),                                              # bare expression (tiny format)
    ("The answer is 24.", Status.NO_ANSWER),
    ("", Status.NO_ANSWER),
])
def test_grading(completion, status):
    assert verify_countdown(gold=GOLD, completion=completion).status is status


def test_evaluation_is_exact_and_records_the_numbers_used():
    assert evaluate_expression("6 / (1 - 3 / 4)") == (Fraction(24), [6, 1, 3, 4])
    assert evaluate_expression("1 / 3 + 1 / 3 + 1 / 3")[0] == 1  # no float rounding
    assert evaluate_expression("2 - 3 - 4")[0] == -5 and evaluate_expression("8 / 4 / 2")[0] == 1  # left-assoc


@pytest.mark.parametrize("hostile", [
    "9**9**9**9",
    "9 ** 99999999",
    "(" * 10_000 + "1" + ")" * 10_000,
    "(" * (countdown.MAX_DEPTH + 1) + "4" + ")" * (countdown.MAX_DEPTH + 1),
    "1+" * 5_000 + "1",
    "9" * 10_000,
    "__import__('os').system('true')",
    "lambda: 1",
    "٣ + ٤",  # non-ASCII digits
    "\x00",
])
def test_hostile_expressions_are_refused_not_run(hostile):
    verdict = verify_countdown(gold=GOLD, completion=f"<answer>{hostile}</answer>")
    assert verdict.status is Status.PARSE_ERROR
    with pytest.raises(ExpressionError):
        evaluate_expression(hostile)


def test_huge_completion_is_bounded():
    junk = "x" * 5_000_000 + "<answer>4*6</answer>"
    assert verify_countdown(gold=GOLD, completion=junk).correct
    assert verify_countdown(gold=GOLD, completion="(" * 5_000_000).status is Status.NO_ANSWER


def test_bad_gold_is_a_gold_error():
    assert verify_countdown(gold="24", completion="<answer>4*6</answer>").status is Status.GOLD_ERROR


def test_committed_data_regenerates_byte_for_byte(tmp_path):
    countdown.write_data(tmp_path)
    for part in countdown.PARTS:
        assert (tmp_path / f"{part}.jsonl").read_bytes() == (countdown.DATA_DIR / f"{part}.jsonl").read_bytes()


def test_data_is_solvable_distinct_and_split_disjoint():
    keys = {}
    for part, spec in countdown.PARTS.items():
        count = spec.count
        rows = [json.loads(line) for line in (countdown.DATA_DIR / f"{part}.jsonl").read_text().splitlines()]
        assert len(rows) == count
        keys[part] = {(tuple(sorted(r["numbers"])), r["target"]) for r in rows}
        assert len(keys[part]) == count
        for r in rows:
            verdict = verify_countdown(gold=r["gold"], completion=f"<answer>{r['solution']}</answer>")
            assert verdict.correct, (r, verdict)
    assert not keys["train"] & keys["test"]
    assert not keys["tiny-train"] & (keys["tiny-test"] | keys["tiny-ood"])


def test_task_specs_grade_and_reward_through_the_verifier_and_its_pool():
    from kleval.tasks import load_task
    from kleval.verify import VerifierPool, VerifyItem, verify

    task = load_task("countdown")
    problems = task.problems()
    assert len(problems) == 500 and len(load_task("countdown_train").problems()) == 2000
    problem = problems[0]
    good = f"Let me see. <answer>{problem.reference}</answer>"
    assert "<answer>" in task.prompt(problem) and str(problem.metadata["target"]) in task.prompt(problem)
    assert task.score(problem, good).correct and task.reward(problem, good) == 1.0
    assert task.reward(problem, "<answer>1+1</answer>") == 0.0
    assert verify(gold=problem.gold, completion=good, kind="number", policy="countdown").correct
    with VerifierPool(workers=1, timeout_s=20) as pool:
        verdicts = pool.map([VerifyItem(problem.gold, good, "number", "countdown"),
                             VerifyItem(problem.gold, "<answer>" + "(" * 10_000 + "</answer>", "number", "countdown")])
    assert [v.status for v in verdicts] == [Status.CORRECT, Status.PARSE_ERROR]


def test_tiny_arith_tokenizer_cannot_express_countdown_answers():
    """Documented limit (docs/tasks.md): the committed tiny model knows digits, + - = only."""
    vocab = json.loads((countdown.DATA_DIR.parent / "tiny-arith-base" / "tokenizer.json").read_text())["model"]["vocab"]
    missing = sorted(set(countdown.TINY_ALPHABET) - set(vocab))
    assert missing == sorted(set("*/(),:"))


def test_eval_runs_countdown_end_to_end_with_a_chat_model(tiny_checkpoint, tmp_path):
    """A real (random) tiny chat checkpoint through `kleval eval --config evals/countdown.toml`."""
    from kleval.cli import main

    out = tmp_path / "study"
    config = Path(__file__).resolve().parents[1] / "evals" / "countdown.toml"
    assert main(["eval", "--config", str(config), "--checkpoints", str(tiny_checkpoint), "--backend", "hf",
                 "--limit", "3", "--n", "2", "--k", "1,2", "--max-tokens", "16", "--out", str(out), "--no-progress"]) == 0
    scores = [json.loads(line) for path in (out / "scores").rglob("countdown.jsonl")
              for line in path.read_text().splitlines()]
    assert len(scores) == 6 and all(s["status"] in ("incorrect", "no_answer", "parse_error") for s in scores)
