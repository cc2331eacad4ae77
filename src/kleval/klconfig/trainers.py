"""kleval's KL vocabulary <-> TRL's, verl's and OpenRLHF's setting names, in both directions.

`from_<trainer>(settings)` turns a trainer's saved configuration (a plain mapping, already parsed)
into RunSettings plus notes on anything read approximately; `to_<trainer>(run)` gives the settings
that trainer needs for a RunSettings. Reading (kleval.eval.trainer_configs) and export
(kleval.train.export) both use these functions, so a configuration exported and read back
compares equal exactly when the export reproduces it. Key names follow the current releases:

- TRL 1.16 `GRPOConfig`: beta (default 0.0), loss_type (default "dapo"), scale_rewards,
  num_generations, use_bias_correction_kl (default True since 1.10; absent before, i.e. False),
  importance_sampling_level; GRPOTrainer adds beta * K3 (times the ratio when bias-corrected) per
  token to the loss. `RLOOConfig`: beta (default 0.05), num_generations; RLOOTrainer subtracts
  beta * sum_t K1 from the reward and averages a sequence-level loss. Older RLOO/PPO: kl_coef,
  kl_estimator.
- verl (main, verl/trainer/config/_generated_ppo_trainer.yaml): algorithm.use_kl_in_reward,
  algorithm.kl_penalty, algorithm.kl_ctrl.{type,kl_coef,target_kl}; actor_rollout_ref.actor.
  {use_kl_loss,kl_loss_type,kl_loss_coef,loss_agg_mode}; actor_rollout_ref.rollout.n;
  algorithm.{adv_estimator,norm_adv_by_std_in_grpo}. Estimators (core_algos.kl_penalty): kl/k1,
  mse/k2, low_var_kl/k3 (value hard-clamped to [-10, 10]), abs, full; a "+" suffix keeps the
  value but takes K2's gradient (straight-through).
- OpenRLHF >= 0.10.2 (dotted flags, saved nested): algo.kl.{init_coef,estimator,use_loss,target},
  algo.advantage.{estimator,no_std_norm}, rollout.n_samples_per_prompt; before 0.10.2 (flat):
  init_kl_coef, kl_estimator, use_kl_loss, kl_target, advantage_estimator, n_samples_per_prompt.
  models/utils.compute_approx_kl hard-clamps every estimate to [-10, 10]; the KL loss is a token mean.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kleval.errors import ConfigError
from kleval.klconfig import KLConfig, RunSettings

# ---- shared name tables ------------------------------------------------------------------------

# Trainer estimator names -> (kleval estimator, gradient estimator for straight-through "+" names).
_ESTIMATOR_NAMES = {"kl": ("k1", None), "k1": ("k1", None), "mse": ("k2", None), "k2": ("k2", None),
                    "low_var_kl": ("k3", None), "k3": ("k3", None), "k1+": ("k1", "k2"), "k3+": ("k3", "k2"),
                    "kl+": ("k1", "k2"), "low_var_kl+": ("k3", "k2"), "k2+": ("k2", None), "mse+": ("k2", None)}
_VERL_ESTIMATOR = {"k1": "kl", "k2": "mse", "k3": "low_var_kl"}
_VERL_AGGREGATION = {"token-mean": "token-mean", "seq-mean-token-mean": "seq-mean-token-mean",
                     "seq-mean-token-sum": "seq-mean-token-sum", "seq-mean-token-sum-norm": "seq-sum-norm"}
# TRL GRPO loss_type -> how per-token terms, the KL included, are aggregated (GRPOTrainer._compute_loss).
_TRL_AGGREGATION = {"grpo": "seq-mean-token-mean", "sapo": "seq-mean-token-mean", "bnpo": "token-mean",
                    "dapo": "token-mean", "cispo": "token-mean", "vespo": "token-mean",
                    "dr_grpo": "seq-sum-norm", "luspo": "seq-mean-token-sum"}
_TRL_LOSS_TYPE = {"token-mean": "dapo", "seq-mean-token-mean": "grpo", "seq-sum-norm": "dr_grpo"}
_HARD_CLAMP = 10.0  # verl's low_var_kl and OpenRLHF's compute_approx_kl clamp estimates to [-10, 10]


class Unexpressible(ConfigError):
    """The target trainer has no setting for part of the configuration."""


@dataclass(frozen=True)
class Reading:
    """A trainer configuration read in kleval's terms, and what was read only approximately."""

    settings: RunSettings
    notes: tuple[str, ...] = ()


