"""The async recipe's loss and advantages against hand computations, its config and a tiny run."""
import json
import math

import pytest
import torch

from kleval.errors import ConfigError
from kleval.klconfig import preset
from kleval.train.async_recipe import (apply_recipe, async_advantages, async_loss, micro_batch_weights,
                                       recipe_problems)
from kleval.train.config import TrainConfig
from kleval.train.tiny import COMMITTED_BASE, tiny_config

# 2 prompts x 2 samples, up to 3 tokens. Row 0 has a token with ratio e^2.5 > 8 (capped, no gradient);
# row 2 has a token with d = log pi - log ref = -3, K3 = e^3 - 1 - 3 = 16.1 > 10 (clamped, no gradient).
LOGP = [[-0.5, -1.0, -0.2], [-0.3, -0.4, 0.0], [-1.2, -3.5, -0.1], [-0.7, -0.2, -0.9]]
OLD = [[-0.6, -3.5, -0.2], [-0.3, -0.5, 0.0], [-1.0, -3.4, -0.3], [-0.7, -0.1, -1.0]]
REF = [[-0.4, -1.1, -0.3], [-0.2, -0.6, 0.0], [-1.1, -0.5, -0.2], [-0.9, -0.3, -0.8]]
MASK = [[1, 1, 1], [1, 1, 0], [1, 1, 1], [1, 1, 1]]
REWARDS = [1.0, 0.0, 0.0, 1.0]
BETA = 0.5


def _k3(d):
    return math.exp(-d) - 1 + d


def _hand(estimator: str, placement: str):
    """Loss value and d loss / d logp per token, in plain Python, for one micro-batch."""
    k = {"k1": lambda d: d, "k3": _k3}[estimator]
    dk = {"k1": lambda d: 1.0, "k3": lambda d: 1 - math.exp(-d)}[estimator]
    shaped = []
    for i in range(4):
        penalty = sum(max(-10.0, min(10.0, k(OLD[i][t] - REF[i][t]))) for t in range(3) if MASK[i][t])
        shaped.append(REWARDS[i] - (BETA * penalty if placement == "reward" else 0.0))
    adv = [shaped[i] - (shaped[2 * (i // 2)] + shaped[2 * (i // 2) + 1]) / 2 for i in range(4)]
    tokens = sum(map(sum, MASK))
    loss, grad = 0.0, [[0.0] * 3 for _ in range(4)]
    for i in range(4):
        for t in range(3):
            if not MASK[i][t]:
                continue
            r = math.exp(LOGP[i][t] - OLD[i][t])
            loss += -min(r, 8.0) * adv[i] / tokens
            grad[i][t] += (-r * adv[i] if r < 8.0 else 0.0) / tokens
            if placement == "loss":
                d = LOGP[i][t] - REF[i][t]
                loss += BETA * max(-10.0, min(10.0, k(d))) / tokens
                grad[i][t] += (BETA * dk(d) if abs(k(d)) < 10.0 else 0.0) / tokens
    return loss, grad, adv


@pytest.mark.parametrize("name", ["none", "k1-reward", "k3-reward", "k1-loss", "k3-loss"])
def test_loss_and_gradient_match_a_hand_computation(name):
    estimator, placement = ("k1", "reward") if name == "none" else name.split("-")
    kl = preset(name, beta=BETA)
    if kl.active:
        kl = apply_recipe(TrainConfig(kl=kl), async_level=0).kl
    logp = torch.tensor(LOGP, dtype=torch.float64, requires_grad=True)
    old, ref = torch.tensor(OLD, dtype=torch.float64), torch.tensor(REF, dtype=torch.float64)
    mask = torch.tensor(MASK, dtype=torch.float64)
    advantages, _ = async_advantages(torch.tensor(REWARDS, dtype=torch.float64), old, ref, mask, kl=kl,
                                     samples_per_prompt=2)
    terms = async_loss(logp, old, ref, advantages, mask, kl=kl, ratio_cap=8.0,
                       weights=micro_batch_weights(mask, micro_batch_size=4))
    terms.total.backward()
    loss, grad, adv = _hand(estimator, placement if kl.active else "none")
    assert advantages[:, 0].tolist() == pytest.approx(adv, abs=1e-12)
    assert float(terms.total.detach()) == pytest.approx(loss, abs=1e-12)
    assert logp.grad.tolist() == [pytest.approx(row, abs=1e-12) for row in grad]
    assert terms.clipped_tokens == 1  # the one ratio above 8


def test_each_micro_batch_is_divided_by_its_own_tokens():
    mask = torch.tensor(MASK, dtype=torch.float64)  # micro-batches of 2 rows: 5 and 6 tokens
    weights = micro_batch_weights(mask, micro_batch_size=2)
    assert weights.token_scale.tolist() == pytest.approx([1 / 10, 1 / 10, 1 / 12, 1 / 12])


def test_recipe_settings_and_refusals():
    config = apply_recipe(TrainConfig(kl=preset("k3-loss", beta=0.1)))
    assert (config.recipe, config.staleness, config.ratio_cap, config.algorithm, config.grpo_scale_by_std,
            config.loss_aggregation, config.kl.clamp, config.kl.clamp_mode) == \
        ("async", 10, 8.0, "grpo", False, "token-mean", 10.0, "hard")
    assert "clamp(hard)=10" in config.kl.label()
    assert recipe_problems(config) == []
    for change in ({"algorithm": "rloo"}, {"grpo_scale_by_std": True}, {"loss_aggregation": "seq-mean-token-sum"},
                   {"ppo_epochs": 2}, {"ratio_cap": 0.0}, {"recipe": "other"}):
        with pytest.raises(ConfigError):
            config.with_overrides(**change)
    with pytest.raises(ConfigError, match="hard clamps"):  # outside the recipe, hard clamps stay refused
        TrainConfig(kl=config.kl)


def test_cli_flags(tmp_path, capsys):
    from kleval.cli import main

    assert main(["train", "--tiny", "--async-level", "3", "--out", str(tmp_path / "x")]) == 2
    assert "--recipe async" in capsys.readouterr().err
    assert main(["train", "--tiny", "--recipe", "async", "--preset", "k1-reward", "--export", "openrlhf"]) == 0
    assert "--actor.dual_clip 8.0" in capsys.readouterr().out


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    if (COMMITTED_BASE / "model.safetensors").exists():
        return COMMITTED_BASE
    from kleval.train.base import build_tiny_base

    return build_tiny_base(tmp_path_factory.mktemp("base"), steps=20, batch_size=64)


def test_tiny_async_run_is_off_policy_and_recorded(base_dir, tmp_path):
    from kleval.train.diagnostics import read_log
    from kleval.train.loop import train

    config = apply_recipe(tiny_config("k1-reward", base_dir=base_dir, steps=4, prompts_per_step=4,
                                      samples_per_prompt=4), async_level=2)
    train(config, tmp_path, progress=False)
    rows = read_log(tmp_path)
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    assert rows[0]["importance_weight_mean"] == 1.0  # trained by the policy that sampled it
    assert any(r["importance_weight_max"] != 1.0 for r in rows[1:])  # later batches are 1-2 updates stale
    saved = json.loads((tmp_path / "global_step_4" / "kleval_run.json").read_text())["config"]
    assert (saved["recipe"], saved["staleness"], saved["ratio_cap"]) == ("async", 2, 8.0)
