"""Checkpoint discovery over real saved tiny models laid out like kleval, TRL, verl and OpenRLHF runs."""
from __future__ import annotations

import dataclasses
import enum
import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from kleval.eval.checkpoints import discover
from kleval.errors import CheckpointError

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "special_tokens_map.json")


def copy_model(source: Path, target: Path, *, tokenizer: bool = True) -> Path:
    target.mkdir(parents=True)
    for f in source.iterdir():
        if tokenizer or f.name not in TOKENIZER_FILES:
            shutil.copy(f, target / f.name)
    return target


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data))


def kleval_run(root: Path, model: Path, steps=(10, 20)) -> Path:
    run = root / "k1_reward_b0.1"
    for step in steps:
        d = copy_model(model, run / f"global_step_{step}")
        write_json(d / "kleval_run.json", {"kleval_version": "0.1.0", "step": step, "preset": "demo", "config": {
            "kl": {"estimator": "k1", "placement": "reward", "granularity": "token", "beta": 0.1},
            "algorithm": "rloo", "loss_aggregation": "seq-mean-token-sum", "samples_per_prompt": 8}})
    return run


def test_plain_model_directory(tiny_checkpoint):
    (c,) = discover(str(tiny_checkpoint))
    assert (c.format, c.step, c.run, c.settings, c.kl_label, c.label) == ("hf", None, None, None, None, "model")
    assert Path(c.tokenizer_path) == tiny_checkpoint


def test_kleval_run_directory_sorted_by_step(tiny_checkpoint, tmp_path):
    run = kleval_run(tmp_path, tiny_checkpoint, steps=(100, 20))
    found = discover(run)
    assert [(c.step, c.label, c.format, c.kl_label) for c in found] == [
        (20, "k1_reward_b0.1__step20", "kleval", "k1-reward β=0.1"),
        (100, "k1_reward_b0.1__step100", "kleval", "k1-reward β=0.1")]
    assert found[0].settings.group_size == 8 and found[0].settings.algorithm == "rloo"
    assert found[0].train_config["kl"]["placement"] == "reward"


def test_verl_run_reads_hydra_config_beside_the_run(tiny_checkpoint, tmp_path):
    run = tmp_path / "verl_exp"
    for step in (5, 15):
        copy_model(tiny_checkpoint, run / f"global_step_{step}" / "actor" / "huggingface")
    (run / ".hydra").mkdir()
    (run / ".hydra" / "config.yaml").write_text(
        "algorithm:\n  adv_estimator: grpo\n  use_kl_in_reward: true\n  kl_penalty: kl\n"
        "  kl_ctrl: {type: fixed, kl_coef: 0.05}\n"
        "actor_rollout_ref:\n  actor:\n    use_kl_loss: true\n    kl_loss_type: low_var_kl\n"
        "    kl_loss_coef: 0.05\n    loss_agg_mode: seq-mean-token-sum\n  rollout: {n: 4}\n")
    found = discover([str(run)])
    assert [(c.format, c.step, c.run) for c in found] == [("verl", 5, "verl_exp"), ("verl", 15, "verl_exp")]
    kl = found[0].kl
    assert (kl.placement, kl.estimator, kl.loss_estimator, kl.beta) == ("both", "k1", "k3", 0.05)
    assert found[0].settings.loss_aggregation == "seq-mean-token-sum" and found[0].settings.group_size == 4
    assert found[0].kl_label == "k1-reward+k3-loss clamp(hard)=10 seq-mean-token-sum β=0.05 (verl)"
    assert found[0].train_config["algorithm"]["adv_estimator"] == "grpo"
    # A single step directory is accepted too.
    (single,) = discover(str(run / "global_step_15"))
    assert single.step == 15 and single.format == "verl"


def test_verl_step_without_merged_weights_says_how_to_merge(tiny_checkpoint, tmp_path):
    hf = tmp_path / "exp" / "global_step_3" / "actor" / "huggingface"
    hf.mkdir(parents=True)
    shutil.copy(tiny_checkpoint / "config.json", hf / "config.json")
    with pytest.raises(CheckpointError, match="no model weights.*verl.model_merger"):
        discover(str(tmp_path / "exp"))


def test_openrlhf_hf_dirs_with_args_json(tiny_checkpoint, tmp_path):
    run = tmp_path / "ckpt_ppo"
    copy_model(tiny_checkpoint, run / "global_step40_hf")
    write_json(run / "args.json", {"init_kl_coef": 0.001, "use_kl_loss": True, "kl_estimator": "k3",
                                   "advantage_estimator": "group_norm", "n_samples_per_prompt": 8})
    (c,) = discover(str(run / "*_hf"))
    assert (c.format, c.step, c.run, c.label) == ("openrlhf", 40, "ckpt_ppo", "ckpt_ppo__step40")
    assert (c.kl.estimator, c.kl.placement, c.kl.beta) == ("k3", "loss", 0.001)
    assert c.train_config["advantage_estimator"] == "group_norm"


class IntervalStrategy(enum.Enum):
    STEPS = "steps"


def _pickle_trl_args(path: Path, class_name: str, **fields) -> None:
    """torch.save a config object whose class lives in a 'trl' module, as TRL's Trainer does."""
    import torch

    module = types.ModuleType("fake_trl_grpo_config")
    config_cls = dataclasses.make_dataclass(class_name, list(fields))
    config_cls.__module__ = module.__name__
    setattr(module, class_name, config_cls)
    sys.modules[module.__name__] = module
    try:
        torch.save(config_cls(**fields), path)
    finally:
        del sys.modules[module.__name__]