def estimator_of(raw: Any) -> tuple[str, str | None]:
    """(kleval estimator, gradient estimator) for a trainer's estimator name; ConfigError if none."""
    text = str(raw).strip().lower()
    if text not in _ESTIMATOR_NAMES:
        raise ConfigError(f"KL estimator {raw!r} has no kleval equivalent (known: {', '.join(_ESTIMATOR_NAMES)})")
    return _ESTIMATOR_NAMES[text]


def _combine(reward: tuple[str, float] | None, loss: tuple[str, float] | None, *, gradient: str | None = None,
             **common: Any) -> KLConfig:
    """One KLConfig from a reward-side and a loss-side (estimator, beta); either may be None."""
    reward = reward if reward and reward[1] > 0 else None
    loss = loss if loss and loss[1] > 0 else None
    if reward and loss:
        return KLConfig(estimator=reward[0], beta=reward[1], placement="both", loss_estimator=loss[0],
                        loss_beta=loss[1], gradient_estimator=gradient, **common)
    if reward or loss:
        (estimator, beta), placement = (reward, "reward") if reward else (loss, "loss")
        return KLConfig(estimator=estimator, beta=beta, placement=placement, gradient_estimator=gradient, **common)
    return KLConfig(estimator="none", placement="reward", beta=0.0)


def _number(value: Any, default: float) -> float:
    return default if value is None else float(value)


# ---- kleval ----------------------------------------------------------------------------------


def from_kleval(config: Mapping[str, Any]) -> Reading:
    """RunSettings of a kleval TrainConfig dict (kleval_run.json's "config")."""
    kl = config.get("kl")
    algorithm = config.get("algorithm")
    if algorithm == "grpo" and config.get("grpo_scale_by_std") is False:
        algorithm = "grpo-mean"
    return Reading(RunSettings(trainer="kleval", kl=KLConfig.from_dict(kl) if isinstance(kl, Mapping) else None,
                               algorithm=algorithm, loss_aggregation=config.get("loss_aggregation"),
                               group_size=config.get("samples_per_prompt")))


# ---- TRL -------------------------------------------------------------------------------------


def from_trl(kind: str, args: Mapping[str, Any]) -> Reading:
    """RunSettings of a TRL GRPO/RLOO/PPO config (the fields of its training_args)."""
    notes: list[str] = []
    if kind == "grpo":
        beta = _number(args.get("beta"), 0.0)
        level = args.get("importance_sampling_level", "token")
        weighting = "none"
        if args.get("use_bias_correction_kl", False):  # absent before TRL 1.10, which did not weight
            weighting = "token" if level == "token" else "sequence"
            if level != "token":
                notes.append("TRL's sequence-level ratio is a geometric mean over tokens; read as importance_weighting "
                             "'sequence'")
        loss_type = args.get("loss_type", "dapo")
        raw_scale = args.get("scale_rewards", "group")
        scale = {True: "group", False: "none"}.get(raw_scale, raw_scale)
        algorithm = {"group": "grpo", "none": "grpo-mean"}.get(scale, f"grpo-scale-{scale}")
        kl = _combine(None, ("k3", beta), importance_weighting=weighting)
        return Reading(RunSettings("trl-grpo", kl, algorithm, _TRL_AGGREGATION.get(loss_type, loss_type),
                                   args.get("num_generations")), tuple(notes))
    if kind in ("rloo", "ppo"):
        default_beta = 0.05 if kind == "rloo" else 0.0
        beta = _number(args.get("beta", args.get("kl_coef")), default_beta)
        estimator, gradient = estimator_of(args.get("kl_estimator", "k1"))
        kl = _combine((estimator, beta), None, gradient=gradient)
        aggregation = "seq-mean-token-sum" if kind == "rloo" else None
        if kind == "rloo" and args.get("normalize_advantages"):
            notes.append("normalize_advantages rescales RLOO's advantages per batch")
        group = args.get("num_generations", args.get("rloo_k"))
        return Reading(RunSettings(f"trl-{kind}", kl, kind, aggregation, group), tuple(notes))
    return Reading(RunSettings("trl", None), (f"TRL trainer kind {kind!r} is not known to kleval",))


