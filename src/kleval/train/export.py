"""`kleval train --export verl|openrlhf|trl --preset P`: other trainers' settings for a KL configuration.

Past one node kleval does not build an engine; it prints the settings that run a configuration in
verl (main), OpenRLHF (>= 0.10.2, dotted flags) or TRL (1.16), using the name mappings of
`kleval.klconfig.trainers`. The verdict is computed, not asserted: the exported settings are read
back through the same reader `kleval eval` uses on that trainer's checkpoints, and the export
"reproduces" the configuration only when the reading equals it (KL block, advantage estimator,
loss aggregation, group size) and nothing else differs; otherwise it "approximates: <why>", or
"cannot reproduce: <why>" when the trainer has no setting for a part of it.
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
    names = {"verl": ("actor_rollout_ref.actor.ppo_epochs", "actor_rollout_ref.actor.clip_ratio",
                      "actor_rollout_ref.rollout.temperature"),
             "openrlhf": ("train.max_epochs", "actor.eps_clip", "rollout.temperature"),
             "trl": ("num_iterations", "epsilon", "temperature")}[target]
    return dict(zip(names, (config.ppo_epochs, config.clip_epsilon, config.temperature)))


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
    out.settings = {**settings, **_off_policy(config, target)}
    out.differences = _differences(wanted, read) + caveats
    if config.staleness:
        out.differences.append(f"{target} has no rollout staleness setting in its synchronous trainer")
    return out
