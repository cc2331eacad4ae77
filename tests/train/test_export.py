"""`kleval train --export`: other trainers' settings, with a verdict computed by reading them back."""
from dataclasses import replace

import pytest

from kleval.cli import main
from kleval.klconfig import PRESETS, KLConfig, trainers
from kleval.train.export import _nest, export
from kleval.train.tiny import tiny_config


def _config(preset, **changes):
    return replace(tiny_config(preset, base_dir="b", beta=0.05), **changes)


def test_verl_export_carries_group_size_and_kl_keys():
    out = export(_config("k1-reward", algorithm="grpo"), "verl")
    assert out.settings["actor_rollout_ref.rollout.n"] == 8  # without it verl samples one response per prompt
    assert out.settings["algorithm.use_kl_in_reward"] is True and out.settings["algorithm.kl_penalty"] == "kl"
    assert out.settings["actor_rollout_ref.actor.use_kl_loss"] is False
    assert out.verdict == "reproduces"
    loss = export(_config("k3-loss"), "verl")
    assert loss.settings["actor_rollout_ref.actor.kl_loss_type"] == "low_var_kl"
    assert loss.settings["actor_rollout_ref.actor.kl_loss_coef"] == 0.05
    assert loss.verdict.startswith("approximates: it hard-clamps the estimate to [-10, 10]")


def test_openrlhf_export_uses_current_dotted_flags():
    out = export(_config("k3-loss", loss_aggregation="token-mean"), "openrlhf")
    text = out.render()
    assert "--rollout.n_samples_per_prompt 8" in text and "--algo.kl.use_loss" in text
    assert "--algo.kl.init_coef 0.05" in text and "--algo.kl.estimator k3" in text
    for removed in ("--init_kl_coef", "--use_kl_loss", "--n_samples_per_prompt", "--advantage_estimator"):
        assert removed not in text
    assert out.verdict.startswith("approximates: it hard-clamps")


def test_verdict_words_are_consistent():
    for name in PRESETS:
        for target in ("verl", "openrlhf", "trl"):
            verdict = export(_config(name), target).verdict
            assert verdict == "reproduces" or verdict.startswith(("approximates: ", "cannot reproduce: "))
    assert export(_config("k2-loss"), "trl").verdict.startswith("cannot reproduce")
    assert export(_config("k3-both"), "openrlhf").verdict.startswith("cannot reproduce")
    assert export(_config("k1-reward"), "trl").verdict == "reproduces"
    assert export(_config("none", algorithm="grpo", loss_aggregation="token-mean"), "trl").verdict == "reproduces"
    assert "sequence granularity" in export(_config("k3-loss", kl=KLConfig(granularity="sequence")), "verl").verdict


@pytest.mark.parametrize("target", ["verl", "openrlhf", "trl"])
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_round_trip_gives_the_same_kl_config(name, target):
    """Export a preset, read it back through the checkpoint reader: the same KLConfig (up to the
    trainer's hard clamp, which the verdict names)."""
    config = _config(name, algorithm="grpo", loss_aggregation="token-mean")
    out = export(config, target)
    if out.unexpressible:
        return
    if target == "verl":
        read = trainers.from_verl(_nest(out.settings)).settings
    elif target == "openrlhf":
        read = trainers.from_openrlhf(out.settings).settings
    else:
        read = trainers.from_trl("rloo" if out.config_class == "RLOOConfig" else "grpo", out.settings).settings
    kl = read.kl if read.kl.clamp_mode != "hard" else replace(read.kl, clamp=None)
    assert kl == config.kl.canonical()
    assert read.group_size == config.samples_per_prompt
    assert (read.kl.clamp_mode == "hard") == ("hard-clamps" in out.verdict)


