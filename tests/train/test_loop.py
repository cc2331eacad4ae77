"""A real tiny training run: step directories load as HF checkpoints, logs are complete, resume is exact."""
import json

import pytest
import torch

from kleval.cli import main
from kleval.errors import ConfigError
from kleval.train.checkpoint import load_trainer_state
from kleval.train.diagnostics import read_log
from kleval.train.loop import train
from kleval.train.tiny import COMMITTED_BASE, tiny_config

SMALL = dict(prompts_per_step=4, samples_per_prompt=4)
LOG_KEYS = {"step", "reward", "accuracy", "response_length", "truncation_rate", "entropy", "kl_k1", "kl_k2", "kl_k3",
            "kl_exact", "kl_exact_forward", "loss", "pg_loss", "kl_loss", "grad_norm", "importance_weight_mean",
            "importance_weight_max", "clip_fraction", "kl_beta_effective_per_sequence", "time"}


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    """The committed tiny base when present; otherwise a briefly trained one (same shape and tokenizer)."""
    if (COMMITTED_BASE / "model.safetensors").exists():
        return COMMITTED_BASE
    from kleval.train.base import build_tiny_base

    return build_tiny_base(tmp_path_factory.mktemp("base"), steps=20, batch_size=64)


def test_short_run_writes_loadable_step_dirs(base_dir, tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    config = tiny_config("k3-loss", base_dir=base_dir, beta=0.5, steps=3, save_every=2, **SMALL)
    last = train(config, tmp_path, progress=False)
    assert last.name == "global_step_3" and (tmp_path / "global_step_2").is_dir()
    for step in (2, 3):
        directory = tmp_path / f"global_step_{step}"
        meta = json.loads((directory / "kleval_run.json").read_text())
        assert meta["step"] == step and meta["preset"] == "k3-loss" and meta["seed"] == 0
        assert meta["config"]["kl"] == {"estimator": "k3", "placement": "loss", "beta": 0.5, "granularity": "token",
                                        "importance_weighting": "none", "clamp": None,
                                        "clamp_mode": "straight-through", "gradient_estimator": None,
                                        "loss_estimator": None, "loss_beta": None, "adaptive_target": None}
        AutoModelForCausalLM.from_pretrained(directory)
        AutoTokenizer.from_pretrained(directory)
    assert (tmp_path / "global_step_3" / "trainer_state.json").exists()
    assert not (tmp_path / "global_step_2" / "trainer_state.json").exists()
    rows = read_log(tmp_path)
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert LOG_KEYS <= set(rows[0])
    assert all(r["kl_exact"] >= 0 and r["kl_exact_forward"] >= 0 and 0 <= r["reward"] <= 1 for r in rows)


def test_resume_continues_exactly_where_it_stopped(base_dir, tmp_path):
    straight = tiny_config("k1-reward", base_dir=base_dir, steps=4, save_every=2, **SMALL)
    train(straight, tmp_path / "straight", progress=False)
    train(straight.with_overrides(steps=2), tmp_path / "resumed", progress=False)
    train(straight, tmp_path / "resumed", progress=False)
    a = load_trainer_state(tmp_path / "straight" / "global_step_4")
    b = load_trainer_state(tmp_path / "resumed" / "global_step_4")
    for key, value in a["optimizer"]["state"][0].items():
        assert torch.allclose(value, b["optimizer"]["state"][0][key]), key
    rows_a, rows_b = read_log(tmp_path / "straight"), read_log(tmp_path / "resumed")
    assert [r["step"] for r in rows_b] == [1, 2, 3, 4]
    assert [r["reward"] for r in rows_a] == [r["reward"] for r in rows_b]


def test_a_run_dir_refuses_a_different_configuration(base_dir, tmp_path):
    train(tiny_config("k1-loss", base_dir=base_dir, steps=1, **SMALL), tmp_path, progress=False)
    with pytest.raises(ConfigError, match="different settings"):
        train(tiny_config("k3-loss", base_dir=base_dir, steps=2, **SMALL), tmp_path, progress=False)


def test_off_policy_grpo_run_with_staleness_and_ppo_epochs(base_dir, tmp_path):
    config = tiny_config("k3-both", base_dir=base_dir, steps=3, algorithm="grpo", loss_aggregation="token-mean",
                         ppo_epochs=2, staleness=1, **SMALL)
    train(config, tmp_path, progress=False)
    rows = read_log(tmp_path)
    assert len(rows) == 3
    assert any(r["importance_weight_max"] != 1.0 for r in rows)  # the second epoch is off-policy
    meta = json.loads((tmp_path / "kleval_run.json").read_text())
    assert meta["config"]["on_policy"] is False and meta["config"]["staleness"] == 1


def test_cli_train_tiny(base_dir, tmp_path, capsys):
    code = main(["train", "--tiny", "--model", str(base_dir), "--preset", "k1-reward", "--beta", "0.2",
                 "--steps", "2", "--prompts-per-step", "2", "--samples-per-prompt", "2", "--out", str(tmp_path),
                 "--no-progress"])
    assert code == 0 and "global_step_2" in capsys.readouterr().out
    meta = json.loads((tmp_path / "global_step_2" / "kleval_run.json").read_text())
    assert meta["config"]["kl"]["beta"] == 0.2 and meta["config"]["kl"]["placement"] == "reward"


def test_build_tiny_base_saves_a_loadable_char_model(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from kleval.train.base import build_tiny_base, column_answer_without_carry

    assert column_answer_without_carry(47, 38, "+") == 75 and column_answer_without_carry(52, 38, "-") == 26
    out = build_tiny_base(tmp_path / "base", steps=2, batch_size=8)
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert tokenizer.decode(tokenizer("12+34=")["input_ids"]) == "12+34="
    assert "<|assistant|>" in tokenizer.all_special_tokens
    assert sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(out).parameters()) < 3_000_000


def test_hf_rollouts_with_padded_prompts_and_a_bpe_model(tiny_checkpoint, tmp_path):
    """The path for bigger models: `generate` rollouts, left-padded prompts of different lengths."""
    from kleval.train.config import TrainConfig
    from kleval.klconfig import preset

    config = TrainConfig(model=str(tiny_checkpoint), task="arith_sub", kl=preset("k1-both", beta=0.1),
                         preset="k1-both", rollout_backend="hf", steps=2, prompts_per_step=3, samples_per_prompt=2,
                         max_new_tokens=4, save_every=2, algorithm="grpo", loss_aggregation="seq-sum-norm")
    last = train(config, tmp_path, progress=False)
    rows = read_log(tmp_path)
    assert last.name == "global_step_2" and len(rows) == 2
    assert all(0 < r["response_length"] <= 4 for r in rows)


def test_ppo_epochs_log_each_epochs_loss_terms_apart(base_dir, tmp_path):
    """The KL statistics describe the policy before the first update, so the row's loss terms are
    epoch 1's (on-policy: importance weights exactly 1) and later epochs get their own keys."""
    config = tiny_config("k3-loss", base_dir=base_dir, steps=2, ppo_epochs=3, grad_norm_split_every=1, **SMALL)
    train(config, tmp_path, progress=False)
    for row in read_log(tmp_path):
        assert row["loss_terms_epoch"] == 1
        assert row["importance_weight_max"] == pytest.approx(1.0, abs=1e-5) and row["clip_fraction"] == 0.0
        assert {f"epoch{k}_{key}" for k in (2, 3) for key in ("loss", "grad_norm", "grad_norm_kl", "clip_fraction")} <= set(row)
        assert row["epoch3_importance_weight_max"] != pytest.approx(1.0, abs=1e-5)  # later epochs are off-policy
