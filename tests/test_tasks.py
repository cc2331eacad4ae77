"""Tests for kleval.tasks: every benchmark spec against the real offline data, plus spec and data errors."""
from __future__ import annotations

import json
import re
import shutil

import pytest

import kleval.verify
from kleval import data, tasks
from kleval.errors import ConfigError, DataError
from kleval.tasks import LETTERS, list_tasks, load_task
from kleval.types import AnswerKind, Split, Status, Verdict

# Problem counts as documented in each folder's PROVENANCE.md (OlympiadBench: its 581 rows with
# is_multiple_answer = false; the MMLU subjects: the rows of those subjects in the MMLU test set).
EXPECTED = {
    "math500": ("id", "math", 500),
    "math": ("id", "math", 5000),
    "gsm8k": ("id", "number", 1319),
    "aime24": ("id", "math", 30),
    "aime25": ("id", "math", 30),
    "amc23": ("id", "math", 40),
    "minerva_math": ("id", "math", 272),
    "olympiadbench": ("id", "math", 581),
    "mmlu_college_physics": ("ood", "choice", 102),
    "mmlu_college_chemistry": ("ood", "choice", 100),
    "mmlu_college_biology": ("ood", "choice", 144),
    "mmlu_pro": ("ood", "choice", 12032),
    "arc_challenge": ("ood", "choice", 1172),
    "mmlu_stem": ("ood", "choice", 3018),
}
MATH_INSTRUCTION = "Please reason step by step, and put your final answer within \\boxed{}."


def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def test_list_tasks_holds_every_benchmark():
    assert set(EXPECTED) <= set(list_tasks())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_task_loads_from_offline_data(name, data_dir):
    split, kind, count = EXPECTED[name]
    task = load_task(name, data_dir=data_dir)
    problems = task.problems()
    assert (task.split, task.kind, len(problems)) == (Split(split), AnswerKind(kind), count)
    assert task.data_file is not None and task.data_file.is_relative_to(data_dir)
    assert re.fullmatch(r"[0-9a-f]{64}", task.data_hash)
    assert len({p.id for p in problems}) == count, "problem ids must be unique"
    for problem in problems:
        assert problem.question.strip() and problem.gold.strip() and problem.kind is task.kind
        prompt = task.prompt(problem)
        assert problem.question in prompt
        if kind == "choice":
            assert problem.gold in LETTERS[: len(problem.choices)]
            for letter, text in zip(LETTERS, problem.choices):
                assert f"\n{letter}. {text}" in prompt
        else:
            assert prompt.endswith(MATH_INSTRUCTION) and not problem.choices


def test_problems_are_stable_and_limit_takes_the_first_n(data_dir):
    first = load_task("math500", data_dir=data_dir).problems()
    again = load_task("math500", data_dir=data_dir).problems()
    assert first == again
    assert load_task("math500", data_dir=data_dir).problems(limit=7) == first[:7]
    assert [p.id for p in first[:2]] == [r["unique_id"] for r in _rows(data_dir / "math500/test.jsonl")[:2]]


def test_math_gold_is_the_last_boxed_answer_of_the_solution(data_dir):
    problems = load_task("math", data_dir=data_dir).problems()
    boxed = {p.id: kleval.verify.extract.last_boxed(p.reference) for p in problems}
    assert all(boxed[p.id] for p in problems)
    # Only the gold cleanup may differ from the raw box content (e.g. "58,500" -> "58500").
    differing = [p for p in problems if p.gold != boxed[p.id]]
    assert all(p.gold == boxed[p.id].replace(",", "") for p in differing)
    by_id = {p.id: p for p in problems}
    first = _rows(data_dir / "math/test.jsonl")[0]
    assert by_id[first["unique_id"]].gold == "2" and "\\boxed{2}" in first["solution"]


def test_math500_gold_agrees_with_math(data_dir):
    math_gold = {p.id: p.gold for p in load_task("math", data_dir=data_dir).problems()}
    problems = load_task("math500", data_dir=data_dir).problems()
    # MATH-500's answer field and the cleaned last box of the same MATH solution agree everywhere.
    assert [(p.id, p.gold) for p in problems] == [(p.id, math_gold[p.id]) for p in problems]


def test_gsm8k_golds_are_plain_numbers(data_dir):
    problems = load_task("gsm8k", data_dir=data_dir).problems()
    assert all(re.fullmatch(r"-?\d+(\.\d+)?", p.gold) for p in problems)
    assert problems[0].gold == "18" and problems[0].id == "0"


