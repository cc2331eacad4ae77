"""The paper-shaped comparison table as numbers: one cell per KL configuration x task (or average).

Each cell pools a configuration's runs (seeds, each at its last step): the value is the mean of
per-problem pass@k over problems and runs, the CI a bootstrap over seeds and problems with the
unbiased between-seed variance (`stats.pooled_bootstrap`). The ID/OOD averages weigh each task
equally.

Significance against the reference row answers one of two questions (`test=`):

- "seed" (default): does this *configuration* differ from the reference configuration? Welch's
  t-test on per-seed means (`stats.welch_seed_test`); a row, or a reference, with fewer than
  `stats.MIN_SEEDS` seeds is not tested, and the table says so.
- "problem": do these *checkpoints* (seed-averaged per problem) differ from the reference's on
  these problems? Paired sign-flip test over problems (`stats.paired_compare`), tasks as strata.

Either way the p-values of the whole table are Holm-adjusted together, and an arrow needs the
adjusted p below alpha. `significance_caption` says in words exactly what was tested. Rendering
lives in `report.render`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from kleval.errors import ConfigError
from kleval.metrics import pass_at_k
from kleval.report.configs import ConfigRow, find_reference, group_rows
from kleval.report.study import Study
from kleval.stats import (
    MIN_SEEDS, PairedComparison, SeedComparison, holm_adjust, paired_compare, pooled_bootstrap, welch_seed_test,
)

ID_AVG, OOD_AVG = "ID avg", "OOD avg"
DEFAULT_REFERENCE = "k3-loss"
TESTS = ("seed", "problem")


@dataclass(frozen=True)
class Cell:
    """One configuration x column: pooled mean and CI, and the test against the reference.

    adjusted_p is vs_reference's p-value after Holm's correction over every test in the table.
    """

    mean: float
    lo: float
    hi: float
    num_problems: int
    num_runs: int
    vs_reference: SeedComparison | PairedComparison | None = None
    adjusted_p: float | None = None


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
    test: str = "seed"
    num_tests: int = 0
    untested_rows: tuple[str, ...] = ()  # rows not tested at configuration level: too few seeds

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
    test: str = "seed",
) -> Table:
    """All cells of the comparison table. reference=None means "k3-loss" when present; test is
    "seed" (configuration level) or "problem" (checkpoint level), see the module docstring."""
    if test not in TESTS:
        raise ConfigError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
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

    untested: list[str] = []
    if ref_row is not None and test == "seed":
        untested = [r.display for r in rows if r is not ref_row and (len(r.runs) < MIN_SEEDS
                                                                     or len(ref_row.runs) < MIN_SEEDS)]
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
            if ref_row is not None and row is not ref_row and row.display not in untested:
                ref_parts = [matrices.get((ref_row.display, t)) for t in column.tasks]
                comparison = _compare(parts, ref_parts, test, confidence, seed)
            cells[(row.display, column.name)] = Cell(
                mean, lo, hi, sum(len(ids) for ids, _ in parts), len(row.runs), comparison
            )
    tested = [key for key, cell in cells.items() if cell.vs_reference is not None]
    adjusted = holm_adjust([cells[key].vs_reference.p_value for key in tested]) if tested else []
    for key, p in zip(tested, adjusted):
        cells[key] = replace(cells[key], adjusted_p=p)
    for (label, task), count in sorted(study.incomplete.items()):
        notes.append(f"{label} on {task}: {count} problems not fully graded were left out.")
    return Table(k, confidence, alpha, rows, columns, cells, ref_row, notes, test, len(tested), tuple(untested))


def _shared(parts, reference_parts):
    """Per task: (this row's matrix, the reference's matrix), restricted to their shared problems."""
    if any(p is None for p in reference_parts):
        return None
    pairs = []
    for (ids, matrix), (ref_ids, ref_matrix) in zip(parts, reference_parts):
        shared = sorted(set(ids) & set(ref_ids))
        if not shared:
            return None
        index, ref_index = {p: i for i, p in enumerate(ids)}, {p: i for i, p in enumerate(ref_ids)}
        pairs.append((matrix[:, [index[p] for p in shared]], ref_matrix[:, [ref_index[p] for p in shared]]))
    return pairs


def _compare(parts, reference_parts, test: str, confidence: float, seed: int):
    """The row's test against the reference on the problems both were evaluated on."""
    pairs = _shared(parts, reference_parts)
    if pairs is None:
        return None
    if test == "seed":
        # One number per training run: its mean over problems, averaged over the column's tasks.
        seed_means = np.mean([a.mean(axis=1) for a, _ in pairs], axis=0)
        ref_seed_means = np.mean([b.mean(axis=1) for _, b in pairs], axis=0)
        return welch_seed_test(seed_means, ref_seed_means, confidence=confidence)
    return paired_compare([a.mean(axis=0) for a, _ in pairs], [b.mean(axis=0) for _, b in pairs],
                          confidence=confidence, seed=seed)


def significance_caption(table: Table, up: str = "↑", down: str = "↓") -> str:
    """What the arrows mean, in words: the test, its unit, the correction and what was left out."""
    if table.reference is None:
        return ""
    ref = table.reference.display
    if table.num_tests == 0 and table.untested_rows:
        return (f"No significance marks: every row, or {ref}, has fewer than {MIN_SEEDS} seeds, too few for a "
                f"configuration-level test (`kleval report --test problem` compares the checkpoints instead).")
    if table.test == "seed":
        text = (f"{up}/{down}: this configuration is better/worse than {ref} with training runs as the unit: "
                f"Welch t-test on per-seed mean pass@{table.k} (two-sided; about other seeds of the same "
                f"configuration, on these problems)")
    else:
        text = (f"{up}/{down}: these checkpoints are better/worse than {ref}'s on these problems: paired "
                f"sign-flip test over problems on seed-averaged pass@{table.k} (two-sided; unit: problem, "
                f"so it says nothing about other training seeds)")
    text += f", Holm-adjusted over the {table.num_tests} tests of this table, adjusted p < {table.alpha:g}."
    if table.untested_rows:
        rows = ", ".join(table.untested_rows)
        text += (f" Not tested (fewer than {MIN_SEEDS} seeds in the row or in {ref}, so no "
                 f"configuration-level claim): {rows}.")
    return text
