"""`kleval train --export verl|openrlhf|trl --preset P`: other trainers' settings for a KL configuration.

Past one node kleval does not build an engine; it prints the settings that run a configuration in
verl (main), OpenRLHF (>= 0.10.2, dotted flags) or TRL (1.16), using the name mappings of
`kleval.klconfig.trainers`. The verdict is computed, not asserted: the exported settings are read
back through the same reader `kleval eval` uses on that trainer's checkpoints, and the export
"reproduces" the configuration only when the reading equals it (KL block, advantage estimator,
loss aggregation, group size) and nothing else differs; otherwise it "approximates: <why>", or
"cannot reproduce: <why>" when the trainer has no setting for a part of it (the CLI then refuses
with that one line). `--recipe async` exports its ratio cap as each trainer's clip settings and
its stale rollouts as OpenRLHF's async trainer; verl and TRL have no setting for rollouts N updates old.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kleval.errors import ConfigError
from kleval.klconfig import RunSettings, trainers
from kleval.train.config import TrainConfig

TARGETS = ("verl", "openrlhf", "trl")


@dataclass
class Export:
    """Settings for one trainer, and why they differ from the configuration (if they do)."""

    target: str
    settings: dict[str, Any] = field(default_factory=dict)  # trainer's own names -> values
    config_class: str | None = None  # TRL only: GRPOConfig or RLOOConfig
    differences: list[str] = field(default_factory=list)  # empty: reproduces exactly
    unexpressible: str | None = None

    @property
    def verdict(self) -> str:
        if self.unexpressible:
            return f"cannot reproduce: {self.unexpressible}"
        if self.differences:
            return "approximates: " + "; ".join(self.differences)
        return "reproduces"

    def render(self) -> str:
        lines = [f"# {self.target}: {self.verdict}"]
        if self.unexpressible:
            return "\n".join(lines)
        if self.target == "verl":
            lines.append("python -m verl.trainer.main_ppo \\")
            lines += [f"    {key}={_plain(value)} \\" for key, value in self.settings.items()]
            lines[-1] = lines[-1].removesuffix(" \\")
        elif self.target == "openrlhf":
            lines.append("python -m openrlhf.cli.train_ppo_ray \\")
            lines += [f"    --{key} \\" if value is True else f"    --{key} {_plain(value)} \\"
                      for key, value in self.settings.items() if value is not False]
            lines[-1] = lines[-1].removesuffix(" \\")
        else:
            args = ", ".join(f"{key}={value!r}" for key, value in self.settings.items())
            lines.append(f"{self.config_class}({args}, ...)")
        return "\n".join(lines)


def _plain(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _nest(dotted: dict[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for key, value in dotted.items():
        node = tree
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return tree


def _differences(wanted: RunSettings, read: RunSettings) -> list[str]:
    """Field-by-field differences between a configuration and its read-back, in kleval's words."""
    out = []
    if read.kl is not None and read.kl.clamp_mode == "hard" and (wanted.kl is None or wanted.kl.clamp_mode != "hard"):
        out.append(f"it hard-clamps the estimate to [-{read.kl.clamp:g}, {read.kl.clamp:g}] (zero gradient outside)")
        read = replace(read, kl=replace(read.kl, clamp=None))
    if wanted.kl != read.kl:
        out.append(f"KL {wanted.kl.label() if wanted.kl else 'unknown'} is read back as "
                   f"{read.kl.label() if read.kl else 'unknown'}")
    for name in ("algorithm", "loss_aggregation", "group_size"):
        if getattr(wanted, name) != getattr(read, name):
            out.append(f"{name} {getattr(wanted, name)} becomes {getattr(read, name)}")
    return out