def to_trl(run: RunSettings) -> tuple[str, dict[str, Any], list[str]]:
    """(config class, its keyword arguments, caveats) that run `run` in TRL."""
    kl, caveats = run.kl or KLConfig(), []
    if kl.active and kl.clamp is not None:  # neither trainer clamps its estimate
        raise Unexpressible(f"TRL does not clamp KL values (this configuration clamps them to [-{kl.clamp:g}, "
                            f"{kl.clamp:g}], {kl.clamp_mode})")
    if kl.active and kl.placement == "reward" and kl.estimator == "k1" and not kl.adaptive_target \
            or not kl.active and run.algorithm == "rloo":
        if run.algorithm != "rloo":
            caveats.append("RLOOTrainer uses the leave-one-out baseline")
        return "RLOOConfig", {"beta": kl.beta if kl.active else 0.0, "num_generations": run.group_size}, caveats
    if kl.active and not (kl.placement == "loss" and kl.estimator == "k3" and kl.granularity == "token"
                          and kl.importance_weighting != "sequence"
                          and kl.gradient_estimator is None and kl.adaptive_target is None):
        raise Unexpressible("TRL hard-wires K1 in the reward (RLOOTrainer) or K3 per token in the loss (GRPOTrainer)")
    if run.loss_aggregation not in _TRL_LOSS_TYPE:
        caveats.append(f"TRL has no {run.loss_aggregation} loss; dr_grpo divides the same sum by the constant "
                       "max_completion_length, which Adam nearly cancels (gradient clipping does not)")
    if run.algorithm not in ("grpo", "grpo-mean"):
        caveats.append("GRPOTrainer uses the group-mean baseline (self included), not leave-one-out")
    kwargs = {"beta": kl.beta if kl.active else 0.0, "loss_type": _TRL_LOSS_TYPE.get(run.loss_aggregation, "dr_grpo"),
              "use_bias_correction_kl": kl.importance_weighting == "token", "importance_sampling_level": "token",
              "num_generations": run.group_size, "scale_rewards": "none" if run.algorithm == "grpo-mean" else "group"}
    return "GRPOConfig", kwargs, caveats


# ---- verl -------------------------------------------------------------------------------------


def _get(tree: Mapping[str, Any], dotted: str, default: Any = None) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return default if node is None else node


# The verl keys from_verl reads (kleval.eval.trainer_configs resolves just these, interpolations included).
VERL_KEYS = ("algorithm.use_kl_in_reward", "algorithm.kl_penalty", "algorithm.kl_ctrl.type",
             "algorithm.kl_ctrl.kl_coef", "algorithm.kl_ctrl.target_kl", "algorithm.adv_estimator",
             "algorithm.norm_adv_by_std_in_grpo", "actor_rollout_ref.actor.use_kl_loss",
             "actor_rollout_ref.actor.kl_loss_type", "actor_rollout_ref.actor.kl_loss_coef",
             "actor_rollout_ref.actor.loss_agg_mode", "actor_rollout_ref.rollout.n")


