"""Group a study's checkpoints into configuration rows, and give each row a name and a colour.

A row is one full training configuration: the checkpoint's RunSettings (the whole KLConfig,
trainer, advantage estimator, loss aggregation, group size). Runs that differ only by seed are
the only ones pooled into a row; for the table each run contributes its last evaluated step.
Checkpoints with no training configuration (a plain base model) get one row per run.

Rows are named by RunSettings.label() ("k3-loss β=0.1", "k3-loss clamp(hard)=10 β=0.1 (verl)");
when every trained row has the same β the β is left out of the names (the caption gives it).
Two rows that would still share a name get the settings that tell them apart appended. Rows are
ordered like the paper: base models, then kleval's presets in PRESETS order, then the rest.
"""
from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass

from kleval.eval.checkpoints import Checkpoint
from kleval.klconfig import PRESETS, RunSettings
from kleval.report.study import Study

# One colour per preset, in PRESETS order, so every figure of every study agrees.
_PALETTE = ("#7f7f7f", "#1f77b4", "#ff7f0e", "#d62728", "#2ca02c", "#8c564b", "#bcbd22", "#9467bd")
PRESET_COLOURS = dict(zip(PRESETS, _PALETTE))
_EXTRA_COLOURS = ("#17becf", "#e377c2", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd")
_PRESET_ORDER = tuple(PRESETS)
_DISTINGUISHING = ("loss_aggregation", "algorithm", "group_size")


@dataclass(frozen=True)
class ConfigRow:
    """One table row: a training configuration and the runs (seeds) pooled into it."""

    name: str  # the configuration without β (a preset name for kleval presets), or the model's run name
    display: str  # the row's unique name in tables and legends
    settings: RunSettings | None  # None for a checkpoint without training configuration
    runs: tuple[str, ...]  # sorted run names
    final_labels: tuple[str, ...]  # per run (same order), the checkpoint at its last step
    labels_by_step: tuple[tuple[int | None, tuple[str, ...]], ...]  # (step, labels of runs having it), by step
    colour: str

    @property
    def beta(self) -> float | None:
        kl = self.settings.kl if self.settings else None
        return kl.beta if kl is not None and kl.active else None

    @property
    def final_step(self) -> int | None:
        steps = [s for s, _ in self.labels_by_step if s is not None]
        return max(steps) if steps else None


def _name(settings: RunSettings) -> str:
    """The configuration's name without β: "k3-loss", "unknown (verl)", "k3-loss seq (openrlhf)"."""
    return settings.name()


def _sort_key(settings: RunSettings | None, name: str) -> tuple:
    if settings is None:
        return (0, 0, name, -1.0)
    preset = settings.kl.name if settings.kl is not None else ""
    rank = _PRESET_ORDER.index(preset) if preset in _PRESET_ORDER else len(_PRESET_ORDER)
    beta = settings.kl.beta if settings.kl is not None else -1.0
    return (1, rank, settings.trainer != "kleval", name, beta)


def group_rows(study: Study) -> list[ConfigRow]:
    """The study's configuration rows, in table order."""
    evaluated_labels = {label for label, _ in study.evaluated}
    groups: dict[object, list[Checkpoint]] = defaultdict(list)
    for checkpoint in study.checkpoints.values():
        if checkpoint.label in evaluated_labels:
            key = checkpoint.settings if checkpoint.settings is not None else ("model", _run(checkpoint))
            groups[key].append(checkpoint)
    names = {key: _name(key) if isinstance(key, RunSettings) else key[1] for key in groups}
    keys = sorted(groups, key=lambda k: _sort_key(k if isinstance(k, RunSettings) else None, names[k]))
    displays = _displays(keys, names)
    rows, extra_colours, used = [], itertools.cycle(_EXTRA_COLOURS), set()  # any number of rows
    for key in keys:
        settings = key if isinstance(key, RunSettings) else None
        colour = PRESET_COLOURS.get(names[key])
        if colour is None or colour in used:
            colour = next(extra_colours)
        used.add(colour)
        rows.append(_row(names[key], displays[key], settings, groups[key], colour))
    return rows


def _run(checkpoint: Checkpoint) -> str:
    return checkpoint.run or checkpoint.label


def _displays(keys: list, names: dict) -> dict:
    """Unique row names: label() (β left out when all trained rows share it), then what differs."""
    trained = [k for k in keys if isinstance(k, RunSettings)]
    betas = {k.kl.beta for k in trained if k.kl is not None and k.kl.active}
    displays = {k: (names[k] if len(betas) <= 1 or k.kl is None else k.label()) if k in trained else names[k]
                for k in keys}
    clashes: dict[str, list] = defaultdict(list)
    for k in keys:
        clashes[displays[k]].append(k)
    for same in clashes.values():
        if len(same) < 2:
            continue
        for field in _DISTINGUISHING:
            values = {getattr(k, field, None) for k in same}
            if len(values) > 1:
                for k in same:
                    displays[k] += f", {field.replace('_', ' ')} {getattr(k, field, None)}"
        if len({displays[k] for k in same}) < len(same):  # differ in a KL detail label() does not spell out
            for number, k in enumerate(same, start=1):
                displays[k] += f" #{number}"
    return displays


def _row(name: str, display: str, settings: RunSettings | None, checkpoints: list[Checkpoint], colour: str):
    by_run: dict[str, list[Checkpoint]] = defaultdict(list)
    for checkpoint in checkpoints:
        by_run[_run(checkpoint)].append(checkpoint)
    runs = tuple(sorted(by_run))
    final = tuple(max(by_run[run], key=_checkpoint_order).label for run in runs)
    steps: dict[int | None, list[str]] = defaultdict(list)
    for run in runs:
        for checkpoint in sorted(by_run[run], key=_checkpoint_order):
            steps[checkpoint.step].append(checkpoint.label)
    step_items = tuple((step, tuple(steps[step])) for step in sorted(steps, key=_step_value))
    return ConfigRow(name=name, display=display, settings=settings, runs=runs, final_labels=final,
                     labels_by_step=step_items, colour=colour)


def _step_value(step: int | None) -> int:
    return step if step is not None else -1


def _checkpoint_order(checkpoint: Checkpoint) -> tuple[int, str]:
    return _step_value(checkpoint.step), checkpoint.label


def find_reference(rows: list[ConfigRow], reference: str) -> ConfigRow | None:
    """The row named `reference`: by display name, else by name without β. When a name matches
    several rows (several βs, or trainers), kleval's own row with the most runs is taken (ties: the
    first in table order); the table marks it "(ref)". Pass a display name to pick another."""
    for row in rows:
        if row.display == reference:
            return row
    matches = [row for row in rows if row.name == reference]
    if not matches:
        return None
    return max(matches, key=lambda r: (r.settings is not None and r.settings.trainer == "kleval", len(r.runs),
                                       -rows.index(r)))