@pytest.mark.parametrize("class_name, fields, expected", [
    ("GRPOConfig", {"beta": 0.04, "loss_type": "dr_grpo", "save_strategy": IntervalStrategy.STEPS},
     ("k3-loss seq-sum-norm β=0.04 (trl-grpo)", "seq-sum-norm")),
    ("RLOOConfig", {"beta": 0.05, "num_generations": 4}, ("k1-reward β=0.05 (trl-rloo)", "seq-mean-token-sum")),
    ("GRPOConfig", {"beta": 0.0, "loss_type": "dapo"}, ("none (trl-grpo)", "token-mean")),
])
def test_trl_checkpoints_read_pickled_args_without_trl(tiny_checkpoint, tmp_path, class_name, fields, expected):
    run = tmp_path / "trl_out"
    for step in (50, 100):
        d = copy_model(tiny_checkpoint, run / f"checkpoint-{step}")
        write_json(d / "trainer_state.json", {"global_step": step, "log_history": []})
        _pickle_trl_args(d / "training_args.bin", class_name, **fields)
    found = discover(str(run))
    assert [(c.format, c.step, c.label) for c in found] == [
        ("trl", 50, "trl_out__step50"), ("trl", 100, "trl_out__step100")]
    assert (found[1].kl_label, found[1].settings.loss_aggregation) == expected
    if "save_strategy" in fields:
        assert found[1].train_config["save_strategy"] == "steps"


def test_pickled_args_never_run_code(tmp_path):
    import pickle

    from kleval.eval.trainer_configs import read_pickled_args

    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            import os

            return (os.system, (f"touch {marker}",))

    path = tmp_path / "training_args.bin"
    path.write_bytes(pickle.dumps({"beta": 0.1, "payload": Evil()}))
    _, fields = read_pickled_args(path)
    assert fields["beta"] == 0.1 and not marker.exists()


def test_missing_tokenizer_falls_back_or_fails(tiny_checkpoint, tmp_path):
    bare = copy_model(tiny_checkpoint, tmp_path / "bare", tokenizer=False)
    with pytest.raises(CheckpointError, match="no tokenizer files.*--tokenizer"):
        discover(str(bare))
    (c,) = discover(str(bare), tokenizer=tiny_checkpoint)
    assert Path(c.tokenizer_path) == tiny_checkpoint


def test_bad_paths_are_one_line_errors(tiny_checkpoint, tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        discover(str(tmp_path / "nope"))
    with pytest.raises(CheckpointError, match="matches no directory"):
        discover(str(tmp_path / "run_*"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CheckpointError, match="no checkpoint found"):
        discover(str(empty))
    no_weights = tmp_path / "noweights"
    no_weights.mkdir()
    shutil.copy(tiny_checkpoint / "config.json", no_weights / "config.json")
    with pytest.raises(CheckpointError, match="no model weights"):
        discover(str(no_weights))
    corrupt = copy_model(tiny_checkpoint, tmp_path / "corrupt")
    (corrupt / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="config.json.*corrupt"):
        discover(str(corrupt))


def test_glob_over_runs_gives_unique_safe_labels(tiny_checkpoint, tmp_path):
    for name in ("run a", "run+b"):
        kleval_run(tmp_path / name, tiny_checkpoint, steps=(10,))
    copy_model(tiny_checkpoint, tmp_path / "x1" / "model")
    copy_model(tiny_checkpoint, tmp_path / "x2" / "model")
    found = discover([str(tmp_path / "run*" / "*"), str(tmp_path / "x*" / "model"), str(tmp_path / "x1" / "model")])
    labels = [c.label for c in found]
    assert len(labels) == len(set(labels)) == 4  # the repeated x1/model spec is counted once
    assert all(all(ch.isalnum() or ch in "._-" for ch in label) for label in labels)
    assert {"x1__model", "x2__model"} <= set(labels)


def test_checkpoints_json_round_trip_and_older_entries():
    from kleval.eval.checkpoints import Checkpoint
    from kleval.klconfig import KLConfig, RunSettings

    settings = RunSettings("verl", KLConfig("k3", "loss", 0.001, clamp=10.0, clamp_mode="hard"), "grpo", "token-mean", 8)
    ckpt = Checkpoint(Path("exp/global_step_1/actor/huggingface"), "exp__step1", "verl", 1, "exp", "tok", settings)
    assert Checkpoint.from_dict(json.loads(json.dumps(ckpt.to_dict()))) == ckpt
    old_kleval = {"label": "r__step2", "format": "kleval", "step": 2, "run": "r", "preset": "k1-reward",
                  "kl": {"estimator": "k1", "placement": "reward", "beta": 1.0, "source": "kleval"},
                  "train_config": {"kl": {"estimator": "k1", "placement": "reward", "beta": 1.0},
                                   "algorithm": "rloo", "loss_aggregation": "seq-mean-token-sum"}}
    assert Checkpoint.from_dict(old_kleval).kl_label == "k1-reward β=1"
    old_foreign = {"label": "o", "format": "openrlhf", "kl": {"estimator": "k1+k3", "placement": "both",
                                                              "beta": None, "source": "openrlhf"}}
    assert Checkpoint.from_dict(old_foreign).kl_label == "unknown (openrlhf)"
    assert Checkpoint.from_dict({"label": "base", "format": "hf"}).settings is None
