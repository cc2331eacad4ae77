"""The paper-shaped comparison table as numbers: one cell per KL configuration x task (or average).

Each cell pools a configuration's runs (seeds, each at its last step): the value is the mean of
per-problem pass@k over problems and runs, the CI a bootstrap over both (`stats.pooled_bootstrap`).
Significance against the reference row is a paired sign-flip test over problems on the
run-averaged per-problem values (`stats.paired_compare`); the ID/OOD averages weigh each task
equally and test with tasks as strata. Rendering lives in `report.render`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kleval.errors import ConfigError
from kleval.metrics import pass_at_k
from kleval.report.configs import ConfigRow, find_reference, group_rows
from kleval.report.study import Study
from kleval.stats import PairedComparison, paired_compare, pooled_bootstrap

ID_AVG, OOD_AVG = "ID avg", "OOD avg"
DEFAULT_REFERENCE = "k3-loss"


@dataclass(frozen=True)
class Cell:
    """One configuration x column: pooled mean and CI, and the paired test against the reference."""

    mean: float
    lo: float
    hi: float
    num_problems: int
    num_runs: int
    vs_reference: PairedComparison | None = None


@dataclass(frozen=True)
class Column:
    name: str  # task name, or ID_AVG / OOD_AVG
    split: str  # "id" or "ood"
    tasks: tuple[str, ...]  # the task itself, or the tasks averaged


@dataclass
class Table:
    k: int
    confidence: float
    alpha: float
    rows: list[ConfigRow]
    columns: list[Column]
    cells: dict[tuple[str, str], Cell]  # (row.display, column.name) -> Cell
    reference: ConfigRow | None
    notes: list[str] = field(default_factory=list)

    def best(self, column: str, decimals: int = 1) -> float | None:
        """Highest mean in a column, rounded as displayed (so displayed ties are all best)."""
        values = [round(100 * c.mean, decimals) for (_, col), c in self.cells.items() if col == column]
        return max(values) if values else None


def per_problem_matrix(
    study: Study, labels: tuple[str, ...], task: str, k: int
) -> tuple[tuple[str, ...], np.ndarray] | None:
    """(problem ids, (num_runs, num_problems) pass@k) for checkpoints `labels` on `task`.

    Problems are those every run was evaluated on. None when a checkpoint lacks the task.
    """
    evaluated = study.evaluated
    if any((label, task) not in evaluated for label in labels):
        return None
    outcomes = [study.outcomes(label, task) for label in labels]
    common = set(outcomes[0].problem_ids)
    for outcome in outcomes[1:]:
        common &= set(outcome.problem_ids)
    ids = tuple(sorted(common))
    if not ids:
        return None
    rows = []
    for label, outcome in zip(labels, outcomes):
        restricted = outcome.restrict(ids)
        smallest = int(restricted.num_samples.min())
        if k > smallest:
            raise ConfigError(
                f"pass@{k} needs at least {k} samples per problem, but {label} on {task} has "
                f"n={smallest}; choose a smaller --k"
            )
        rows.append(pass_at_k(restricted.num_samples, restricted.num_correct, k))
    return ids, np.stack(rows)


def build_columns(study: Study) -> list[Column]:
    splits = study.task_splits
    columns = []
    for split, average in (("id", ID_AVG), ("ood", OOD_AVG)):
        tasks = tuple(t for t, s in splits.items() if s == split)
        columns += [Column(t, split, (t,)) for t in tasks]
        if len(tasks) >= 2:
            columns.append(Column(average, split, tasks))
    return columns


def compute_table(
    study: Study,
    *,
    k: int = 1,
    reference: str | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    num_resamples: int = 1000,
    seed: int = 0,
) -> Table:
    """All cells of the comparison table. reference=None means "k3-loss" when present."""
    rows = group_rows(study)
    columns = build_columns(study)
    ref_row = find_reference(rows, reference or DEFAULT_REFERENCE)
    notes = []
    if ref_row is None:
        if reference is not None:
            names = ", ".join(repr(r.display) for r in rows)
            raise ConfigError(f"reference row {reference!r} not found; rows are {names}")
        notes.append(f"No {DEFAULT_REFERENCE!r} row in this study, so no significance marks.")

    matrices: dict[tuple[str, str], tuple[tuple[str, ...], np.ndarray]] = {}
    for row in rows:
        for column in columns:
            if len(column.tasks) == 1:
                found = per_problem_matrix(study, row.final_labels, column.name, k)
                if found is not None:
                    matrices[(row.display, column.name)] = found

    cells: dict[tuple[str, str], Cell] = {}
    for row in rows:
        for column in columns:
            parts = [matrices.get((row.display, t)) for t in column.tasks]
            if any(p is None for p in parts):
                continue
            mean, lo, hi = pooled_bootstrap(
                [m for _, m in parts], confidence=confidence, num_resamples=num_resamples, seed=seed
            )
            comparison = None
            if ref_row is not None and row is not ref_row:
                comparison = _compare(parts, [matrices.get((ref_row.display, t)) for t in column.tasks], seed)
            cells[(row.display, column.name)] = Cell(
                mean, lo, hi, sum(len(ids) for ids, _ in parts), len(row.runs), comparison
            )
    for (label, task), count in sorted(study.incomplete.items()):
        notes.append(f"{label} on {task}: {count} problems not fully graded were left out.")
    return Table(k, confidence, alpha, rows, columns, cells, ref_row, notes)


def _compare(parts, reference_parts, seed: int) -> PairedComparison | None:
    """Paired test of a row against the reference on the problems both were evaluated on."""
    if any(p is None for p in reference_parts):
        return None
    strata_a, strata_b = [], []
    for (ids, matrix), (ref_ids, ref_matrix) in zip(parts, reference_parts):
        shared = sorted(set(ids) & set(ref_ids))
        if not shared:
            return None
        index, ref_index = {p: i for i, p in enumerate(ids)}, {p: i for i, p in enumerate(ref_ids)}
        strata_a.append(matrix.mean(axis=0)[[index[p] for p in shared]])
        strata_b.append(ref_matrix.mean(axis=0)[[ref_index[p] for p in shared]])
    return paired_compare(strata_a, strata_b, seed=seed)