def test_numeric_golds_become_sensible_strings(data_dir):
    amc = load_task("amc23", data_dir=data_dir).problems()
    assert amc[0].gold == "27" and all(not p.gold.endswith(".0") for p in amc)
    aime = {p.id: p.gold for p in load_task("aime24", data_dir=data_dir).problems()}
    raw = {str(r["id"]): r["answer"] for r in _rows(data_dir / "aime24/test.jsonl")}
    assert any(a.startswith("0") for a in raw.values())
    assert aime == {i: str(int(a)) for i, a in raw.items()}


def test_olympiadbench_keeps_single_answer_rows_without_dollar_signs(data_dir):
    rows = {r["id"]: r for r in _rows(data_dir / "olympiadbench/test.jsonl")}
    problems = load_task("olympiadbench", data_dir=data_dir).problems()
    assert all(not rows[int(p.id)]["is_multiple_answer"] for p in problems)
    assert all("$" not in p.gold for p in problems)
    assert len(rows) - len(problems) == sum(r["is_multiple_answer"] for r in rows.values())


@pytest.mark.parametrize("subject", ["college_physics", "college_chemistry", "college_biology"])
def test_mmlu_subject_filter(subject, data_dir):
    problems = load_task(f"mmlu_{subject}", data_dir=data_dir).problems()
    rows = [r for r in _rows(data_dir / "mmlu/test.jsonl") if r["subject"] == subject]
    assert all(p.metadata["subject"] == subject for p in problems)
    assert [(p.question, p.choices, p.gold) for p in problems] == [
        (r["question"].strip(), tuple(c.strip() for c in r["choices"]), r["answer"]) for r in rows
    ]


def test_arc_options_labelled_with_digits_are_shown_and_graded_as_letters(data_dir):
    rows = {r["id"]: r for r in _rows(data_dir / "arc_challenge/ARC-Challenge-Test.jsonl")}
    problems = load_task("arc_challenge", data_dir=data_dir).problems()
    digit_rows = [p for p in problems if rows[p.id]["answerKey"].isdigit()]
    assert digit_rows
    for p in digit_rows:
        assert p.gold == LETTERS[int(rows[p.id]["answerKey"]) - 1]


def test_unknown_task_lists_what_exists_and_suggests():
    with pytest.raises(ConfigError, match=r"unknown task 'math5000'; did you mean 'math500'\?.*gsm8k"):
        load_task("math5000")


# --- specs written in tmp_path ------------------------------------------------------------------

SPEC = '''
split = "id"
kind = "math"
policy = "default"
file = "toy/test.jsonl"
gold = "last_boxed"
prompt = """{question}
Put the answer in \\\\boxed{}."""

[fields]
id = "uid"
question = "problem"
answer = "solution"
reference = "solution"
'''
GOOD_ROWS = [
    {"uid": "a", "problem": "1+1?", "solution": "It is \\boxed{2}."},
    {"uid": "b", "problem": "2+2?", "solution": "It is \\boxed{4}."},
]


@pytest.fixture
def toy(tmp_path):
    """A tasks dir with one spec `toy` and a data dir with its file; returns (tasks_dir, data_dir)."""
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "toy.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "data" / "toy").mkdir(parents=True)
    _write_rows(tmp_path / "data", [json.dumps(r) for r in GOOD_ROWS])
    return tmp_path / "tasks", tmp_path / "data"


def _write_rows(data_dir, lines):
    (data_dir / "toy" / "test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_toy_spec_loads(toy):
    task = load_task("toy", tasks_dir=toy[0], data_dir=toy[1])
    problems = task.problems()
    assert [(p.id, p.gold) for p in problems] == [("a", "2"), ("b", "4")]
    assert task.prompt(problems[0]) == "1+1?\nPut the answer in \\boxed{}."
    assert task.chat is True and task.stop == () and task.policy == "default"


def test_environment_chooses_tasks_and_data_dirs(toy, monkeypatch):
    monkeypatch.setenv("KLEVAL_TASKS_DIR", str(toy[0]))
    monkeypatch.setenv("KLEVAL_DATA_DIR", str(toy[1]))
    assert list_tasks() == ["toy"]
    assert load_task("toy").data_file == toy[1] / "toy" / "test.jsonl"


@pytest.mark.parametrize(
    "bad_row, line, message",
    [
        ("{not json", 2, "invalid JSON"),
        (json.dumps({"uid": "c", "solution": "\\boxed{1}"}), 2, "missing field 'problem'"),
        (json.dumps({"uid": "c", "problem": "3+3?", "solution": "six"}), 2, r"no \\boxed\{\} in field 'solution'"),
        (json.dumps({"uid": "a", "problem": "3+3?", "solution": "\\boxed{6}"}), 2, "duplicate problem id 'a'"),
    ],
)
def test_malformed_row_names_file_and_line(toy, bad_row, line, message):
    _write_rows(toy[1], [json.dumps(GOOD_ROWS[0]), bad_row, json.dumps(GOOD_ROWS[1])])
    path = toy[1] / "toy" / "test.jsonl"
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}:{line}: {message}"):
        load_task("toy", tasks_dir=toy[0], data_dir=toy[1]).problems()


