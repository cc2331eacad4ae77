"""The paper's off-policy ("async") recipe: `kleval train --recipe async`.

Shah et al. run their off-policy study with an asynchronous trainer whose rollouts come from a
policy up to `async_level` updates old (10 in the paper). Its loss differs from kleval's default
(PPO-clipped RLOO) in every part, so it lives here and the loop calls it when
`TrainConfig.recipe == "async"`:

- advantage   A = R - mean of R over the prompt's group (no std, the sample itself included), where
  R = task reward - beta * sum_t clamp(K_t, -10, 10) when the KL is in the reward (the group-centred
  sequence sum, from the sampling policy's log-probs; no returns-to-go);
- policy term per token: -clamp(pi / pi_old, 0, ratio_cap) * A, ratio_cap 8, no PPO clip. The clamp
  is torch.clamp: a token whose ratio exceeds the cap contributes no gradient (the literal formula);
- KL in the loss per token: + beta * clamp(K_t, -10, 10), NOT importance-weighted (hard clamp:
  zero gradient outside [-10, 10]);
- aggregation: every term summed over the micro-batch's tokens and divided by that micro-batch's
  token count (then by the number of micro-batches, so gradient accumulation averages them). With
  the tiny mode's one micro-batch per step this is the batch's token mean;
- staleness: the loop's `staleness` pipeline with depth `async_level`: by default each batch after
  the first `async_level` + 1 is sampled by the policy exactly `async_level` updates before the one
  it trains. That is what prime-rl's orchestrator did while its loss was this one (`-clamp(ratio,
  max=8) * A`, Aug-Oct 2025): it reloads weights only at its async barrier, always checkpoint
  `step - async_level` ("up to N" = N once warmed up). `staleness_mode "latest"` (prime-rl's later
  default, newest policy at most N old) is the alternative; train/staleness.py has both.

The KL block records clamp 10 with clamp_mode "hard", so run labels say "clamp(hard)=10"; the
recipe, the ratio cap and the async level are TrainConfig fields, so kleval_run.json has them all.
`train/async_gradcheck.py` computes the recipe's expected gradient off-policy by enumeration.
"""
from __future__ import annotations

from dataclasses import replace

from kleval.errors import ConfigError

RECIPES = ("kleval", "async")
ASYNC_KL_CLAMP = 10.0  # per-token |K| bound of the paper's code
ASYNC_RATIO_CAP = 8.0  # per-token importance-ratio cap of the paper's code
ASYNC_LEVEL = 10  # the paper's async_level


def apply_recipe(config, *, async_level: int | None = None, ratio_cap: float | None = None):
    """The TrainConfig with the async recipe's settings: group-mean advantages without std, the
    (micro-batch) token mean, KL values hard-clamped to [-10, 10], rollouts `async_level` stale
    (`staleness_mode` is left as it is: "fixed" unless the caller changes it)."""
    kl = config.kl
    if kl.active:
        kl = replace(kl, clamp=ASYNC_KL_CLAMP, clamp_mode="hard")
    return replace(config, recipe="async", kl=kl, algorithm="grpo", grpo_scale_by_std=False,
                   loss_aggregation="token-mean", ppo_epochs=1,
                   staleness=ASYNC_LEVEL if async_level is None else async_level,
                   ratio_cap=ASYNC_RATIO_CAP if ratio_cap is None else ratio_cap)


def recipe_problems(config) -> list[str]:
    """Why a config marked recipe "async" is not the recipe (empty when it is)."""
    if config.recipe not in RECIPES:
        return [f"recipe must be one of {RECIPES}, got {config.recipe!r}"]
    if config.recipe != "async":
        return []
    kl, problems = config.kl, []
    if config.algorithm != "grpo" or config.grpo_scale_by_std:
        problems.append("the async recipe's advantage is R - group mean: algorithm grpo without std scaling")
    if config.loss_aggregation != "token-mean":
        problems.append("the async recipe divides by the micro-batch's tokens: loss_aggregation token-mean")
    if config.ppo_epochs != 1:
        problems.append("the async recipe makes one update per batch (ppo_epochs 1; use --async-level for staleness)")
    if not config.ratio_cap > 0:
        problems.append(f"ratio_cap must be positive, got {config.ratio_cap}")
    if kl.active and (kl.granularity != "token" or kl.importance_weighting != "none"):
        problems.append("the async recipe's KL is per token and not importance-weighted")
    if kl.active and kl.clamp_mode != "hard":
        problems.append("the async recipe clamps KL values hard (clamp_mode 'hard')")
    if kl.loss_estimator is not None or kl.loss_beta is not None or kl.gradient_estimator is not None \
            or kl.adaptive_target is not None:
        problems.append("the async recipe has one estimator and a fixed beta")
    return problems


