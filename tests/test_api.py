"""kleval.api: evaluate in a notebook, results and samples as DataFrames, the same study on disk."""
from __future__ import annotations

import pandas as pd
import pytest

from kleval import api
from kleval.errors import ConfigError

TASKS = ["gsm8k", "mmlu_college_physics"]


@pytest.fixture(scope="module")
def results(tiny_checkpoint, data_dir):
    return api.evaluate(tiny_checkpoint, TASKS, n=1, limit=2, max_tokens=8, data_dir=data_dir,
                        progress=False, device="cpu")


def test_evaluate_returns_one_row_per_checkpoint_and_task(results, tiny_checkpoint):
    assert sorted(results["task"]) == sorted(TASKS)
    assert set(results["checkpoint"]) == {tiny_checkpoint.name}
    assert (results["num_problems"] == 2).all() and (results["n"] == 1).all()
    assert results["pass@1"].between(0, 1).all()


def test_results_frame_is_the_study_on_disk(results):
    study = results.attrs["study_dir"]
    assert "kleval-study-" in study  # a fresh temporary study when out is None
    on_disk = pd.read_csv(f"{study}/results.csv")
    assert list(on_disk["task"]) == list(results["task"])
    pd.testing.assert_series_equal(on_disk["pass@1"], results["pass@1"], check_exact=False, check_dtype=False)
    pd.testing.assert_frame_equal(api.load_results(study), results)


def test_load_samples_joins_every_sample_with_its_verdict(results):
    samples = api.load_samples(results.attrs["study_dir"])
    assert len(samples) == len(TASKS) * 2
    for column in ("checkpoint", "task", "problem_id", "sample_index", "completion", "gold", "correct", "status"):
        assert column in samples.columns, column
    for row in samples.itertuples():
        kind, policy = ("number", "gsm8k") if row.task == "gsm8k" else ("choice", "choice")
        verdict = api.verify(gold=row.gold, completion=row.completion, kind=kind, policy=policy)
        assert (row.correct, row.status) == (verdict.correct, verdict.status.value)
    per_task = samples.groupby("task")["correct"].mean()
    for task, pass_at_1 in zip(results["task"], results["pass@1"]):
        assert per_task[task] == pytest.approx(pass_at_1)


def test_evaluate_into_existing_study_resumes_without_generating(results, tiny_checkpoint, data_dir, monkeypatch):
    import kleval.backends as backends

    def refuse(*args, **kwargs):
        raise AssertionError("a finished study must not start a backend")

    monkeypatch.setattr(backends, "make_backend", refuse)
    again = api.evaluate([str(tiny_checkpoint)], ",".join(TASKS), n=1, limit=2, max_tokens=8, data_dir=data_dir,
                         out=results.attrs["study_dir"], progress=False, device="cpu")
    pd.testing.assert_frame_equal(again, results)


def test_helpers_and_errors():
    assert {"math500", "gsm8k"} <= set(api.list_tasks())
    assert api.verify(gold="18", completion="so #### 18", kind="number", policy="gsm8k").correct
    with pytest.raises(ConfigError, match="no tasks"):
        api.evaluate("unused", " , ")
    with pytest.raises(ConfigError, match="k <= n"):
        api.evaluate("unused", ["gsm8k"], n=1, k=(1, 2))
