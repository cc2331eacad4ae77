"""`kleval train --export`: other trainers' overrides, and plain words for what they cannot express."""
from kleval.cli import main
from kleval.train.export import export
from kleval.train.tiny import tiny_config


def test_verl_overrides_follow_the_preset():
    out = export(tiny_config("k1-reward", base_dir="b", beta=0.1), "verl")
    assert "algorithm.use_kl_in_reward=True" in out.overrides and "algorithm.kl_penalty=kl" in out.overrides
    assert "actor_rollout_ref.actor.use_kl_loss=False" in out.overrides
    loss = export(tiny_config("k3-loss", base_dir="b", beta=0.1), "verl")
    assert "actor_rollout_ref.actor.kl_loss_type=low_var_kl" in loss.overrides
    assert "actor_rollout_ref.actor.kl_loss_coef=0.1" in loss.overrides


def test_unexpressible_configurations_say_so():
    assert not export(tiny_config("k3-both", base_dir="b"), "openrlhf").expressible
    assert not export(tiny_config("k2-loss", base_dir="b"), "trl").expressible
    assert export(tiny_config("k1-reward", base_dir="b"), "trl").expressible
    assert "CANNOT" in export(tiny_config("k1-loss", base_dir="b"), "trl").render()


def test_cli_export(capsys):
    assert main(["train", "--tiny", "--export", "trl", "--preset", "k3-loss", "--beta", "0.05"]) == 0
    assert "GRPOConfig(beta=0.05" in capsys.readouterr().out