def unsupported_outside_recipe(config) -> list[str]:
    """KLConfig.kleval_unsupported() less what the async recipe implements (hard clamps)."""
    problems = config.kl.kleval_unsupported()
    if config.recipe == "async":
        problems = [p for p in problems if not p.startswith("hard clamps")]
    return problems


def clamped_kl(kl, log_ratio, mask):
    """Per-token KL values beta-free [B, T]: the estimator of d = log pi - log ref, hard-clamped to
    [-clamp, clamp] (zero gradient outside), 0 past the end."""
    from kleval.train.kl import estimate, masked

    values = estimate(masked(log_ratio, mask), kl.estimator)
    if kl.clamp is not None:
        values = values.clamp(-kl.clamp, kl.clamp)
    return values * mask


def async_advantages(task_rewards, sampling_logprobs, ref_logprobs, mask, *, kl, samples_per_prompt: int):
    """(advantages [B, T], shaped rewards [B]): R = reward - beta * sum_t clamp(K_t) (KL in the
    reward, from the sampling policy), A = R - its group mean, the same for every token."""
    from kleval.train.advantage import group_baseline

    shaped = task_rewards
    if kl.in_reward:
        penalty = clamped_kl(kl, (sampling_logprobs - ref_logprobs).detach(), mask).sum(-1)
        shaped = task_rewards - kl.beta * penalty
    baseline, _ = group_baseline(shaped, samples_per_prompt, "grpo", scale_by_std=False)
    return (shaped - baseline).unsqueeze(-1) * mask, shaped


def micro_batch_weights(mask, micro_batch_size: int):
    """LossWeights giving each row 1 / (tokens of its micro-batch * number of micro-batches): the
    recipe's per-micro-batch token mean, averaged over micro-batches (gradient accumulation)."""
    import torch

    from kleval.train.loss import LossWeights

    rows = mask.shape[0]
    scale = torch.zeros(rows, dtype=mask.dtype, device=mask.device)
    starts = range(0, rows, max(micro_batch_size, 1))
    for start in starts:
        part = slice(start, min(start + micro_batch_size, rows))
        scale[part] = 1.0 / (float(mask[part].sum()) or 1.0)
    scale = scale / len(starts)
    return LossWeights(scale, scale.clone())


def async_loss(logprobs, old_logprobs, ref_logprobs, advantages, mask, *, kl, ratio_cap: float, weights):
    """The recipe's loss of some rows (LossTerms): sum_t w_row * (-clamp(pi/pi_old, 0, cap) * A
    + beta * clamp(K_t)); `weights` from micro_batch_weights over the whole batch."""
    import torch

    from kleval.train.kl import masked
    from kleval.train.loss import LossTerms

    ratio = torch.exp(masked(logprobs - old_logprobs, mask))  # [B, T]; 1 past the end
    policy_per_token = -ratio.clamp(0.0, ratio_cap) * advantages
    policy = ((policy_per_token * mask).sum(-1) * weights.token_scale).sum()
    kl_loss = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    if kl.in_loss:
        per_token = clamped_kl(kl, logprobs - ref_logprobs, mask)  # not importance-weighted
        kl_loss = kl.beta * (per_token.sum(-1) * weights.token_scale).sum()
    real = mask.bool()
    kept = ratio.detach()[real]
    return LossTerms(total=policy + kl_loss, policy=policy, kl=kl_loss, tokens=float(real.sum()),
                     clipped_tokens=float((kept > ratio_cap).sum()), ratio_sum=float(kept.sum()),
                     ratio_max=float(kept.max()) if kept.numel() else 1.0)


def check(config) -> None:
    """Raise ConfigError when a config claims the async recipe but differs from it."""
    problems = recipe_problems(config)
    if problems:
        raise ConfigError("; ".join(problems))