def from_verl(config: Mapping[str, Any]) -> Reading:
    """RunSettings of a resolved verl Hydra config (a nested mapping)."""
    notes: list[str] = []
    if not isinstance(config.get("algorithm"), Mapping) and not isinstance(config.get("actor_rollout_ref"), Mapping):
        return Reading(RunSettings("verl", None), ("no algorithm or actor_rollout_ref section",))
    sides: dict[str, tuple[str, float]] = {}  # side -> (verl estimator name, beta)
    if _get(config, "algorithm.use_kl_in_reward", False):
        sides["reward"] = (str(_get(config, "algorithm.kl_penalty", "kl")),
                           _number(_get(config, "algorithm.kl_ctrl.kl_coef"), 0.001))
    if _get(config, "actor_rollout_ref.actor.use_kl_loss", False):
        sides["loss"] = (str(_get(config, "actor_rollout_ref.actor.kl_loss_type", "low_var_kl")),
                         _number(_get(config, "actor_rollout_ref.actor.kl_loss_coef"), 0.001))
    terms, gradients, hard_clamped = {}, set(), False
    for side, (raw, beta) in sides.items():
        try:
            estimator, gradient = estimator_of(raw)
        except ConfigError as exc:
            return Reading(RunSettings("verl", None), (str(exc),))
        terms[side] = (estimator, beta)
        gradients.add(gradient)
        hard_clamped |= raw.rstrip("+") in ("low_var_kl", "k3") and beta > 0  # only a side in use clamps
    if len(gradients) > 1:
        notes.append("the reward and loss sides differ in straight-through gradients; read as straight-through")
    gradient = next((g for g in gradients if g), None)
    adaptive = None
    if "reward" in terms and _get(config, "algorithm.kl_ctrl.type", "fixed") == "adaptive":
        adaptive = _number(_get(config, "algorithm.kl_ctrl.target_kl"), 0.1)
    clamp = {"clamp": _HARD_CLAMP, "clamp_mode": "hard"} if hard_clamped else {}
    if hard_clamped and len({t[0] for t in terms.values()}) > 1:
        notes.append("verl clamps only its low_var_kl side; read as a clamp on both sides")
    kl = _combine(terms.get("reward"), terms.get("loss"), gradient=gradient, adaptive_target=adaptive, **clamp)
    algorithm = str(_get(config, "algorithm.adv_estimator", "gae"))
    if algorithm == "grpo" and _get(config, "algorithm.norm_adv_by_std_in_grpo", True) is False:
        algorithm = "grpo-mean"
    mode = str(_get(config, "actor_rollout_ref.actor.loss_agg_mode", "token-mean"))
    group = _get(config, "actor_rollout_ref.rollout.n", 1)
    return Reading(RunSettings("verl", kl, algorithm, _VERL_AGGREGATION.get(mode, mode), int(group)), tuple(notes))


def to_verl(run: RunSettings) -> tuple[dict[str, Any], list[str]]:
    """(Hydra overrides as dotted key -> value, caveats) that run `run` in verl."""
    kl, caveats = run.kl or KLConfig(), []
    if kl.active and kl.granularity == "sequence":
        raise Unexpressible("verl applies estimators per token only; sequence granularity cannot be expressed")
    if kl.in_loss and kl.importance_weighting != "none":
        raise Unexpressible("verl does not importance-weight the KL loss term")
    if kl.gradient_estimator not in (None, "k2"):
        raise Unexpressible("verl's straight-through estimators take K2's gradient only")
    if run.algorithm not in ("rloo", "grpo", "grpo-mean"):
        raise Unexpressible(f"kleval cannot map advantage estimator {run.algorithm!r} to verl")
    suffix = "+" if kl.gradient_estimator == "k2" else ""
    overrides: dict[str, Any] = {
        "algorithm.adv_estimator": "rloo" if run.algorithm == "rloo" else "grpo",
        "algorithm.norm_adv_by_std_in_grpo": run.algorithm != "grpo-mean",
        "actor_rollout_ref.rollout.n": run.group_size,
        "actor_rollout_ref.actor.loss_agg_mode": {v: k for k, v in _VERL_AGGREGATION.items()}[run.loss_aggregation],
        "algorithm.use_kl_in_reward": kl.in_reward,
        "actor_rollout_ref.actor.use_kl_loss": kl.in_loss,
    }
    if kl.in_reward:
        estimator, beta = kl.reward_term
        overrides.update({"algorithm.kl_penalty": _VERL_ESTIMATOR[estimator] + suffix,
                          "algorithm.kl_ctrl.type": "adaptive" if kl.adaptive_target else "fixed",
                          "algorithm.kl_ctrl.kl_coef": beta})
        if kl.adaptive_target:
            overrides["algorithm.kl_ctrl.target_kl"] = kl.adaptive_target
        # verl puts the in-reward KL into token-level rewards; rloo/grpo sum them per sequence: the same penalty.
    elif kl.adaptive_target:
        raise Unexpressible("verl's adaptive KL controller drives the in-reward KL only")
    if kl.in_loss:
        estimator, beta = kl.loss_term
        overrides.update({"actor_rollout_ref.actor.kl_loss_type": _VERL_ESTIMATOR[estimator] + suffix,
                          "actor_rollout_ref.actor.kl_loss_coef": beta})
    return overrides, caveats


