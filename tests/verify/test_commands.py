"""`kleval verify` and `kleval check-golds` end to end, and check-golds on the full MATH/GSM8K data."""
from __future__ import annotations

import json

import pytest

from kleval.cli import main


def test_verify_command_round_trip(tmp_path, capsys):
    rows = [{"gold": "\\frac{1}{2}", "completion": "so \\boxed{0.5}"},
            {"gold": "B", "completion": "The answer is (C)", "kind": "choice", "id": 7},
            {"gold": "18", "completion": "... 18 dollars", "kind": "number", "policy": "gsm8k"}]
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert main(["verify", "--input", str(source), "--output", str(target)]) == 0
    out = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r["correct"] for r in out] == [True, False, True]
    assert [r["status"] for r in out] == ["correct", "incorrect", "correct"]
    assert out[1]["id"] == 7 and out[1]["extracted"] == "C"


@pytest.mark.parametrize("line, message", [
    ('{"gold": 1, "completion": "x"}', "gold"),
    ("not json", "invalid JSON"),
    ('{"gold": "1", "completion": "x", "kind": "essay"}', "kind"),
])
def test_verify_command_names_file_and_line(tmp_path, capsys, line, message):
    source = tmp_path / "in.jsonl"
    source.write_text('{"gold": "1", "completion": "1"}\n' + line + "\n")
    assert main(["verify", "--input", str(source), "--output", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"{source}:2" in err and message in err
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["math/test.jsonl", "math/train.jsonl", "math500/test.jsonl",
                                  "gsm8k/train.jsonl", "gsm8k/test.jsonl"])
def test_every_gold_is_clean(data_dir, name):
    from kleval.verify.golds import check_problems, problems_from_file

    problems, policy = problems_from_file(data_dir / name)
    _, failures = check_problems(problems, policy)
    # The two documented bad golds (docs/verifier.md): empty \boxed{} in MATH train number theory.
    documented = {"train.jsonl:5530", "train.jsonl:5532"} if name == "math/train.jsonl" else set()
    assert {f.problem_id for f in failures} == documented, failures[:5]


def test_verify_command_policy_flag_and_per_row_policy(tmp_path):
    rows = [{"gold": "46", "completion": "we get 46 apples, 12 pears"},  # --policy gsm8k applies: 12
            {"gold": "46", "completion": "we get 46 apples, 12 pears", "policy": "default"},  # the row's own policy
            {"gold": "3", "completion": "It takes 2+1=3 bolts\nA: 3", "kind": "number", "policy": "default"}]
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert main(["verify", "--input", str(source), "--output", str(target), "--policy", "gsm8k"]) == 0
    out = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r["policy"] for r in out] == ["gsm8k", "default", "number"]  # kind number: the number preset
    assert [r["status"] for r in out] == ["incorrect", "no_answer", "correct"]
    assert all(r["rule"] for r in out) and out[2]["extracted"] == "3"


def test_verify_command_rejects_an_unknown_policy_flag(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text('{"gold": "1", "completion": "1"}\n')
    assert main(["verify", "--input", str(source), "--output", str(tmp_path / "o.jsonl"), "--policy", "lenient"]) == 2
    assert "lenient" in capsys.readouterr().err
