"""KL estimator values and per-response KL terms in torch (the configuration lives in kleval.klconfig).

Notation (per response token t): d_t = log pi(y_t | y_<t) - log pi_ref(y_t | y_<t), y ~ pi.
    K1 = d;  K2 = d^2 / 2;  K3 = exp(-d) - 1 + d.
"""
from __future__ import annotations

from kleval.errors import ConfigError
from kleval.klconfig import KLConfig


def estimate(log_ratio, estimator: str):
    """Per-element KL estimator value of d = log pi - log ref (a torch tensor); differentiable."""
    import torch

    if estimator == "k1":
        return log_ratio
    if estimator == "k2":
        return 0.5 * log_ratio.pow(2)
    if estimator == "k3":
        return torch.expm1(-log_ratio) + log_ratio
    raise ConfigError(f"no KL value for estimator {estimator!r}")


def straight_through_clamp(values, bound: float | None):
    """Clamp the forward value to [-bound, bound] but keep the unclamped gradient."""
    if bound is None:
        return values
    return values + (values.clamp(-bound, bound) - values).detach()


def masked(values, mask):
    """values where mask is 1, exactly 0 elsewhere: past the end of a response a log ratio can be
    +-inf or NaN (a pad token the model rules out), and exp() of it times a 0 mask would be NaN."""
    import torch

    return torch.where(mask.bool(), values, torch.zeros((), dtype=values.dtype, device=values.device))


def kl_terms(config: KLConfig, log_ratio, mask):
    """The configured KL penalty of each response, before beta.

    log_ratio, mask: [batch, response_len] (mask 1 on real response tokens).
    Returns (per_token [batch, response_len], per_sequence [batch]); with granularity "token"
    per_sequence is the masked sum of per_token; with "sequence" the estimator is applied to the
    summed log ratio and per_token is that value spread evenly over the response tokens.
    """
    log_ratio = masked(log_ratio, mask)  # before any exp (K3): masked positions must stay finite
    if config.granularity == "token":
        per_token = straight_through_clamp(estimate(log_ratio, config.estimator), config.clamp) * mask
        return per_token, per_token.sum(-1)
    sequence_log_ratio = log_ratio.sum(-1)
    per_sequence = straight_through_clamp(estimate(sequence_log_ratio, config.estimator), config.clamp)
    lengths = mask.sum(-1).clamp(min=1)
    return (per_sequence / lengths).unsqueeze(-1) * mask, per_sequence
