"""`kleval train --export verl|openrlhf|trl --preset P`: other trainers' settings for a KL preset.

Past one node kleval does not build an engine; it prints the overrides that reproduce a preset in
verl, OpenRLHF or TRL, and says plainly what each cannot express. Mappings follow the trainers'
public configs as of verl 0.5-0.6, OpenRLHF 0.8 and TRL 1.16 (check them against your version).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kleval.errors import ConfigError
from kleval.train.config import TrainConfig

TARGETS = ("verl", "openrlhf", "trl")
_VERL_ESTIMATOR = {"k1": "kl", "k2": "mse", "k3": "low_var_kl"}
_VERL_AGGREGATION = {"token-mean": "token-mean", "seq-mean-token-mean": "seq-mean-token-mean",
                     "seq-mean-token-sum": "seq-mean-token-sum", "seq-sum-norm": "seq-mean-token-sum-norm"}
_TRL_LOSS_TYPE = {"token-mean": "dapo", "seq-mean-token-mean": "grpo", "seq-sum-norm": "dr_grpo"}


@dataclass
class Export:
    """Overrides for one trainer, and the parts of the configuration it cannot express."""

    target: str
    overrides: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    expressible: bool = True
    approximate: bool = False  # expressible only up to the differences named in the caveats

    def render(self) -> str:
        verdict = "CANNOT fully reproduce" if not self.expressible else "approximates" if self.approximate else "reproduces"
        lines = [f"# {self.target}: {verdict} this configuration"]
        lines += self.overrides
        lines += [f"# note: {c}" for c in self.caveats]
        return "\n".join(lines)


def _verl(config: TrainConfig) -> Export:
    kl, out = config.kl, Export("verl")
    out.overrides.append(f"algorithm.adv_estimator={'rloo' if config.algorithm == 'rloo' else 'grpo'}")
    if config.algorithm == "grpo" and not config.grpo_scale_by_std:
        out.overrides.append("algorithm.norm_adv_by_std_in_grpo=False")
    out.overrides.append(f"actor_rollout_ref.actor.loss_agg_mode={_VERL_AGGREGATION[config.loss_aggregation]}")
    out.overrides.append(f"algorithm.use_kl_in_reward={kl.in_reward}")
    if kl.in_reward:
        out.overrides += [f"algorithm.kl_penalty={_VERL_ESTIMATOR[kl.estimator]}", "algorithm.kl_ctrl.type=fixed",
                          f"algorithm.kl_ctrl.kl_coef={kl.beta}"]
        if kl.granularity == "token":
            out.caveats.append("verl puts the in-reward KL into token-level rewards, but rloo/grpo sum them per "
                               "sequence: the same expectation, without kleval's return-to-go variance reduction")
    out.overrides.append(f"actor_rollout_ref.actor.use_kl_loss={kl.in_loss}")
    if kl.in_loss:
        out.overrides += [f"actor_rollout_ref.actor.kl_loss_type={_VERL_ESTIMATOR[kl.estimator]}",
                          f"actor_rollout_ref.actor.kl_loss_coef={kl.beta}"]
        if kl.estimator == "k3":
            out.caveats.append("verl clamps low_var_kl to [-10, 10] with a hard clamp (zero gradient outside it)")
    if kl.granularity == "sequence" and kl.active:
        out.expressible = False
        out.caveats.append("verl applies estimators per token only; sequence granularity cannot be expressed")
    if kl.importance_weighting != "none":
        out.expressible = False
        out.caveats.append("verl does not importance-weight the KL loss term")
    if kl.clamp is not None:
        out.caveats.append("kleval's straight-through clamp has no verl equivalent")
    if not config.on_policy:
        out.overrides += [f"actor_rollout_ref.actor.ppo_epochs={config.ppo_epochs}",
                          f"actor_rollout_ref.actor.clip_ratio={config.clip_epsilon}"]
    if config.staleness:
        out.caveats.append("verl's synchronous trainer has no rollout staleness setting (see its async recipes)")
    return out


def _openrlhf(config: TrainConfig) -> Export:
    kl, out = config.kl, Export("openrlhf")
    out.overrides.append("--advantage_estimator " + ("rloo" if config.algorithm == "rloo" else "group_norm"))
    if kl.active:
        out.overrides.append(f"--kl_estimator {kl.estimator}")
        out.overrides.append(f"--init_kl_coef {kl.beta}")
        out.caveats.append("OpenRLHF clamps the log ratio with a hard clamp, which zeroes gradients outside it")
    else:
        out.overrides.append("--init_kl_coef 0")
    if kl.in_loss:
        out.overrides.append("--use_kl_loss")
    if kl.placement == "both" and kl.active:
        out.expressible = False
        out.caveats.append("OpenRLHF uses the KL either in the reward or (with --use_kl_loss) in the loss, "
                           "not both with the full beta each")
    if kl.granularity == "sequence" and kl.active:
        out.expressible = False
        out.caveats.append("OpenRLHF applies estimators per token only")
    if kl.importance_weighting != "none":
        out.expressible = False
        out.caveats.append("OpenRLHF does not importance-weight the KL loss term")
    if config.loss_aggregation != "token-mean":
        out.caveats.append(f"OpenRLHF averages the loss over tokens; {config.loss_aggregation} changes the "
                           "per-sequence strength of a loss-placed beta (see docs/training.md)")
    if not config.on_policy:
        out.overrides += [f"--max_epochs {config.ppo_epochs}", f"--eps_clip {config.clip_epsilon}"]
    return out


def _trl(config: TrainConfig) -> Export:
    kl, out = config.kl, Export("trl")
    if not kl.active:
        out.overrides += ["GRPOConfig(beta=0.0, ...)" if config.algorithm == "grpo" else "RLOOConfig(beta=0.0, ...)"]
        return out
    if kl.placement == "reward" and kl.estimator == "k1":
        out.overrides.append(f"RLOOConfig(beta={kl.beta}, num_generations={config.samples_per_prompt})")
        out.caveats.append("TRL's RLOOTrainer subtracts beta * sum_t K1 from the sequence reward (sequence level)")
    elif kl.placement == "loss" and kl.estimator == "k3" and kl.granularity == "token":
        loss_type = _TRL_LOSS_TYPE.get(config.loss_aggregation, "dr_grpo")
        scale = "group" if config.algorithm == "grpo" and config.grpo_scale_by_std else "none"
        out.overrides.append(f"GRPOConfig(beta={kl.beta}, use_bias_correction_kl=False, "
                             f"loss_type={loss_type!r}, num_generations={config.samples_per_prompt}, "
                             f"scale_rewards={scale!r})")
        if config.loss_aggregation not in _TRL_LOSS_TYPE:
            out.approximate = True
            out.caveats.append("TRL has no seq-mean-token-sum loss; dr_grpo differs from it by the constant "
                               "max_completion_length, which Adam almost cancels (not gradient clipping)")
        if config.algorithm == "rloo":
            out.approximate = True
            out.caveats.append("GRPOTrainer uses the group-mean baseline (self included), not leave-one-out")
        out.caveats.append("use_bias_correction_kl=True (TRL's default) multiplies K3 by a differentiable "
                           "token ratio: the token-level partial gradient (kleval: importance_weighting=token)")
    else:
        out.expressible = False
        out.overrides.append("# no TRL trainer places this estimator there")
        out.caveats.append("TRL hard-wires K1 in the reward (RLOOTrainer) or K3 in the loss (GRPOTrainer)")
    if not config.on_policy:
        out.overrides.append(f"num_iterations={config.ppo_epochs}, epsilon={config.clip_epsilon}")
    return out


def export(config: TrainConfig, target: str) -> Export:
    """The overrides that reproduce `config` in `target` (one of TARGETS)."""
    builders = {"verl": _verl, "openrlhf": _openrlhf, "trl": _trl}
    if target not in builders:
        raise ConfigError(f"unknown export target {target!r}; choose one of {', '.join(TARGETS)}")
    return builders[target](config)
