"""Synthetic arithmetic problems: deterministic, distinct, correct golds, disjoint train/test parts."""
import pytest

from kleval.errors import ConfigError
from kleval.synthetic import has_carry, make_problems
from kleval.types import AnswerKind


def test_problems_are_deterministic_distinct_and_correct():
    first = make_problems("add", count=200, seed=3)
    assert first == make_problems("add", count=200, seed=3)
    assert first != make_problems("add", count=200, seed=4)
    assert len({p.id for p in first}) == 200
    for p in first + make_problems("sub", count=200, seed=3):
        a, b = p.metadata["a"], p.metadata["b"]
        assert p.kind is AnswerKind.NUMBER
        assert p.question == f"{a:02d}{p.metadata['operator']}{b:02d}="
        assert int(p.gold) == (a + b if p.metadata["operator"] == "+" else a - b)


def test_train_and_test_parts_are_disjoint():
    train = {p.id for p in make_problems("add", count=3000, seed=0, part="train")}
    test = {p.id for p in make_problems("add", count=1000, seed=0, part="test")}
    assert train and test and not train & test


def test_carry_and_bad_parameters():
    assert has_carry(47, 38, "add") and not has_carry(12, 34, "add")
    assert has_carry(52, 38, "sub") and not has_carry(58, 32, "sub")
    assert all(int(p.gold) >= 0 for p in make_problems("sub", count=100, seed=0, nonnegative=True))
    with pytest.raises(ConfigError):
        make_problems("mul", count=1, seed=0)
    with pytest.raises(ConfigError):
        make_problems("add", count=20000, seed=0)
    with pytest.raises(ConfigError):
        make_problems("add", count=1, seed=0, part="validation")


def test_tasks_load_through_the_spec_loader():
    from kleval.tasks import load_task

    task = load_task("arith_add")
    problem = task.problems()[0]
    assert task.split.value == "id" and task.prompt(problem) == problem.question
    assert task.reward(problem, problem.gold) == 1.0 and task.reward(problem, problem.gold + "1") == 0.0
    assert load_task("arith_sub").split.value == "ood"
    train_ids = {p.id for p in load_task("arith_add_train").problems()}
    assert not train_ids & {p.id for p in task.problems()}