def test_missing_file_names_the_path_and_what_to_do(toy):
    shutil.rmtree(toy[1] / "toy")
    with pytest.raises(DataError) as caught:
        load_task("toy", tasks_dir=toy[0], data_dir=toy[1])
    message = str(caught.value)
    assert str(toy[1] / "toy" / "test.jsonl") in message and "KLEVAL_DATA_DIR" in message and "--data-dir" in message


def test_choice_answer_outside_the_options_names_the_line(tmp_path, data_dir):
    (tmp_path / "tasks").mkdir()
    shutil.copy(tasks.tasks_dir() / "mmlu_college_physics.toml", tmp_path / "tasks")
    (tmp_path / "data" / "mmlu").mkdir(parents=True)
    row = {"subject": "college_physics", "question": "Q?", "choices": ["a", "b", "c", "d"], "answer": "E"}
    (tmp_path / "data" / "mmlu" / "test.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    task = load_task("mmlu_college_physics", tasks_dir=tmp_path / "tasks", data_dir=tmp_path / "data")
    with pytest.raises(DataError, match=r"test\.jsonl:1: answer 'E' does not name one of the 4 options"):
        task.problems()


def test_spec_hash_follows_the_prompt_but_not_comments(toy):
    spec = toy[0] / "toy.toml"
    before = load_task("toy", tasks_dir=toy[0], data_dir=toy[1])
    spec.write_text("# a comment\n" + SPEC, encoding="utf-8")
    commented = load_task("toy", tasks_dir=toy[0], data_dir=toy[1])
    spec.write_text(SPEC.replace("Put the answer", "Write the answer"), encoding="utf-8")
    changed = load_task("toy", tasks_dir=toy[0], data_dir=toy[1])
    assert (commented.spec_hash, commented.prompt_hash) == (before.spec_hash, before.prompt_hash)
    assert changed.spec_hash != before.spec_hash and changed.prompt_hash != before.prompt_hash
    assert changed.prompt(changed.problems()[0]).endswith("Write the answer in \\boxed{}.")


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s.replace('split = "id"', 'split = "train"'), "split = 'train' is not one of id, ood"),
        (lambda s: s.replace("{question}\n", ""), r"must be a template string containing \{question\}"),
        (lambda s: 'colour = "blue"\n' + s, r"unknown keys \['colour'\]"),
        (lambda s: s.replace('gold = "last_boxed"', 'gold = "letter"'), "does not fit kind"),
        (lambda s: s.replace('policy = "default"', 'policy = "lenient"'), "policy = 'lenient'"),
        (lambda s: s + "[[broken", "invalid TOML"),
    ],
)
def test_bad_spec_is_a_config_error_naming_the_file(toy, edit, message):
    spec = toy[0] / "toy.toml"
    spec.write_text(edit(SPEC), encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"{re.escape(str(spec))}: .*{message}"):
        load_task("toy", tasks_dir=toy[0], data_dir=toy[1])


def test_hub_is_used_with_its_own_field_map_when_no_local_data(monkeypatch):
    monkeypatch.delenv("KLEVAL_DATA_DIR", raising=False)
    monkeypatch.setattr(tasks, "resolve_data_dir", lambda explicit=None: None)
    hub_rows = [{"question": "Q?", "subject": "college_physics", "choices": ["w", "x", "y", "z"], "answer": 2}]
    calls = []

    def fake_read_hub(hf_id, config, split):
        calls.append((hf_id, config, split))
        return iter([data.Row(i, f"hub row {i}", r) for i, r in enumerate(hub_rows)])

    monkeypatch.setattr(tasks, "read_hub", fake_read_hub)
    task = load_task("mmlu_college_physics")
    assert task.data_file is None and task.source == "hf:cais/mmlu"
    [problem] = task.problems()
    assert calls == [("cais/mmlu", "college_physics", "test")]
    assert (problem.gold, problem.choices, problem.id) == ("C", ("w", "x", "y", "z"), "0")
    assert re.fullmatch(r"[0-9a-f]{64}", task.data_hash)


