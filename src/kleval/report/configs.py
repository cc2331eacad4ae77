"""Group a study's checkpoints into KL-configuration rows, and give each row a name and a colour.

A row is one KL configuration: (preset, estimator, placement, beta). Every training run (seed)
with that configuration is pooled into the row; for the table each run contributes its last
evaluated step. Checkpoints with no training metadata (a plain base model) get one row per run.
Rows are ordered like the paper: base models, then none, K1, K2, K3 presets, then by beta.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kleval.report.study import Checkpoint, Study

# Fixed colours for the presets the project ships, so every figure of every study agrees.
PRESET_COLOURS = {
    "none": "#7f7f7f",
    "k1-reward": "#1f77b4",
    "k1-loss": "#ff7f0e",
    "k2-loss": "#8c564b",
    "k3-reward": "#d62728",
    "k3-loss": "#2ca02c",
    "k3-both": "#9467bd",
}
_EXTRA_COLOURS = ("#17becf", "#bcbd22", "#e377c2", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173")
_PRESET_ORDER = tuple(PRESET_COLOURS)


@dataclass(frozen=True)
class ConfigRow:
    """One table row: a KL configuration and the runs (seeds) pooled into it."""

    name: str  # preset, or "<estimator>-<placement>", or the run / model name for a checkpoint without KL metadata
    display: str  # name, plus beta when the same name occurs with several betas
    preset: str
    estimator: str
    placement: str
    beta: float | None
    runs: tuple[str, ...]  # sorted run names
    final_labels: tuple[str, ...]  # per run (same order), the checkpoint at its last step
    labels_by_step: tuple[tuple[int | None, tuple[str, ...]], ...]  # (step, labels of runs having it)
    colour: str

    @property
    def final_step(self) -> int | None:
        steps = [s for s, _ in self.labels_by_step if s is not None]
        return max(steps) if steps else None


def _row_name(checkpoint: Checkpoint) -> tuple[str, bool]:
    """(name, trained) for a checkpoint."""
    if checkpoint.preset:
        return checkpoint.preset, True
    if checkpoint.kl_estimator or checkpoint.kl_placement:
        parts = [p for p in (checkpoint.kl_estimator, checkpoint.kl_placement) if p]
        return "-".join(parts), True
    return checkpoint.run, False


def _sort_key(name: str, trained: bool, beta: float | None) -> tuple:
    rank = _PRESET_ORDER.index(name) if name in _PRESET_ORDER else len(_PRESET_ORDER)
    return (trained, rank, name, beta if beta is not None else -1.0)


def group_rows(study: Study) -> list[ConfigRow]:
    """The study's configuration rows, in table order."""
    evaluated_labels = {label for label, _ in study.evaluated}
    groups: dict[tuple, list[Checkpoint]] = defaultdict(list)
    trained_of: dict[tuple, bool] = {}
    for checkpoint in study.checkpoints.values():
        if checkpoint.label not in evaluated_labels:
            continue
        name, trained = _row_name(checkpoint)
        key = (name, checkpoint.kl_estimator, checkpoint.kl_placement, checkpoint.kl_beta)
        groups[key].append(checkpoint)
        trained_of[key] = trained
    keys = sorted(groups, key=lambda k: _sort_key(k[0], trained_of[k], k[3]))
    betas_per_name: dict[str, set] = defaultdict(set)
    for key in keys:
        betas_per_name[key[0]].add(key[3])

    rows, extra_colours = [], iter(_EXTRA_COLOURS * 4)
    used_colours: set[str] = set()
    for key in keys:
        name, estimator, placement, beta = key
        by_run: dict[str, list[Checkpoint]] = defaultdict(list)
        for checkpoint in groups[key]:
            by_run[checkpoint.run].append(checkpoint)
        runs = tuple(sorted(by_run))
        final = tuple(max(by_run[run], key=_checkpoint_order).label for run in runs)
        steps: dict[int | None, list[str]] = defaultdict(list)
        for run in runs:
            for checkpoint in sorted(by_run[run], key=_checkpoint_order):
                steps[checkpoint.step].append(checkpoint.label)
        step_items = tuple((step, tuple(steps[step])) for step in sorted(steps, key=_step_value))
        display = name if len(betas_per_name[name]) == 1 or beta is None else f"{name} β={beta:g}"
        colour = PRESET_COLOURS.get(name) if len(betas_per_name[name]) == 1 else None
        if colour is None or colour in used_colours:
            colour = next(extra_colours)
        used_colours.add(colour)
        rows.append(
            ConfigRow(
                name=name,
                display=display,
                preset=groups[key][0].preset,
                estimator=estimator,
                placement=placement,
                beta=beta,
                runs=runs,
                final_labels=final,
                labels_by_step=step_items,
                colour=colour,
            )
        )
    return rows


def _step_value(step: int | None) -> int:
    return step if step is not None else -1


def _checkpoint_order(checkpoint: Checkpoint) -> tuple[int, str]:
    return _step_value(checkpoint.step), checkpoint.label


def find_reference(rows: list[ConfigRow], reference: str) -> ConfigRow | None:
    """The row named `reference` (by display name, then by name if that is unambiguous)."""
    for row in rows:
        if row.display == reference:
            return row
    matches = [row for row in rows if row.name == reference]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        from kleval.errors import ConfigError

        options = ", ".join(repr(r.display) for r in matches)
        raise ConfigError(f"reference {reference!r} matches several rows ({options}); pass one of them")
    return None
