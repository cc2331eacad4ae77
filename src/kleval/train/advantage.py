"""Advantages from grouped rewards: RLOO (leave-one-out mean) and GRPO (group mean / std).

Rewards arrive as [num_prompts * samples_per_prompt], grouped contiguously per prompt; a
reward-placed KL penalty has already been subtracted (per sequence, or per token as
returns-to-go when granularity is "token").
"""
from __future__ import annotations


def group_baseline(sequence_rewards, samples_per_prompt: int, algorithm: str, *, scale_by_std: bool = True):
    """Return (baseline [B], scale [B]) so that advantage = (reward - baseline) / scale.

    rloo: baseline = mean of the other samples of the same prompt; unbiased for any policy.
    grpo: baseline = group mean (includes the sample itself), scale = group std + 1e-4 if asked.
    """
    import torch

    grouped = sequence_rewards.view(-1, samples_per_prompt)  # [P, G]
    if algorithm == "rloo":
        total = grouped.sum(-1, keepdim=True)
        baseline = (total - grouped) / (samples_per_prompt - 1)
        scale = torch.ones_like(grouped)
    elif algorithm == "grpo":
        baseline = grouped.mean(-1, keepdim=True).expand_as(grouped)
        std = grouped.std(-1, keepdim=True).expand_as(grouped)
        scale = std + 1e-4 if scale_by_std else torch.ones_like(grouped)
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    return baseline.reshape(-1), scale.reshape(-1)


def compute_advantages(
    task_rewards,
    kl_reward_per_token,
    mask,
    *,
    beta: float,
    samples_per_prompt: int,
    algorithm: str,
    token_level: bool,
    scale_by_std: bool = True,
):
    """Per-token advantages [B, T] from task rewards [B] and a detached KL penalty [B, T] (or None).

    Sequence level (token_level False): every token of a response shares
    (R - beta * sum_t k_t - baseline) / scale. Token level: token t gets the return-to-go
    R - beta * sum_{s >= t} k_s, with the same sequence-level baseline (past penalties do not
    depend on y_t, so dropping them keeps the K1 gradient unbiased and lowers its variance).
    """
    import torch

    if kl_reward_per_token is None:
        kl_reward_per_token = torch.zeros_like(mask)
    penalty = beta * kl_reward_per_token.detach() * mask  # [B, T]
    sequence_rewards = task_rewards - penalty.sum(-1)  # [B]
    baseline, scale = group_baseline(sequence_rewards, samples_per_prompt, algorithm, scale_by_std=scale_by_std)
    if token_level:
        penalty_to_go = penalty.flip(-1).cumsum(-1).flip(-1)  # [B, T]: sum_{s >= t}
        returns = task_rewards.unsqueeze(-1) - penalty_to_go
    else:
        returns = sequence_rewards.unsqueeze(-1).expand_as(mask)
    advantages = (returns - baseline.unsqueeze(-1)) / scale.unsqueeze(-1)
    return advantages * mask, sequence_rewards