def test_synthetic_spec_calls_the_generator_with_its_params(tmp_path, monkeypatch):
    import kleval.synthetic

    calls = []

    def fake_make_problems(generator, *, count, seed, **params):
        calls.append((generator, count, seed, params))
        return [tasks.Problem(id=f"p{i}", question=f"{i}+{i}=", gold=str(2 * i), kind=AnswerKind.NUMBER) for i in range(count)]

    monkeypatch.setattr(kleval.synthetic, "make_problems", fake_make_problems)
    (tmp_path / "toy_add.toml").write_text(
        'split = "id"\nkind = "number"\npolicy = "exact"\nsource = "synthetic"\ngenerator = "add"\n'
        "count = 3\nseed = 7\nchat = false\n[generator_params]\ndigits = 2\n",
        encoding="utf-8",
    )
    task = load_task("toy_add", tasks_dir=tmp_path)
    assert [p.gold for p in task.problems()] == ["0", "2", "4"]
    assert calls == [("add", 3, 7, {"digits": 2})]
    assert task.prompt(task.problems()[1]) == "1+1=" and task.data_file is None and task.chat is False


def test_real_synthetic_task_loads():
    task = load_task("arith_add")
    problems = task.problems()
    assert len(problems) == 500 and task.source == "synthetic:add"
    assert task.problems(limit=3) == problems[:3]


def test_score_and_reward_call_the_verifier_with_the_task_settings(monkeypatch, data_dir):
    calls = []

    def fake_verify(*, gold, completion, kind, policy):
        calls.append((gold, completion, kind, policy))
        return Verdict(status=Status.CORRECT if completion.endswith(gold) else Status.INCORRECT)

    monkeypatch.setattr(kleval.verify, "verify", fake_verify, raising=False)
    task = load_task("gsm8k", data_dir=data_dir)
    problem = task.problems(limit=1)[0]
    assert task.score(problem, "so 18").correct
    assert (task.reward(problem, "so 18"), task.reward(problem, "so 17")) == (1.0, 0.0)
    assert calls[0] == ("18", "so 18", "number", "gsm8k")


@pytest.mark.skipif(not hasattr(kleval.verify, "verify"), reason="kleval.verify.verify not written yet")
def test_reward_with_the_real_verifier(data_dir):
    math = load_task("math500", data_dir=data_dir)
    problem = math.problems(limit=1)[0]
    assert math.reward(problem, f"So the answer is \\boxed{{{problem.gold}}}.") == 1.0
    assert math.reward(problem, "So the answer is \\boxed{7}.") == 0.0
    mmlu = load_task("mmlu_college_physics", data_dir=data_dir)
    problem = mmlu.problems(limit=1)[0]
    wrong = next(letter for letter in "ABCD" if letter != problem.gold)
    assert mmlu.reward(problem, f"The answer is \\boxed{{{problem.gold}}}") == 1.0
    assert mmlu.reward(problem, f"The answer is \\boxed{{{wrong}}}") == 0.0


def test_tasks_command_lists_counts_and_marks_unavailable_data(toy, capsys, monkeypatch):
    from kleval.cli import main

    (toy[0] / "gone.toml").write_text(SPEC.replace("toy/test.jsonl", "gone/test.jsonl"), encoding="utf-8")
    assert main(["tasks", "--tasks-dir", str(toy[0]), "--data-dir", str(toy[1])]) == 0
    out = capsys.readouterr().out
    table = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert table["toy"][1:3] == ["id", "math"] and table["toy"][-1] == "2"
    assert table["gone"][-1] == "UNAVAILABLE"
    assert f"gone: {toy[1] / 'gone' / 'test.jsonl'}: data file for task gone not found" in out


def test_tasks_command_unknown_task_exits_2(capsys):
    from kleval.cli import main

    assert main(["tasks", "--show", "gsm8"]) == 2
    assert "unknown task 'gsm8'; did you mean 'gsm8k'?" in capsys.readouterr().err
