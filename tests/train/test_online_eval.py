"""kleval train --eval-every: the policy is evaluated into a normal study while it trains."""
import csv
from pathlib import Path

import pytest

from kleval.train.online_eval import OnlineEval
from kleval.train.tiny import COMMITTED_BASE, tiny_config


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    if (COMMITTED_BASE / "model.safetensors").exists():
        return COMMITTED_BASE
    from kleval.train.base import build_tiny_base

    return build_tiny_base(tmp_path_factory.mktemp("base"), steps=20, batch_size=64)


def _results(study: Path) -> dict:
    with open(study / "results.csv", newline="", encoding="utf-8") as handle:
        return {(r["checkpoint"], r["task"]): r for r in csv.DictReader(handle)}


def test_train_evaluates_every_n_steps_into_a_study(base_dir, tmp_path):
    from kleval.train.loop import train

    run_dir, study = tmp_path / "run", tmp_path / "study"
    online = OnlineEval(every=2, tasks=("arith_add",), out=study, limit=6, n=2, max_tokens=8)
    config = tiny_config("k1-reward", base_dir=base_dir, steps=3, save_every=10, prompts_per_step=4,
                         samples_per_prompt=4)
    train(config, run_dir, progress=False, online_eval=online)
    assert (run_dir / "global_step_2" / "model.safetensors").exists()  # saved for the evaluation (save_every 10)
    results = _results(study)
    steps = sorted(r["step"] for r in results.values())
    assert steps == ["", "2"]  # the base (no step) and step 2; step 3 is not a multiple of 2
    assert {r["num_problems"] for r in results.values()} == {"6"} and {r["n"] for r in results.values()} == {"2"}
    # resuming to step 4 evaluates step 4 only; what was graded stays as it was
    train(config.with_overrides(steps=4), run_dir, progress=False, online_eval=online)
    assert sorted(r["step"] for r in _results(study).values()) == ["", "2", "4"]

    from kleval.report import build_report

    files = build_report(study, tmp_path / "report", k=1, figures=True)
    assert (tmp_path / "report" / "accuracy_vs_step.png").exists() and files.index_html.exists()


@pytest.mark.parametrize("argv, message", [
    (["--eval-every", "2"], "--eval-tasks"),
    (["--eval-every", "2", "--eval-tasks", "no_such_task"], "no_such_task"),
    (["--eval-tasks", "arith_add"], "--eval-every"),
    (["--eval-every", "0", "--eval-tasks", "arith_add"], "--eval-every"),
])
def test_bad_online_eval_flags_are_one_line_errors(tmp_path, capsys, argv, message):
    from kleval.cli import main

    assert main(["train", "--tiny", "--steps", "1", "--out", str(tmp_path / "r"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "r" / "train_log.jsonl").exists()  # refused before any training
