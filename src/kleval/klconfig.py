"""The KL vocabulary, torch-free: KLConfig (which estimator, where it enters, how strongly), the
named presets and their labels. Train, checkpoint discovery, results, report and export all use it.

Notation (per response token t): d_t = log pi(y_t | y_<t) - log pi_ref(y_t | y_<t), y ~ pi.
    K1 = d            (unbiased value of KL(pi || ref); may be negative per sample)
    K2 = d^2 / 2      (biased value, low variance; its gradient is the token-level partial one)
    K3 = exp(-d) - 1 + d  (Schulman's "k3": unbiased value, always >= 0)

Placement "reward": beta * sum_t K(d_t), detached, is subtracted from the sequence reward before
the baseline, so it reaches the parameters only through the score function.
Placement "loss": beta * K(d_t) is added per token to the loss and differentiated (path-wise only).
Placement "both": each with the full beta. On-policy, for the sequence-level reverse KL:
K1-reward is unbiased, K1-loss has zero expected gradient, K3-loss follows the forward KL,
K3-reward follows reverse minus forward, K2-loss is the token-level partial gradient, and K1 or
K3 in both places is unbiased (`kleval gradcheck` verifies every one of these by enumeration).

Strength: with loss placement, the same beta is weaker under token-mean aggregation (the KL term
is averaged over all tokens, about beta / mean_length per sequence) than under a sequence sum
(seq-mean-token-sum, where it matches the reward placement's beta). `effective_sequence_beta`
says how strong a configuration's loss term is per sequence, and the loop logs it every step.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Mapping

from kleval.errors import ConfigError

ESTIMATORS = ("none", "k1", "k2", "k3")
PLACEMENTS = ("reward", "loss", "both")
GRANULARITIES = ("token", "sequence")
IMPORTANCE_WEIGHTINGS = ("none", "token", "sequence")


@dataclass(frozen=True)
class KLConfig:
    """How the KL penalty enters training. Saved, resolved, in every checkpoint and log.

    granularity "token": the estimator is applied to each d_t and summed over the response;
    "sequence": it is applied once to the sequence log ratio D = sum_t d_t (same for K1).
    importance_weighting: for off-policy data (ppo_epochs > 1 or staleness > 0), the loss term is
    multiplied by rho = pi / pi_old per token ("token") or per sequence ("sequence"), with the
    gradient flowing through rho (so K1-loss with sequence weights recovers the score term).
    clamp: if set, estimator values are clamped to [-clamp, clamp] straight-through: the forward
    value is clamped but the gradient is the unclamped one (a plain clamp would zero it).
    """

    estimator: str = "k3"
    placement: str = "loss"
    beta: float = 0.1
    granularity: str = "token"
    importance_weighting: str = "none"
    clamp: float | None = None

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("estimator", self.estimator, ESTIMATORS),
            ("placement", self.placement, PLACEMENTS),
            ("granularity", self.granularity, GRANULARITIES),
            ("importance_weighting", self.importance_weighting, IMPORTANCE_WEIGHTINGS),
        ):
            if value not in allowed:
                raise ConfigError(f"kl.{name} must be one of {allowed}, got {value!r}")
        if self.beta < 0:
            raise ConfigError(f"kl.beta must be >= 0, got {self.beta}")
        if self.importance_weighting == "token" and self.granularity == "sequence":
            raise ConfigError("kl.importance_weighting 'token' needs granularity 'token' (a sequence-level "
                              "estimator has no per-token terms to weight); use importance_weighting 'sequence'")
        if self.clamp is not None and self.clamp <= 0:
            raise ConfigError(f"kl.clamp must be positive or unset, got {self.clamp}")

    @property
    def active(self) -> bool:
        return self.estimator != "none" and self.beta > 0

    @property
    def in_reward(self) -> bool:
        return self.active and self.placement in ("reward", "both")

    @property
    def in_loss(self) -> bool:
        return self.active and self.placement in ("loss", "both")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "KLConfig":
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


# Presets named after the paper ("A Comedy of Estimators"). beta is set by the caller.
PRESETS: dict[str, KLConfig] = {
    "none": KLConfig(estimator="none", placement="reward", beta=0.0),
    "k1-reward": KLConfig(estimator="k1", placement="reward"),  # unbiased (TRL RLOO's choice)
    "k1-loss": KLConfig(estimator="k1", placement="loss"),  # zero expected gradient
    "k3-reward": KLConfig(estimator="k3", placement="reward"),  # biased: raises the forward KL
    "k3-loss": KLConfig(estimator="k3", placement="loss"),  # GRPO / TRL default: forward-KL gradient
    "k2-loss": KLConfig(estimator="k2", placement="loss"),  # token-level partial gradient
    "k1-both": KLConfig(estimator="k1", placement="both"),  # unbiased (bias-corrected)
    "k3-both": KLConfig(estimator="k3", placement="both"),  # unbiased (bias-corrected)
}


def preset(name: str, *, beta: float | None = None) -> KLConfig:
    """The KLConfig of a named preset, with beta overridden when given (ignored for "none")."""
    if name not in PRESETS:
        raise ConfigError(f"unknown KL preset {name!r}; choose one of {', '.join(PRESETS)}")
    config = PRESETS[name]
    if beta is not None and config.estimator != "none":
        config = replace(config, beta=beta)
    return config


def preset_name(config: KLConfig) -> str | None:
    """The preset a config matches (ignoring beta), or None for a custom configuration."""
    if not config.active:
        return "none"
    for name, p in PRESETS.items():
        if (p.estimator, p.placement, p.granularity, p.importance_weighting, p.clamp) == (
            config.estimator, config.placement, config.granularity, config.importance_weighting, config.clamp
        ):
            return name
    return None


def effective_sequence_beta(config: KLConfig, loss_aggregation: str, mean_response_length: float) -> float:
    """Per-sequence strength of the loss-placed KL term, comparable with a reward-placed beta.

    Under seq-mean-token-sum the loss KL of one sequence enters with weight beta, as in the reward.
    Under token-mean and seq-mean-token-mean it is divided by the response length; under
    seq-sum-norm (Dr. GRPO) by the fixed maximum length, which the caller passes as the length.
    """
    if not config.in_loss:
        return 0.0
    if loss_aggregation == "seq-mean-token-sum" or config.granularity == "sequence":
        return config.beta
    return config.beta / max(mean_response_length, 1.0)


