"""KLConfig, presets, labels and RunSettings: one spelling per configuration, one name per spelling."""
from dataclasses import replace

import pytest

from kleval.errors import ConfigError
from kleval.klconfig import PRESETS, KLConfig, RunSettings, preset, preset_name


def test_every_preset_is_named_by_its_label():
    for name, config in PRESETS.items():
        assert config.name == name and preset_name(config) == name
    assert preset("k3-loss", beta=0.3).label() == "k3-loss β=0.3"
    assert PRESETS["none"].label() == "none"


def test_labels_tell_apart_what_presets_do_not():
    labels = {
        KLConfig(granularity="sequence").label(),
        KLConfig(importance_weighting="token").label(),
        KLConfig(clamp=10.0).label(),
        KLConfig(clamp=10.0, clamp_mode="hard").label(),
        KLConfig(gradient_estimator="k2").label(),
        KLConfig(adaptive_target=0.1).label(),
        KLConfig(placement="both", estimator="k1", loss_estimator="k3").label(),
        KLConfig(placement="both", loss_beta=0.05).label(),
        KLConfig().label(),
        KLConfig(beta=0.3).label(),
    }
    assert len(labels) == 10
    assert KLConfig(granularity="sequence", beta=0.1).label() == "k3-loss seq β=0.1"
    assert KLConfig(gradient_estimator="k2").name == "k3+-loss"  # verl's spelling of straight-through K2 gradient
    assert preset_name(KLConfig(granularity="sequence")) is None


def test_no_kl_has_one_spelling():
    for off in (KLConfig(beta=0.0), KLConfig(estimator="none"), KLConfig(placement="both", beta=0.0, loss_beta=0.0)):
        assert off.canonical() == PRESETS["none"] and off.label() == "none" and not off.active


def test_both_with_one_side_off_is_that_side():
    config = KLConfig(estimator="k1", placement="both", beta=0.0, loss_estimator="k3", loss_beta=0.2)
    assert config.canonical() == KLConfig(estimator="k3", placement="loss", beta=0.2)
    assert config.in_loss and not config.in_reward


def test_k1_granularity_does_not_matter():
    assert KLConfig("k1", "reward", granularity="sequence").canonical() == PRESETS["k1-reward"]
    assert KLConfig("k3", "reward", granularity="sequence").canonical() != PRESETS["k3-reward"]


def test_refuses_inconsistent_settings():
    with pytest.raises(ConfigError, match="importance_weighting 'token' needs granularity 'token'"):
        KLConfig(importance_weighting="token", granularity="sequence")
    with pytest.raises(ConfigError, match="placement 'both'"):
        KLConfig(loss_estimator="k1")
    with pytest.raises(ConfigError, match="clamp_mode"):
        KLConfig(clamp=1.0, clamp_mode="soft")
    with pytest.raises(ConfigError, match="unknown KL settings"):
        KLConfig.from_dict({"estimator": "k3", "bogus": 1})


def test_dict_round_trip_and_redundant_fields_dropped():
    config = KLConfig("k1", "both", 0.2, loss_estimator="k1", loss_beta=0.2, clamp=None, clamp_mode="hard")
    assert config == KLConfig("k1", "both", 0.2)
    weird = KLConfig("k3", "both", 0.05, loss_estimator="k1", loss_beta=0.01, gradient_estimator="k2")
    assert KLConfig.from_dict(weird.to_dict()) == weird
    assert weird.label() == "k3+-reward+k1+-loss β=0.05/0.01"


def test_run_settings_label_and_row():
    kleval = RunSettings("kleval", preset("k3-loss", beta=0.001), "rloo", "seq-mean-token-sum", 8)
    verl = RunSettings("verl", KLConfig(beta=0.001, clamp=10.0, clamp_mode="hard"), "grpo", "token-mean", 8)
    unknown = RunSettings("openrlhf", None)
    assert kleval.label() == "k3-loss β=0.001"
    assert verl.label() == "k3-loss clamp(hard)=10 β=0.001 (verl)"
    assert unknown.label() == "unknown (openrlhf)"
    token_mean = RunSettings("kleval", preset("k3-loss", beta=0.1), "rloo", "token-mean", 8)
    assert token_mean.label() == "k3-loss token-mean β=0.1" and token_mean.name() == "k3-loss token-mean"
    reward_only = RunSettings("kleval", preset("k1-reward", beta=0.1), "rloo", "token-mean", 8)
    assert reward_only.label() == "k1-reward β=0.1"  # aggregation does not scale a reward-placed β
    row = verl.to_row()
    assert row["kl_clamp_mode"] == "hard" and row["trainer"] == "verl" and row["loss_aggregation"] == "token-mean"
    assert RunSettings.from_dict(verl.to_dict()) == verl
    assert unknown.to_row()["kl_estimator"] is None


def test_kleval_trainer_refuses_what_it_cannot_run():
    from kleval.train.config import TrainConfig

    with pytest.raises(ConfigError, match="straight-through"):
        TrainConfig(kl=KLConfig(gradient_estimator="k2"))
    TrainConfig(kl=replace(PRESETS["k3-both"], beta=0.2))
