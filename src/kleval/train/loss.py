"""The training loss: clipped policy-gradient term plus the loss-placed KL term, aggregated.

All tensors are [B, T] over response tokens (B = prompts * samples, T = max new tokens) with a
mask that is 1 on real tokens (up to and including end of sequence).
"""
from __future__ import annotations

from dataclasses import dataclass

from kleval.klconfig import KLConfig
from kleval.train.kl import kl_terms


def aggregate(per_token, mask, mode: str, *, max_length: int):
    """Reduce a [B, T] per-token loss to a scalar.

    token-mean: every token of the batch weighs the same (long responses weigh more).
    seq-mean-token-mean: mean over tokens of each response, then over responses.
    seq-mean-token-sum: sum over each response, mean over responses (REINFORCE on sequences).
    seq-sum-norm: sum over everything / (B * max_length), Dr. GRPO's length-unbiased constant.
    """
    masked = per_token * mask
    if mode == "token-mean":
        return masked.sum() / mask.sum().clamp(min=1)
    if mode == "seq-mean-token-mean":
        return (masked.sum(-1) / mask.sum(-1).clamp(min=1)).mean()
    if mode == "seq-mean-token-sum":
        return masked.sum(-1).mean()
    if mode == "seq-sum-norm":
        return masked.sum() / (mask.shape[0] * max_length)
    raise ValueError(f"unknown loss aggregation {mode!r}")


def importance_weighted_kl_terms(kl: KLConfig, logprobs, old_logprobs, ref_logprobs, mask):
    """The loss-placed KL terms (per_token [B, T], per_sequence [B]) with their importance weights.

    Weights pi / pi_old keep their gradient: they are 1 in value on-policy, but their gradient is
    the score function. With sequence weights that turns K1 or K3 in the loss into an unbiased
    reverse-KL gradient; token weights give the token-level partial gradient (TRL's
    use_bias_correction_kl). `kleval gradcheck` checks both.
    """
    import torch

    per_token, per_sequence = kl_terms(kl, logprobs - ref_logprobs, mask)
    log_ratio_old = (logprobs - old_logprobs) * mask  # [B, T]; 0 in value on-policy
    if kl.importance_weighting == "token":
        per_token = per_token * torch.exp(log_ratio_old)
        if kl.granularity == "token":
            per_sequence = per_token.sum(-1)
    elif kl.importance_weighting == "sequence":
        sequence_ratio = torch.exp(log_ratio_old.sum(-1))  # [B]
        per_token = per_token * sequence_ratio.unsqueeze(-1)
        per_sequence = per_sequence * sequence_ratio
    return per_token, per_sequence


@dataclass
class LossTerms:
    """The scalar loss and its parts (tensors; the KL part is kept apart for its gradient norm)."""

    total: object
    policy: object
    kl: object
    clip_fraction: float
    importance_weight_mean: float
    importance_weight_max: float


def compute_loss(
    logprobs,
    old_logprobs,
    ref_logprobs,
    advantages,
    mask,
    *,
    kl: KLConfig,
    aggregation: str,
    clip_epsilon: float,
    max_length: int,
) -> LossTerms:
    """Policy-gradient loss (PPO-clipped; exactly REINFORCE when logprobs == old_logprobs) + KL.

    logprobs carries the gradient; old_logprobs (sampling policy) and ref_logprobs are detached.
    """
    import torch

    log_ratio_old = logprobs - old_logprobs  # [B, T]; 0 on-policy
    ratio = torch.exp(log_ratio_old)
    unclipped = ratio * advantages
    clipped = ratio.clamp(1 - clip_epsilon, 1 + clip_epsilon) * advantages
    policy_per_token = -torch.minimum(unclipped, clipped)
    policy_loss = aggregate(policy_per_token, mask, aggregation, max_length=max_length)
    clip_fraction = (((ratio - 1).abs() > clip_epsilon).float() * mask).sum() / mask.sum().clamp(min=1)

    kl_loss = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    if kl.in_loss:
        per_token, per_sequence = importance_weighted_kl_terms(kl, logprobs, old_logprobs, ref_logprobs, mask)
        if kl.granularity == "sequence":
            kl_loss = kl.beta * per_sequence.mean()
        else:
            kl_loss = kl.beta * aggregate(per_token, mask, aggregation, max_length=max_length)

    masked_ratio = ratio.detach()[mask.bool()]
    return LossTerms(
        total=policy_loss + kl_loss,
        policy=policy_loss,
        kl=kl_loss,
        clip_fraction=float(clip_fraction),
        importance_weight_mean=float(masked_ratio.mean()) if masked_ratio.numel() else 1.0,
        importance_weight_max=float(masked_ratio.max()) if masked_ratio.numel() else 1.0,
    )
