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
