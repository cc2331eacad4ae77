"""Other trainers' real saved configurations, read in kleval's terms: each gets its right label.

Fixtures: tests/eval/fixtures/trl-1.16/*.bin are training_args.bin files written by TRL 1.16's own
GRPOConfig/RLOOConfig (make_trl_fixtures.py); tests/eval/fixtures/verl/config.yaml is verl main's
generated ppo_trainer config composed as Hydra saves it (interpolations unresolved); OpenRLHF args
use the keys of openrlhf/cli/train_ppo_ray.py (>= 0.10.2: --algo.kl.init_coef, --algo.kl.estimator,
--algo.kl.use_loss, --algo.kl.target, --rollout.n_samples_per_prompt; older: --init_kl_coef,
--kl_estimator, --use_kl_loss, --kl_target, --n_samples_per_prompt).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kleval.eval.checkpoints import discover
from kleval.eval.trainer_configs import read_openrlhf, read_trainer_config, read_trl_args, read_verl
from kleval.klconfig import LOSS_AGGREGATIONS, KLConfig

FIXTURES = Path(__file__).parent / "fixtures"


def copy_model(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


# ---- TRL 1.16 --------------------------------------------------------------------------------


@pytest.mark.parametrize("case, label, aggregation", [
    ("grpo_bias_corrected", "k3-loss iw-token β=0.04 (trl-grpo)", "token-mean"),  # 1.16's default: corrected
    ("grpo_plain_dr_grpo", "k3-loss seq-sum-norm β=0.04 (trl-grpo)", "seq-sum-norm"),
    ("grpo_no_kl", "none (trl-grpo)", "token-mean"),
    ("rloo", "k1-reward β=0.05 (trl-rloo)", "seq-mean-token-sum"),
])
def test_trl_real_training_args(case, label, aggregation):
    reading, args = read_trl_args(FIXTURES / "trl-1.16" / f"{case}.bin")
    assert reading.settings.label() == label
    assert reading.settings.loss_aggregation == aggregation and aggregation in LOSS_AGGREGATIONS
    assert args["config_class"] in ("GRPOConfig", "RLOOConfig")


def test_trl_bias_correction_is_the_token_importance_weight():
    corrected, _ = read_trl_args(FIXTURES / "trl-1.16" / "grpo_bias_corrected.bin")
    assert corrected.settings.kl == KLConfig("k3", "loss", 0.04, importance_weighting="token")
    plain, _ = read_trl_args(FIXTURES / "trl-1.16" / "grpo_plain_dr_grpo.bin")
    assert plain.settings.algorithm == "grpo-mean" and plain.settings.group_size == 4  # scale_rewards="none"


def test_fixtures_match_what_trl_writes_today(tmp_path):
    pytest.importorskip("trl")
    import sys

    sys.path.insert(0, str(FIXTURES))
    try:
        from make_trl_fixtures import CASES, build
    finally:
        sys.path.pop(0)
    for case in CASES:
        fresh, _ = read_trl_args(build(case, tmp_path))
        stored, _ = read_trl_args(FIXTURES / "trl-1.16" / f"{case}.bin")
        assert fresh.settings == stored.settings


# ---- verl main: Hydra output directory, interpolations --------------------------------------------


def verl_layout(root: Path, model: Path, overrides: dict | None = None, experiment: str = "grpo_k3_loss") -> Path:
    """A verl launch directory: outputs/DATE/TIME/.hydra/{config,hydra}.yaml and checkpoints/PROJECT/EXP/."""
    from omegaconf import OmegaConf

    config = OmegaConf.load(FIXTURES / "verl" / "config.yaml")
    OmegaConf.update(config, "trainer.experiment_name", experiment)
    for key, value in (overrides or {}).items():
        OmegaConf.update(config, key, value)
    hydra = root / "outputs" / "2026-07-01" / f"12-00-{len(list(root.glob('outputs/*/*'))):02d}" / ".hydra"
    hydra.mkdir(parents=True)
    OmegaConf.save(config, hydra / "config.yaml")
    (hydra / "hydra.yaml").write_text(f"hydra:\n  runtime:\n    cwd: {root}\n")
    run = root / "checkpoints" / "kleval_fixture" / experiment
    for step in (10, 20):
        copy_model(model, run / f"global_step_{step}" / "actor" / "huggingface")
    return run


def test_verl_hydra_output_dir_is_found_and_interpolations_resolved(tiny_checkpoint, tmp_path):
    run = verl_layout(tmp_path, tiny_checkpoint)
    verl_layout(tmp_path, tiny_checkpoint, {"algorithm.kl_ctrl.kl_coef": 0.5}, experiment="other_run")
    found = discover(str(run))
    assert [c.step for c in found] == [10, 20]
    settings = found[0].settings
    assert settings.kl == KLConfig("k3", "loss", 0.001, clamp=10.0, clamp_mode="hard")  # ${algorithm.kl_ctrl.kl_coef}
    assert (settings.algorithm, settings.loss_aggregation, settings.group_size) == ("grpo", "token-mean", 8)
    assert found[0].kl_label == "k3-loss clamp(hard)=10 β=0.001 (verl)"
    other = discover(str(tmp_path / "checkpoints" / "kleval_fixture" / "other_run"))
    assert other[0].kl.beta == 0.5  # each run matched to its own Hydra config via trainer.default_local_dir


def test_verl_straight_through_and_reward_only(tiny_checkpoint, tmp_path):
    plus = verl_layout(tmp_path / "a", tiny_checkpoint, {"actor_rollout_ref.actor.kl_loss_type": "k3+"})
    assert discover(str(plus))[0].kl_label == "k3+-loss clamp(hard)=10 β=0.001 (verl)"
    reward = verl_layout(tmp_path / "b", tiny_checkpoint, {
        "actor_rollout_ref.actor.use_kl_loss": False, "algorithm.use_kl_in_reward": True,
        "algorithm.kl_ctrl.kl_coef": 0.02})
    (c,) = discover(str(reward / "global_step_20"))
    assert c.kl == KLConfig("k1", "reward", 0.02)  # the unused loss-side low_var_kl does not clamp it
    assert c.kl_label == "k1-reward β=0.02 (verl)"
    adaptive = verl_layout(tmp_path / "c", tiny_checkpoint, {
        "actor_rollout_ref.actor.use_kl_loss": False, "algorithm.use_kl_in_reward": True,
        "algorithm.kl_ctrl.type": "adaptive", "algorithm.kl_ctrl.target_kl": 0.2})
    assert discover(str(adaptive))[0].kl.adaptive_target == 0.2


def test_verl_broken_interpolation_is_unknown_with_a_warning(tiny_checkpoint, tmp_path, capsys):
    run = verl_layout(tmp_path, tiny_checkpoint, {"actor_rollout_ref.actor.kl_loss_coef": "${algorithm.nope}"})
    found = discover(str(run))
    assert found[0].kl_label == "unknown (verl)"
    err = capsys.readouterr().err
    assert "cannot resolve actor_rollout_ref.actor.kl_loss_coef" in err and "Traceback" not in err


def test_verl_without_a_config_is_unknown_never_none(tiny_checkpoint, tmp_path, capsys):
    run = tmp_path / "exp"
    copy_model(tiny_checkpoint, run / "global_step_3" / "actor" / "huggingface")
    (c,) = discover(str(run))
    assert c.kl_label == "unknown (verl)" and c.kl is None
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--trainer-config" in err[0]
    # --trainer-config names the Hydra config saved elsewhere
    verl_layout(tmp_path / "elsewhere", tiny_checkpoint)
    config = next((tmp_path / "elsewhere").glob("outputs/*/*/.hydra/config.yaml"))
    (c,) = discover(str(run), trainer_config=config)
    assert c.kl_label == "k3-loss clamp(hard)=10 β=0.001 (verl)"


# ---- OpenRLHF, >= 0.10.2 nested and the older flat style ---------------------------------------------

NESTED = {"algo": {"kl": {"init_coef": 0.001, "estimator": "k3", "use_loss": True, "target": None, "horizon": 10000},
                   "advantage": {"estimator": "group_norm", "no_std_norm": False}},
          "rollout": {"n_samples_per_prompt": 8, "temperature": 1.0}, "actor": {"eps_clip": 0.2}}
DOTTED = {"algo.kl.init_coef": 0.001, "algo.kl.estimator": "k3", "algo.kl.use_loss": True,
          "algo.advantage.estimator": "group_norm", "rollout.n_samples_per_prompt": 8}
FLAT = {"init_kl_coef": 0.001, "kl_estimator": "k3", "use_kl_loss": True, "kl_target": None,
        "advantage_estimator": "group_norm", "n_samples_per_prompt": 8}


@pytest.mark.parametrize("args", [NESTED, DOTTED, FLAT], ids=["nested", "dotted", "flat"])
def test_openrlhf_both_styles(args, tmp_path):
    path = tmp_path / "args.json"
    path.write_text(json.dumps(args))
    reading, _ = read_openrlhf(path)
    assert reading.settings.label() == "k3-loss clamp(hard)=10 β=0.001 (openrlhf)"
    assert (reading.settings.algorithm, reading.settings.group_size) == ("grpo", 8)


def test_openrlhf_reward_side_and_adaptive(tmp_path):
    path = tmp_path / "args.json"
    path.write_text(json.dumps({"algo": {"kl": {"init_coef": 0.01, "estimator": "k1", "use_loss": False,
                                                "target": 0.1}}}))
    reading, _ = read_openrlhf(path)
    assert reading.settings.kl == KLConfig("k1", "reward", 0.01, clamp=10.0, clamp_mode="hard", adaptive_target=0.1)


def test_openrlhf_without_kl_keys_is_unknown(tiny_checkpoint, tmp_path, capsys):
    run = tmp_path / "ckpt"
    copy_model(tiny_checkpoint, run / "global_step5_hf")
    (run / "args.json").write_text(json.dumps({"pretrain": "Qwen/Qwen2.5-0.5B"}))
    (c,) = discover(str(run / "global_step5_hf"))
    assert c.kl_label == "unknown (openrlhf)"
    assert "no KL settings" in capsys.readouterr().err


def test_trainer_config_recognises_formats_by_content(tmp_path):
    nested = tmp_path / "openrlhf.json"
    nested.write_text(json.dumps(NESTED))
    assert read_trainer_config(nested)[0] == "openrlhf"
    verl = tmp_path / "config.yaml"
    shutil.copy(FIXTURES / "verl" / "config.yaml", verl)
    fmt, reading, _ = read_trainer_config(verl)
    assert fmt == "verl" and reading.settings.kl.beta == 0.001
    assert read_verl(verl)[0] == reading
    assert read_trainer_config(FIXTURES / "trl-1.16" / "rloo.bin")[1].settings.trainer == "trl-rloo"


def test_three_trainers_at_one_beta_are_three_labels(tmp_path):
    """A sequence-level K3-loss kleval run, a verl run and an OpenRLHF run at the same beta."""
    from kleval.klconfig import RunSettings

    path = tmp_path / "args.json"
    path.write_text(json.dumps(NESTED))
    verl = tmp_path / "config.yaml"
    shutil.copy(FIXTURES / "verl" / "config.yaml", verl)
    labels = {RunSettings("kleval", KLConfig("k3", "loss", 0.001, granularity="sequence")).label(),
              read_verl(verl)[0].settings.label(), read_openrlhf(path)[0].settings.label()}
    assert len(labels) == 3