def test_trl_export_sets_bias_correction_from_importance_weighting():
    plain = export(_config("k3-loss", algorithm="grpo", loss_aggregation="token-mean"), "trl")
    assert plain.settings["use_bias_correction_kl"] is False and plain.verdict == "reproduces"
    weighted = export(_config("k3-loss", algorithm="grpo", loss_aggregation="token-mean",
                              kl=KLConfig(beta=0.05, importance_weighting="token")), "trl")
    assert weighted.settings["use_bias_correction_kl"] is True and weighted.verdict == "reproduces"


def test_cli_export(capsys):
    assert main(["train", "--tiny", "--export", "trl", "--preset", "k3-loss", "--beta", "0.05"]) == 0
    assert "GRPOConfig(beta=0.05" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["k1-reward", "k3-loss", "k2-loss", "k3-both", "none"])
def test_round_trip_through_the_checkpoint_readers(name, tmp_path):
    """Exported settings written as each trainer saves them (verl: merged into its Hydra config;
    OpenRLHF: the nested args; TRL: its own config class, torch.save'd) read back to the same KL."""
    import json
    from pathlib import Path

    from omegaconf import OmegaConf

    from kleval.eval.trainer_configs import read_openrlhf, read_trl_args, read_verl

    config = _config(name, algorithm="grpo", loss_aggregation="token-mean")
    wanted = config.kl.canonical()

    def same(kl):
        return (replace(kl, clamp=None) if kl.clamp_mode == "hard" else kl) == wanted

    verl = export(config, "verl")
    hydra = OmegaConf.load(Path(__file__).parents[1] / "eval" / "fixtures" / "verl" / "config.yaml")
    for key, value in verl.settings.items():
        OmegaConf.update(hydra, key, value)
    OmegaConf.save(hydra, tmp_path / "config.yaml")
    assert same(read_verl(tmp_path / "config.yaml")[0].settings.kl)

    openrlhf = export(config, "openrlhf")
    if not openrlhf.unexpressible:
        (tmp_path / "args.json").write_text(json.dumps(_nest(openrlhf.settings)))
        assert same(read_openrlhf(tmp_path / "args.json")[0].settings.kl)

    trl_export = export(config, "trl")
    if not trl_export.unexpressible:
        trl = pytest.importorskip("trl")
        import torch

        args = getattr(trl, trl_export.config_class)(output_dir="out", report_to="none", use_cpu=True, bf16=False,
                                                     **{k: v for k, v in trl_export.settings.items() if v is not None})
        torch.save(args, tmp_path / "training_args.bin")
        assert same(read_trl_args(tmp_path / "training_args.bin")[0].settings.kl)


def _async(preset_name, level=10, **changes):
    from kleval.train.async_recipe import apply_recipe

    return apply_recipe(_config(preset_name, **changes), async_level=level)


def _trainer_policy_terms(settings, target, ratio, advantage):
    """Each trainer's per-token PPO policy loss with the exported clip settings, transcribed from
    verl core_algos.compute_policy_loss_vanilla, OpenRLHF models/loss.PolicyLoss and TRL 1.16
    GRPOTrainer._compute_loss (the formulas, not their code paths)."""
    import torch

    if target == "verl":
        low, high = settings["actor_rollout_ref.actor.clip_ratio_low"], settings["actor_rollout_ref.actor.clip_ratio_high"]
        c = settings["actor_rollout_ref.actor.clip_ratio_c"]
        clipped = torch.maximum(-advantage * ratio, -advantage * ratio.clamp(1 - low, 1 + high))
        return torch.where(advantage < 0, torch.minimum(-advantage * c, clipped), clipped)
    if target == "openrlhf":
        low, high = map(float, settings["actor.eps_clip_low_high"].split())
        clip1 = torch.minimum(ratio * advantage, ratio.clamp(1 - low, 1 + high) * advantage)
        clip2 = torch.maximum(clip1, settings["actor.dual_clip"] * advantage)
        return -torch.where(advantage < 0, clip2, clip1)
    low, high, delta = settings["epsilon"], settings["epsilon_high"], settings["delta"]
    return -torch.minimum(ratio.clamp(max=delta) * advantage, ratio.clamp(1 - low, 1 + high) * advantage)


