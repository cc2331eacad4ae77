"""The KL vocabulary, torch-free: KLConfig (which estimator, where it enters, how strongly), the
named presets, readable labels, and RunSettings (a KLConfig plus the trainer, advantage
estimator, loss aggregation and group size it was trained with). `kleval.klconfig.trainers`
maps these to and from TRL's, verl's and OpenRLHF's own setting names, for reading their
checkpoints and for exporting kleval's configurations. Train, checkpoint discovery, results,
report and export all pass this one value along.

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

Strength: kleval weighs a response's per-token loss-placed KL exactly as it weighs that response's
policy-gradient term (which carries any reward-placed KL), under every loss aggregation; the
aggregation scales the whole gradient (token-mean by 1 / the batch's mean length, seq-sum-norm by
1 / max length) or reweights responses by 1 / length (seq-mean-token-mean), both terms alike. So a
token-level beta is the same KL-versus-reward trade-off in all four. A sequence-level loss term is
weighted 1 / (number of responses) whatever the aggregation, so relative to the policy term it is
stronger by the response length under token-mean and seq-mean-token-mean (by the maximum length
under seq-sum-norm). `effective_sequence_beta` computes that ratio; the loop logs it every step.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Mapping

from kleval.errors import ConfigError

ESTIMATORS = ("none", "k1", "k2", "k3")
PLACEMENTS = ("reward", "loss", "both")
GRANULARITIES = ("token", "sequence")
IMPORTANCE_WEIGHTINGS = ("none", "token", "sequence")
CLAMP_MODES = ("straight-through", "hard")
# How per-token loss terms (policy term and loss-placed KL alike) are averaged; see effective_sequence_beta.
# seq-sum-norm: summed over the batch's tokens, divided by batch size x a fixed maximum length (Dr. GRPO).
LOSS_AGGREGATIONS = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-sum-norm")
DEFAULT_BETA = 0.1


@dataclass(frozen=True)
class KLConfig:
    """How the KL penalty enters training. Saved, resolved, in every checkpoint and log.

    granularity "token": the estimator is applied to each d_t and summed over the response;
    "sequence": it is applied once to the sequence log ratio D = sum_t d_t (same for K1).
    importance_weighting: the loss term is multiplied by rho = pi / pi_old per token ("token") or
    per sequence ("sequence"), with the gradient flowing through rho even where its value is 1
    (TRL's use_bias_correction_kl is "token"); only the token weight fits token granularity.
    clamp: if set, estimator values are clamped to [-clamp, clamp]; clamp_mode "straight-through"
    keeps the unclamped gradient (kleval), "hard" zeroes it outside (verl's low_var_kl, OpenRLHF).
    gradient_estimator: straight-through estimator, value of `estimator` with the gradient of this
    one (verl's "k1+"/"k3+" use K2's gradient); None means the estimator's own gradient.
    loss_estimator, loss_beta: with placement "both", the loss side's estimator and beta when they
    differ from `estimator` and `beta` (which then describe the reward side).
    adaptive_target: the target KL of an adaptive controller (beta is its initial value); None = fixed.
    """

    estimator: str = "k3"
    placement: str = "loss"
    beta: float = DEFAULT_BETA
    granularity: str = "token"
    importance_weighting: str = "none"
    clamp: float | None = None
    clamp_mode: str = "straight-through"
    gradient_estimator: str | None = None
    loss_estimator: str | None = None
    loss_beta: float | None = None
    adaptive_target: float | None = None

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("estimator", self.estimator, ESTIMATORS),
            ("placement", self.placement, PLACEMENTS),
            ("granularity", self.granularity, GRANULARITIES),
            ("importance_weighting", self.importance_weighting, IMPORTANCE_WEIGHTINGS),
            ("clamp_mode", self.clamp_mode, CLAMP_MODES),
        ):
            if value not in allowed:
                raise ConfigError(f"kl.{name} must be one of {allowed}, got {value!r}")
        for name in ("gradient_estimator", "loss_estimator"):
            value = getattr(self, name)
            if value is not None and value not in ESTIMATORS[1:]:
                raise ConfigError(f"kl.{name} must be one of {ESTIMATORS[1:]} or unset, got {value!r}")
        for name in ("beta", "loss_beta"):
            value = getattr(self, name)
            if value is not None and not value >= 0:
                raise ConfigError(f"kl.{name} must be >= 0, got {value}")
        if self.clamp is not None and not self.clamp > 0:
            raise ConfigError(f"kl.clamp must be positive or unset, got {self.clamp}")
        if self.adaptive_target is not None and not self.adaptive_target > 0:
            raise ConfigError(f"kl.adaptive_target must be positive or unset, got {self.adaptive_target}")
        if (self.loss_estimator or self.loss_beta is not None) and self.placement != "both":
            raise ConfigError("kl.loss_estimator and kl.loss_beta apply to placement 'both' only")
        if self.importance_weighting == "token" and self.granularity == "sequence":
            raise ConfigError("kl.importance_weighting 'token' needs granularity 'token': a sequence-level "
                              "estimate has no per-token term to weight; use importance_weighting 'sequence'")
        # One spelling per configuration, so equal settings compare (and group) equal.
        set_field = object.__setattr__
        set_field(self, "beta", float(self.beta))
        if self.loss_estimator == self.estimator:
            set_field(self, "loss_estimator", None)
        if self.loss_beta is not None:
            set_field(self, "loss_beta", None if float(self.loss_beta) == self.beta else float(self.loss_beta))
        if self.gradient_estimator == self.estimator:
            set_field(self, "gradient_estimator", None)
        if self.clamp is None:
            set_field(self, "clamp_mode", "straight-through")

    # ---- the two sides ---------------------------------------------------------------------

    @property
    def reward_term(self) -> tuple[str, float] | None:
        """(estimator, beta) of the reward-placed term, or None when there is none."""
        if self.estimator == "none" or self.placement not in ("reward", "both") or self.beta == 0:
            return None
        return self.estimator, self.beta

    @property
    def loss_term(self) -> tuple[str, float] | None:
        """(estimator, beta) of the loss-placed term, or None when there is none."""
        if self.estimator == "none" or self.placement not in ("loss", "both"):
            return None
        estimator = self.loss_estimator or self.estimator
        beta = self.loss_beta if self.loss_beta is not None else self.beta
        return (estimator, beta) if beta > 0 else None

    @property
    def active(self) -> bool:
        return self.reward_term is not None or self.loss_term is not None

    @property
    def in_reward(self) -> bool:
        return self.reward_term is not None

    @property
    def in_loss(self) -> bool:
        return self.loss_term is not None

    def canonical(self) -> "KLConfig":
        """The same penalty in its one canonical spelling: no KL is PRESETS["none"], a "both"
        with one side at beta 0 is that single side, and K1 ignores granularity (it is linear)."""
        reward, loss = self.reward_term, self.loss_term
        if reward is None and loss is None:
            return PRESETS["none"]
        config = self
        if reward is None or loss is None:
            placement, (estimator, beta) = ("loss", loss) if reward is None else ("reward", reward)
            config = replace(self, estimator=estimator, beta=beta, placement=placement, loss_estimator=None,
                             loss_beta=None)
        if config.placement == "reward":
            config = replace(config, importance_weighting="none")  # weights apply to the loss term only
        if {t[0] for t in (config.reward_term, config.loss_term) if t} == {"k1"} and config.gradient_estimator is None:
            config = replace(config, granularity="token")
        return config

    # ---- names ------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The configuration without its strength: a preset name ("k3-loss") when it is one,
        else the closest description ("k3-loss seq", "k3+-loss clamp(hard)=10", "k1-reward+k3-loss")."""
        config = self.canonical()
        if not config.active:
            return "none"

        def spelled(estimator: str) -> str:
            gradient = config.gradient_estimator
            return estimator + ("" if gradient is None else "+" if gradient == "k2" else f"(grad {gradient})")

        if config.placement == "both" and config.loss_estimator:
            core = f"{spelled(config.estimator)}-reward+{spelled(config.loss_estimator)}-loss"
        else:
            core = f"{spelled(config.estimator)}-{config.placement}"
        modifiers = []
        if config.granularity == "sequence":
            modifiers.append("seq")
        if config.importance_weighting != "none":
            modifiers.append(f"iw-{config.importance_weighting}")
        if config.clamp is not None:
            modifiers.append(f"clamp{'(hard)' if config.clamp_mode == 'hard' else ''}={config.clamp:g}")
        if config.adaptive_target is not None:
            modifiers.append(f"adaptive(target {config.adaptive_target:g})")
        return " ".join([core, *modifiers])

    def label(self) -> str:
        """A readable name unique to the configuration: name plus strength ("k3-loss β=0.1")."""
        return f"{self.name} {self.strength}" if self.strength else self.name

    @property
    def strength(self) -> str:
        """"β=0.1" ("β=0.1/0.05": reward/loss sides of a "both"); "" without KL."""
        config = self.canonical()
        if not config.active:
            return ""
        if config.placement == "both" and config.loss_beta is not None:
            return f"β={config.beta:g}/{config.loss_beta:g}"
        return f"β={config.beta:g}"

    def kleval_unsupported(self) -> list[str]:
        """What kleval's own trainer cannot run of this configuration (readable from other trainers)."""
        problems = []
        if self.gradient_estimator is not None:
            problems.append("straight-through gradients (gradient_estimator)")
        if self.clamp is not None and self.clamp_mode == "hard":
            problems.append("hard clamps (clamp_mode 'hard')")
        if self.loss_estimator is not None or self.loss_beta is not None:
            problems.append("different reward and loss estimators or betas (loss_estimator, loss_beta)")
        if self.adaptive_target is not None:
            problems.append("an adaptive KL controller (adaptive_target)")
        return problems

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "KLConfig":
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ConfigError(f"unknown KL settings: {', '.join(sorted(unknown))}")
        return cls(**dict(d))


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
    name = config.name
    return name if name in PRESETS else None


def effective_sequence_beta(config: KLConfig, loss_aggregation: str, mean_response_length: float) -> float:
    """Strength of the loss-placed KL per response relative to that response's policy-gradient term
    (and so to a reward-placed beta): the beta a reward placement would need for the same trade-off.

    Per-token terms (granularity "token") share the policy term's weight under every aggregation
    (train/loss.LossWeights), so this is beta. A sequence-level term has weight 1 / responses, the
    policy term 1 / responses only under seq-mean-token-sum; under token-mean and seq-mean-token-mean
    the policy term is divided by the response length (on average, the mean length), under
    seq-sum-norm by the maximum length, which the caller passes as the length.
    """
    term = config.loss_term
    if term is None:
        return 0.0
    if config.granularity == "token" or loss_aggregation == "seq-mean-token-sum":
        return term[1]
    return term[1] * max(mean_response_length, 1.0)


# Each trainer's default loss aggregation (kleval's TrainConfig, verl's loss_agg_mode, OpenRLHF's
# token mean, TRL GRPO's loss_type "dapo", TRL RLOO's sequence-level loss).
DEFAULT_AGGREGATIONS = {"kleval": "seq-mean-token-sum", "verl": "token-mean", "openrlhf": "token-mean",
                        "trl-grpo": "token-mean", "trl-rloo": "seq-mean-token-sum"}


@dataclass(frozen=True)
class RunSettings:
    """What a training run's KL comparison depends on, whichever trainer wrote it.

    trainer: "kleval", "trl-grpo", "trl-rloo", "trl-ppo", "verl" or "openrlhf".
    kl: None when the run's KL settings could not be found (labelled "unknown", never "none").
    algorithm: the advantage estimator: "rloo", "grpo" (group mean and std), "grpo-mean" (group
    mean only), else the trainer's own name. loss_aggregation: one of LOSS_AGGREGATIONS (or the
    trainer's name when it has no kleval equivalent). group_size: samples per prompt.
    """

    trainer: str
    kl: KLConfig | None
    algorithm: str | None = None
    loss_aggregation: str | None = None
    group_size: int | None = None

    def __post_init__(self) -> None:
        if self.kl is not None:
            object.__setattr__(self, "kl", self.kl.canonical())

    def label(self) -> str:
        """A readable name unique to the KL comparison: the KL label, the loss aggregation when it
        is not the trainer's default (it changes the gradient's scale or per-response weights), and the trainer when it
        is not kleval: "k3-loss β=0.1", "k3-loss β=0.1 token-mean", "k3-loss β=0.001 (verl)"."""
        return self.name(with_beta=True)

    def name(self, *, with_beta: bool = False) -> str:
        """label() without β (reports leave it out when every row shares it)."""
        if self.kl is None:
            text = "unknown"
        else:
            text = self.kl.name
            default = DEFAULT_AGGREGATIONS.get(self.trainer)
            if self.kl.in_loss and self.loss_aggregation and default and self.loss_aggregation != default:
                text += f" {self.loss_aggregation}"
            if with_beta and self.kl.strength:
                text += f" {self.kl.strength}"
        return text if self.trainer == "kleval" else f"{text} ({self.trainer})"

    def to_dict(self) -> dict[str, Any]:
        return {"trainer": self.trainer, "kl": self.kl.to_dict() if self.kl else None, "algorithm": self.algorithm,
                "loss_aggregation": self.loss_aggregation, "group_size": self.group_size}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "RunSettings":
        kl = d.get("kl")
        return cls(trainer=str(d.get("trainer") or "unknown"), kl=KLConfig.from_dict(kl) if kl else None,
                   algorithm=d.get("algorithm"), loss_aggregation=d.get("loss_aggregation"),
                   group_size=d.get("group_size"))

    def to_row(self) -> dict[str, Any]:
        """Flat columns for results.csv: kl_label, trainer, algorithm, loss_aggregation, group_size, kl_<field>."""
        row: dict[str, Any] = {"kl_label": self.label(), "trainer": self.trainer, "algorithm": self.algorithm,
                               "loss_aggregation": self.loss_aggregation, "group_size": self.group_size}
        kl = self.kl.to_dict() if self.kl else {f.name: None for f in fields(KLConfig)}
        row.update({f"kl_{name}": value for name, value in kl.items()})
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "RunSettings | None":
        """Inverse of to_row for a results.csv row (strings); None when the row has no trainer."""

        def cell(name: str) -> Any:
            value = row.get(name)
            return None if value is None or str(value).strip() in ("", "None", "nan", "null") else value

        if cell("trainer") is None:
            return None
        kl = None
        if cell("kl_estimator") is not None:
            kl = KLConfig(**{f.name: (float(cell(f"kl_{f.name}")) if f.name in _FLOAT_FIELDS else cell(f"kl_{f.name}"))
                             for f in fields(KLConfig) if cell(f"kl_{f.name}") is not None})
        group = cell("group_size")
        return cls(trainer=str(cell("trainer")), kl=kl, algorithm=cell("algorithm"),
                   loss_aggregation=cell("loss_aggregation"), group_size=None if group is None else int(float(group)))


_FLOAT_FIELDS = ("beta", "clamp", "loss_beta", "adaptive_target")
ROW_COLUMNS = tuple(RunSettings(trainer="kleval", kl=KLConfig()).to_row())
