"""The training loss: clipped policy-gradient term plus the loss-placed KL term, aggregated.

All tensors are [B, T] over response tokens (B = prompts * samples, T = max new tokens) with a
mask that is 1 on real tokens (up to and including end of sequence).

Every aggregation is a weighted sum of per-response token sums, so a batch's loss is the sum of
its micro-batches' losses when the weights (`LossWeights`) come from the whole batch: gradient
accumulation over micro-batches gives the gradient of the whole batch, whatever the aggregation.
"""
from __future__ import annotations

from dataclasses import dataclass

from kleval.klconfig import KLConfig
from kleval.train.kl import kl_terms, masked


@dataclass
class LossWeights:
    """Weight of each response in the loss: token_scale [B] multiplies the response's sum of
    per-token terms, sequence_scale [B] its sequence-level KL (granularity "sequence")."""

    token_scale: object
    sequence_scale: object

    @classmethod
    def for_batch(cls, mask, aggregation: str, *, max_length: int) -> "LossWeights":
        """token-mean: every token of the batch weighs the same (long responses weigh more).
        seq-mean-token-mean: mean over tokens of each response, then over responses.
        seq-mean-token-sum: sum over each response, mean over responses (REINFORCE on sequences).
        seq-sum-norm: sum over everything / (B * max_length), Dr. GRPO's length-unbiased constant.
        """
        import torch

        rows = mask.shape[0]
        lengths = mask.sum(-1)
        if aggregation == "token-mean":
            token_scale = torch.full_like(lengths, 1.0) / lengths.sum().clamp(min=1)
        elif aggregation == "seq-mean-token-mean":
            token_scale = 1.0 / (rows * lengths.clamp(min=1))
        elif aggregation == "seq-mean-token-sum":
            token_scale = torch.full_like(lengths, 1.0 / rows)
        elif aggregation == "seq-sum-norm":
            token_scale = torch.full_like(lengths, 1.0 / (rows * max_length))
        else:
            raise ValueError(f"unknown loss aggregation {aggregation!r}")
        return cls(token_scale, torch.full_like(lengths, 1.0 / rows))

    def rows(self, index: slice) -> "LossWeights":
        return LossWeights(self.token_scale[index], self.sequence_scale[index])


def aggregate(per_token, mask, mode: str, *, max_length: int, weights: LossWeights | None = None):
    """Reduce a [B, T] per-token loss to a scalar (weights from the whole batch; see LossWeights)."""
    weights = weights or LossWeights.for_batch(mask, mode, max_length=max_length)
    return ((per_token * mask).sum(-1) * weights.token_scale).sum()


def importance_weighted_kl_terms(kl: KLConfig, logprobs, old_logprobs, ref_logprobs, mask):
    """The loss-placed KL terms (per_token [B, T], per_sequence [B]) with their importance weights.

    Weights pi / pi_old keep their gradient: they are 1 in value on-policy, but their gradient is
    the score function. With sequence weights that turns K1 or K3 in the loss into an unbiased
    reverse-KL gradient; token weights give the token-level partial gradient (TRL's
    use_bias_correction_kl). `kleval gradcheck` checks both.
    """
    import torch

    per_token, per_sequence = kl_terms(kl, logprobs - ref_logprobs, mask)
    log_ratio_old = masked(logprobs - old_logprobs, mask)  # [B, T]; 0 in value on-policy
    if kl.importance_weighting == "token":  # KLConfig refuses token weights with sequence granularity
        per_token = per_token * torch.exp(log_ratio_old)
        per_sequence = per_token.sum(-1)
    elif kl.importance_weighting == "sequence":
        sequence_ratio = torch.exp(log_ratio_old.sum(-1))  # [B]
        per_token = per_token * sequence_ratio.unsqueeze(-1)
        per_sequence = per_sequence * sequence_ratio
    return per_token, per_sequence


@dataclass
class LossTerms:
    """The scalar loss and its parts (tensors; the KL part is kept apart for its gradient norm),
    and the off-policy statistics as sums, so micro-batches add up."""

    total: object
    policy: object
    kl: object
    tokens: float  # real response tokens
    clipped_tokens: float  # tokens whose ratio left [1 - eps, 1 + eps]
    ratio_sum: float  # sum over tokens of pi / pi_old
    ratio_max: float

    @property
    def clip_fraction(self) -> float:
        return self.clipped_tokens / max(self.tokens, 1.0)

    @property
    def importance_weight_mean(self) -> float:
        return self.ratio_sum / self.tokens if self.tokens else 1.0

    @property
    def importance_weight_max(self) -> float:
        return self.ratio_max if self.tokens else 1.0


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
    weights: LossWeights | None = None,
) -> LossTerms:
    """Policy-gradient loss (PPO-clipped; exactly REINFORCE when logprobs == old_logprobs) + KL.

    logprobs carries the gradient; old_logprobs (sampling policy) and ref_logprobs are detached.
    weights: the rows' share of the whole batch's loss (default: this batch is the whole batch).
    """
    import torch

    weights = weights or LossWeights.for_batch(mask, aggregation, max_length=max_length)
    log_ratio_old = masked(logprobs - old_logprobs, mask)  # [B, T]; 0 on-policy and past the end
    ratio = torch.exp(log_ratio_old)
    unclipped = ratio * advantages
    clipped = ratio.clamp(1 - clip_epsilon, 1 + clip_epsilon) * advantages
    policy_per_token = -torch.minimum(unclipped, clipped)
    policy_loss = aggregate(policy_per_token, mask, aggregation, max_length=max_length, weights=weights)

    kl_loss = torch.zeros((), dtype=logprobs.dtype, device=logprobs.device)
    if kl.in_loss:
        per_token, per_sequence = importance_weighted_kl_terms(kl, logprobs, old_logprobs, ref_logprobs, mask)
        if kl.granularity == "sequence":
            kl_loss = kl.beta * (per_sequence * weights.sequence_scale).sum()
        else:
            kl_loss = kl.beta * aggregate(per_token, mask, aggregation, max_length=max_length, weights=weights)

    real = mask.bool()
    masked_ratio = ratio.detach()[real]
    return LossTerms(
        total=policy_loss + kl_loss,
        policy=policy_loss,
        kl=kl_loss,
        tokens=float(real.sum()),
        clipped_tokens=float(((ratio.detach() - 1).abs() > clip_epsilon)[real].sum()),
        ratio_sum=float(masked_ratio.sum()),
        ratio_max=float(masked_ratio.max()) if masked_ratio.numel() else 1.0,
    )
