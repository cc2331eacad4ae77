"""End to end through `kleval eval` and `kleval report`: kleval, TRL, verl and OpenRLHF runs at one
beta are labelled from their own configs, kept apart, and the study carries what the report needs.

Generation is replaced by a recording stand-in backend (the model is not what is under test here).
"""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from kleval.cli import main
from kleval.types import Completion

FIXTURES = Path(__file__).parent / "fixtures"


class RecordingBackend:
    calls: list = []

    def __init__(self, *args, **kwargs):
        pass

    def generate(self, prompts, params, chat=False):
        RecordingBackend.calls.append(params)
        return [[Completion(text="5", num_tokens=1, prompt_tokens=3, finish_reason="stop")] * params.n
                for _ in prompts]

    def close(self):
        pass


@pytest.fixture
def runs(tiny_checkpoint, tmp_path, monkeypatch):
    import kleval.backends

    from test_trainer_configs import verl_layout

    monkeypatch.setattr(kleval.backends, "make_backend", lambda *a, **k: RecordingBackend())
    RecordingBackend.calls = []
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    spec = (Path(__file__).parents[2] / "tasks" / "arith_add.toml").read_text()
    (tasks / "arith_stop.toml").write_text(spec.replace('name = "arith_add"', 'name = "arith_stop"')
                                           .replace("chat = false", 'chat = false\nstop = ["\\n\\n"]'))
    monkeypatch.setenv("KLEVAL_TASKS_DIR", str(tasks))
    kleval_run = tmp_path / "kleval_seq"
    for step in (3, 10):
        d = kleval_run / f"global_step_{step}"
        shutil.copytree(tiny_checkpoint, d)
        (d / "kleval_run.json").write_text(json.dumps({"step": step, "config": {
            "kl": {"estimator": "k3", "placement": "loss", "beta": 0.001, "granularity": "sequence"},
            "algorithm": "rloo", "loss_aggregation": "seq-mean-token-sum", "samples_per_prompt": 8}}))
    (kleval_run / "train_log.jsonl").write_text("".join(json.dumps({"step": s, "reward": 0.1 * s}) + "\n"
                                                        for s in range(1, 11)))
    verl = verl_layout(tmp_path / "verl", tiny_checkpoint)
    openrlhf = tmp_path / "openrlhf_run"
    shutil.copytree(tiny_checkpoint, openrlhf / "global_step10_hf")
    (openrlhf / "args.json").write_text(json.dumps({"algo": {"kl": {"init_coef": 0.001, "estimator": "k3",
                                                                    "use_loss": True}}}))
    trl = tmp_path / "trl_run" / "checkpoint-10"
    shutil.copytree(tiny_checkpoint, trl)
    shutil.copy(FIXTURES / "trl-1.16" / "grpo_bias_corrected.bin", trl / "training_args.bin")
    return [kleval_run, verl, openrlhf / "global_step10_hf", trl]


def test_eval_and_report_keep_every_configuration_apart(runs, tmp_path, capsys):
    out = tmp_path / "study"
    args = ["eval", "--checkpoints", *map(str, runs), "--tasks", "arith_stop", "--limit", "3", "--n", "2",
            "--out", str(out), "--no-progress"]
    assert main(args) == 0
    table = (out / "table.md").read_text()
    for label in ("k3-loss seq β=0.001", "k3-loss clamp(hard)=10 β=0.001 (verl)",
                  "k3-loss clamp(hard)=10 β=0.001 (openrlhf)", "k3-loss iw-token β=0.04 (trl-grpo)"):
        assert f"| {label} |" in table
    assert table.index("kleval_seq__step3") < table.index("kleval_seq__step10")  # steps sort as numbers
    assert all(p.stop == ("\n\n",) and p.max_tokens == 2048 for p in RecordingBackend.calls)  # the task's stop

    with open(out / "results.csv", newline="") as handle:
        rows = {r["checkpoint"]: r for r in csv.DictReader(handle)}
    seq = rows["kleval_seq__step10"]
    assert (seq["trainer"], seq["kl_granularity"], seq["loss_aggregation"], seq["group_size"]) == (
        "kleval", "sequence", "seq-mean-token-sum", "8")
    entries = {c["label"]: c for c in json.loads((out / "checkpoints.json").read_text())}
    copied = out / entries["kleval_seq__step10"]["train_log"]
    assert copied.is_file() and copied.parent == out / "train_logs"
    shutil.rmtree(runs[0])  # the report needs nothing outside the study

    assert main(["report", str(out), "--resamples", "50"]) == 0
    report = (out / "report" / "table.md").read_text()
    for name in ("k3-loss seq β=0.001", "k3-loss clamp(hard)=10 β=0.001 (verl)",
                 "k3-loss clamp(hard)=10 β=0.001 (openrlhf)", "k3-loss iw-token β=0.04 (trl-grpo)"):
        assert f"| {name} |" in report
    assert (out / "report" / "training_curves.png").is_file()


def test_trainer_config_flag_labels_checkpoints_saved_apart_from_their_config(tiny_checkpoint, tmp_path, monkeypatch,
                                                                              capsys):
    import kleval.backends

    monkeypatch.setattr(kleval.backends, "make_backend", lambda *a, **k: RecordingBackend())
    run = tmp_path / "copied_steps"
    shutil.copytree(tiny_checkpoint, run / "global_step_7" / "actor" / "huggingface")
    args = ["eval", "--checkpoints", str(run), "--tasks", "arith_add", "--limit", "2", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    captured = capsys.readouterr()
    assert "| unknown (verl) |" in captured.out and "--trainer-config" in captured.err
    config = tmp_path / "config.yaml"
    shutil.copy(FIXTURES / "verl" / "config.yaml", config)
    assert main([*args, "--out", str(tmp_path / "b"), "--trainer-config", str(config)]) == 0
    assert "| k3-loss clamp(hard)=10 β=0.001 (verl) |" in capsys.readouterr().out