@pytest.mark.parametrize("target", ["verl", "openrlhf", "trl"])
def test_async_recipe_ratio_cap_maps_to_each_trainers_clip_settings(target):
    """The exported clip settings give -clamp(r, 0, cap) * A for every ratio and advantage sign, with
    the same zero gradient above the cap as the recipe's own loss (async_recipe.async_loss)."""
    import torch

    from kleval.train.async_recipe import async_loss

    config = _async("none", level=0, algorithm="grpo", loss_aggregation="token-mean")
    out = export(config, target)
    assert not out.unexpressible and out.verdict == "reproduces"
    assert "actor_rollout_ref.actor.clip_ratio" not in out.settings and "actor.eps_clip" not in out.settings
    ratio = torch.tensor([0.05, 0.5, 1.0, 3.0, 7.9, 8.5, 40.0], dtype=torch.float64).repeat(2)
    advantage = torch.tensor([0.7] * 7 + [-0.4] * 7, dtype=torch.float64)
    log_ratio = ratio.log().requires_grad_()
    theirs = _trainer_policy_terms(out.settings, target, log_ratio.exp(), advantage)
    (grad_theirs,) = torch.autograd.grad(theirs.sum(), log_ratio)
    logp = log_ratio.detach().clone().requires_grad_()
    old = torch.zeros(14, 1, dtype=torch.float64)
    mask = torch.ones(14, 1, dtype=torch.float64)
    from kleval.train.loss import LossWeights

    ones = torch.ones(14, dtype=torch.float64)
    ours = async_loss(logp.unsqueeze(-1), old, old, advantage.unsqueeze(-1), mask, kl=config.kl, ratio_cap=8.0,
                      weights=LossWeights(ones, ones))
    (grad_ours,) = torch.autograd.grad(ours.policy, logp)
    expected = -ratio.clamp(0, 8) * advantage
    assert theirs.detach().tolist() == pytest.approx(expected.tolist(), rel=1e-12)
    assert grad_theirs.tolist() == pytest.approx(grad_ours.tolist(), rel=1e-12, abs=1e-15)
    assert grad_ours[5] == 0 and grad_ours[12] == 0  # above the cap: no gradient, either sign


def test_async_recipe_staleness_per_trainer():
    assert export(_async("k3-loss"), "verl").verdict.startswith("cannot reproduce: rollouts 10 updates stale")
    assert export(_async("none"), "trl").verdict.startswith("cannot reproduce: rollouts 10 updates stale")
    out = export(_async("k3-loss"), "openrlhf")
    assert out.settings["train.async_enable"] is True and out.settings["train.async_queue_size"] == 10
    assert out.settings["actor.dual_clip"] == 8.0 and "actor.eps_clip" not in out.settings
    assert "never held at exactly 10 updates" in out.verdict
    latest = export(replace(_async("k3-loss"), staleness_mode="latest"), "openrlhf")
    assert "depends on its timing" in latest.verdict and "never held" not in latest.verdict
    on_policy = export(_async("k3-loss", level=0), "verl")  # the on-policy recipe: verl has every part of it
    assert on_policy.verdict == "reproduces" and on_policy.settings["actor_rollout_ref.actor.clip_ratio_c"] == 8.0
    split = export(_async("k3-loss", level=0, micro_batch_size=64), "verl")
    assert "divides each micro-batch of 64 rows by its own tokens" in split.verdict
    assert "does not clamp KL values" in export(_async("k3-loss", level=0), "trl").verdict


def test_cli_refuses_what_a_trainer_cannot_express(capsys):
    assert main(["train", "--tiny", "--recipe", "async", "--export", "verl"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "verl cannot reproduce this configuration: rollouts 10 updates stale" in err
    assert main(["train", "--tiny", "--preset", "k2-loss", "--export", "trl"]) == 2