def _off_policy(config: TrainConfig, target: str) -> dict[str, Any]:
    """Epochs, the policy term's ratio clipping and the sampling temperature in the target's names."""
    names = {"verl": ("actor_rollout_ref.actor.ppo_epochs", "actor_rollout_ref.rollout.temperature"),
             "openrlhf": ("train.max_epochs", "rollout.temperature"),
             "trl": ("num_iterations", "temperature")}[target]
    settings = dict(zip(names, (config.ppo_epochs, config.temperature)))
    if config.recipe != "async":
        settings[{"verl": "actor_rollout_ref.actor.clip_ratio", "openrlhf": "actor.eps_clip",
                  "trl": "epsilon"}[target]] = config.clip_epsilon
        return settings
    # The async recipe's -clamp(r, 0, cap) * A on every token, as each trainer's PPO clip
    # min(r A, clip(r, 1 - lo, 1 + hi) A) with lo = 1, hi = cap - 1, plus the bound that caps the
    # ratio for negative advantages too: verl's and OpenRLHF's dual clip (for A < 0 the loss becomes
    # -min(r, c) A) and TRL's two-sided `delta` (r clamped to at most delta before the min). Above the
    # cap the term is constant in r in all three, as torch.clamp makes it in the recipe.
    cap = config.ratio_cap
    settings.update({
        "verl": {"actor_rollout_ref.actor.clip_ratio_low": 1.0, "actor_rollout_ref.actor.clip_ratio_high": cap - 1,
                 "actor_rollout_ref.actor.clip_ratio_c": cap},
        "openrlhf": {"actor.eps_clip_low_high": f"1.0 {cap - 1:g}", "actor.dual_clip": cap},
        "trl": {"epsilon": 1.0, "epsilon_high": cap - 1, "delta": cap}}[target])
    return settings


def _staleness(config: TrainConfig, target: str) -> tuple[dict[str, Any], list[str]]:
    """(settings, differences) for rollouts `staleness` updates old; Unexpressible where the target
    has no setting for it (train/staleness.py: what kleval's two modes are)."""
    if not config.staleness:
        return {}, []
    n = config.staleness
    if target == "verl":
        raise trainers.Unexpressible(
            f"rollouts {n} updates stale (staleness/async_level {n}): verl's main_ppo samples on-policy and its "
            "fully_async recipe bounds the share of stale samples (async_training.staleness_threshold), not their "
            "age in updates")
    if target == "trl":
        raise trainers.Unexpressible(
            f"rollouts {n} updates stale (staleness/async_level {n}): GRPOTrainer/RLOOTrainer sample on-policy and "
            "TRL's experimental AsyncGRPOTrainer only discards samples older than max_staleness and has no KL term")
    # OpenRLHF's async trainer: the sampler generates with the newest broadcast weights and may run at
    # most async_queue_size batches ahead (a slot is freed when the trainer takes a batch).
    difference = ("OpenRLHF's async sampler uses the newest weights, at most async_queue_size batches ahead, so "
                  "how stale each batch is depends on its timing")
    if config.staleness_mode == "fixed":
        difference += f", never held at exactly {n} updates (kleval's --staleness-mode latest is the closer model)"
    return {"train.async_enable": True, "train.async_queue_size": n}, [difference]


def export(config: TrainConfig, target: str) -> Export:
    """The settings that run `config` in `target` (one of TARGETS), with a verdict."""
    if target not in TARGETS:
        raise ConfigError(f"unknown export target {target!r}; choose one of {', '.join(TARGETS)}")
    wanted = trainers.from_kleval(config.to_dict()).settings
    out = Export(target)
    try:
        if target == "verl":
            settings, caveats = trainers.to_verl(wanted)
            read = trainers.from_verl(_nest(settings)).settings
        elif target == "openrlhf":
            settings, caveats = trainers.to_openrlhf(wanted)
            read = trainers.from_openrlhf(settings).settings
        else:
            out.config_class, settings, caveats = trainers.to_trl(wanted)
            read = trainers.from_trl("rloo" if out.config_class == "RLOOConfig" else "grpo", settings).settings
    except trainers.Unexpressible as exc:
        out.unexpressible = str(exc)
        return out
    try:
        stale_settings, stale_differences = _staleness(config, target)
    except trainers.Unexpressible as exc:
        out.unexpressible = str(exc)
        return out
    out.settings = {**settings, **_off_policy(config, target), **stale_settings}
    out.differences = _differences(wanted, read) + caveats + stale_differences
    if config.recipe == "async" and config.micro_batch_size < config.batch_size:
        out.differences.append(f"the async recipe divides each micro-batch of {config.micro_batch_size} rows by its own "
                               f"tokens; {target}'s token mean divides by the whole batch's")
    return out