# ---- OpenRLHF ---------------------------------------------------------------------------------

# kleval's meaning -> (OpenRLHF >= 0.10.2 dotted name, older flat name, OpenRLHF's default)
OPENRLHF_KEYS = {
    "beta": ("algo.kl.init_coef", "init_kl_coef", 0.01),
    "estimator": ("algo.kl.estimator", "kl_estimator", "k1"),
    "use_loss": ("algo.kl.use_loss", "use_kl_loss", False),
    "target": ("algo.kl.target", "kl_target", None),
    "advantage": ("algo.advantage.estimator", "advantage_estimator", "gae"),
    "no_std": ("algo.advantage.no_std_norm", "no_advantage_std_norm", False),
    "group_size": ("rollout.n_samples_per_prompt", "n_samples_per_prompt", 1),
}


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"algo": {"kl": {"init_coef": x}}} -> {"algo.kl.init_coef": x} (dotted keys pass through)."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def from_openrlhf(args: Mapping[str, Any]) -> Reading:
    """RunSettings of OpenRLHF's train_ppo_ray arguments, nested (>= 0.10.2) or flat (older)."""
    flat = flatten(args)

    def value(meaning: str) -> Any:
        new, old, default = OPENRLHF_KEYS[meaning]
        return flat[new] if flat.get(new) is not None else flat[old] if flat.get(old) is not None else default

    if not any(OPENRLHF_KEYS[m][0] in flat or OPENRLHF_KEYS[m][1] in flat for m in ("beta", "estimator", "use_loss")):
        return Reading(RunSettings("openrlhf", None), ("no KL settings (algo.kl.* or init_kl_coef/kl_estimator)",))
    try:
        estimator, gradient = estimator_of(value("estimator"))
    except ConfigError as exc:
        return Reading(RunSettings("openrlhf", None), (str(exc),))
    term = (estimator, _number(value("beta"), 0.01))
    in_loss = bool(value("use_loss"))
    target = value("target")
    kl = _combine(None if in_loss else term, term if in_loss else None, gradient=gradient, clamp=_HARD_CLAMP,
                  clamp_mode="hard", adaptive_target=float(target) if target else None)
    advantage = str(value("advantage"))
    algorithm = {"group_norm": "grpo-mean" if value("no_std") else "grpo", "rloo": "rloo"}.get(advantage, advantage)
    return Reading(RunSettings("openrlhf", kl, algorithm, "token-mean", int(value("group_size"))))


def to_openrlhf(run: RunSettings) -> tuple[dict[str, Any], list[str]]:
    """(train_ppo_ray flags in the >= 0.10.2 dotted style -> value, caveats) that run `run`."""
    kl, caveats = run.kl or KLConfig(), []
    if kl.placement == "both" and kl.active:
        raise Unexpressible("OpenRLHF puts the KL either in the reward or (algo.kl.use_loss) in the loss, not both")
    if kl.active and kl.granularity == "sequence":
        raise Unexpressible("OpenRLHF applies estimators per token only")
    if kl.in_loss and kl.importance_weighting != "none":
        raise Unexpressible("OpenRLHF does not importance-weight the KL loss term")
    if kl.gradient_estimator is not None:
        raise Unexpressible("OpenRLHF has no straight-through KL estimators")
    advantage = {"rloo": "rloo", "grpo": "group_norm", "grpo-mean": "group_norm"}.get(run.algorithm)
    if advantage is None:
        raise Unexpressible(f"kleval cannot map advantage estimator {run.algorithm!r} to OpenRLHF")
    flags: dict[str, Any] = {"algo.advantage.estimator": advantage, "rollout.n_samples_per_prompt": run.group_size}
    if run.algorithm == "grpo-mean":
        flags["algo.advantage.no_std_norm"] = True
    if kl.active:
        estimator, beta = kl.reward_term or kl.loss_term
        flags.update({"algo.kl.estimator": estimator, "algo.kl.init_coef": beta})
        if kl.in_loss:
            flags["algo.kl.use_loss"] = True
        if kl.adaptive_target:
            flags["algo.kl.target"] = kl.adaptive_target
    else:
        flags["algo.kl.init_coef"] = 0.0
    return flags, caveats
