"""The report's figures (PNG and PDF, matplotlib Agg): pass@k vs k, accuracy vs step, training
curves, and ID vs OOD accuracy. One colour per configuration in every figure (from its row) plus
its own marker and line style, so configurations whose curves coincide stay visible; labelled
axes, integer ticks for steps, k and lengths, legends outside the data, and bootstrap CI bands
(or the seed range for training curves). Figures are written without timestamps so the same study
gives the same files. `series_styles(n)` gives any other plot n distinguishable series.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kleval.report.configs import ConfigRow
from kleval.report.study import Study
from kleval.report.table import ID_AVG, OOD_AVG, Table, per_problem_matrix
from kleval.stats import pooled_bootstrap

TRAIN_METRICS = (
    ("reward", "reward"),
    ("kl_exact", "exact reverse KL"),
    ("entropy", "entropy (nats/token)"),
    ("response_length", "response length (tokens)"),
)
PLOT_RESAMPLES = 400  # enough for a smooth band; the table uses more


# Enough distinct colours for every series of the project's plots (gradcheck draws 12+); the cycles
# of markers (8) and line styles (4) have other lengths, so a repeated colour never repeats the look.
SERIES_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf", "#000000", "#e6ab02", "#393b79", "#a6761d", "#1b9e77", "#ad494a")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = ("-", "--", "-.", ":")


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str
    linestyle: str


def series_styles(count: int) -> list[Style]:
    """`count` distinguishable (colour, marker, line style) triples, the same for the same count."""
    return [Style(SERIES_COLOURS[i % len(SERIES_COLOURS)], MARKERS[i % len(MARKERS)],
                  LINE_STYLES[(i // len(MARKERS) + i) % len(LINE_STYLES)]) for i in range(count)]


def _row_styles(rows: list[ConfigRow]) -> dict[str, Style]:
    """Each configuration's colour (its row's) with a marker and line style of its own."""
    return {r.display: Style(r.colour, s.marker, s.linestyle) for r, s in zip(rows, series_styles(len(rows)))}


def _integer_axis(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


@dataclass(frozen=True)
class Figure:
    stem: str  # file name without extension
    title: str
    caption: str


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 150, "font.size": 9, "axes.spines.top": False,
        "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3, "svg.hashsalt": "kleval",
        "text.parse_math": False,  # names are data: a '$' in a task or run name is a dollar, not TeX
    })
    return plt


def _save(fig, out_dir: Path, stem: str) -> None:
    import os

    for ext, metadata in (("png", {"Software": None}), ("pdf", {"CreationDate": None, "Producer": None})):
        partial = out_dir / f".{stem}.{ext}.tmp"  # then renamed: a kill never leaves half a figure
        fig.savefig(partial, format=ext, bbox_inches="tight", metadata=metadata)
        os.replace(partial, out_dir / f"{stem}.{ext}")


def _legend(fig, axes, rows: list[ConfigRow], styles: dict[str, Style]) -> None:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=r.colour, marker=styles[r.display].marker, ls=styles[r.display].linestyle,
                      lw=1.6, ms=5, label=r.display) for r in rows]
    axes[-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
                    title="KL configuration")


def _panels(plt, count: int, width: float = 3.6, height: float = 3.0):
    fig, axes = plt.subplots(1, count, figsize=(width * count + 1.8, height), squeeze=False)
    return fig, list(axes[0])


def plot_pass_at_k(study: Study, table: Table, out_dir: Path) -> Figure | None:
    tasks = [c.name for c in table.columns if len(c.tasks) == 1]
    curves: dict[tuple[str, str], list[tuple[int, float, float, float]]] = {}
    for row in table.rows:
        for task in tasks:
            found = per_problem_matrix(study, row.final_labels, task, 1)
            if found is None:
                continue
            n_min = min(int(study.outcomes(l, task).num_samples.min()) for l in row.final_labels)
            ks = sorted({k for k in (2 ** i for i in range(12)) if k <= n_min} | {n_min})
            points = []
            for k in ks:
                _, matrix = per_problem_matrix(study, row.final_labels, task, k)
                points.append((k, *pooled_bootstrap([matrix], num_resamples=PLOT_RESAMPLES)))
            curves[(row.display, task)] = points
    if not any(len(p) > 1 for p in curves.values()):
        return None  # n = 1 everywhere: pass@k vs k is a single point
    plt = _pyplot()
    styles = _row_styles(table.rows)
    fig, axes = _panels(plt, len(tasks))
    for ax, task in zip(axes, tasks):
        for row in table.rows:
            points = curves.get((row.display, task))
            if not points:
                continue
            k, mean, lo, hi = (np.array(v) for v in zip(*points))
            style = styles[row.display]
            ax.plot(k, 100 * mean, marker=style.marker, ls=style.linestyle, ms=4, color=row.colour, lw=1.6)
            ax.fill_between(k, 100 * lo, 100 * hi, color=row.colour, alpha=0.12, lw=0)
        ax.set_xscale("log", base=2)
        ticks = sorted({p[0] for pts in curves.values() for p in pts})
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.minorticks_off()
        ax.set_title(f"{task} ({study.task_splits[task].upper()})")
        ax.set_xlabel("k (samples)")
        ax.set_ylabel("pass@k (%)")
    _legend(fig, axes, table.rows, styles)
    _save(fig, out_dir, "pass_at_k")
    plt.close(fig)
    return Figure("pass_at_k", "pass@k against k",
                  "Unbiased pass@k at the last step of each configuration; band: 95% bootstrap CI "
                  "over problems and seeds.")


def plot_accuracy_vs_step(study: Study, table: Table, out_dir: Path) -> Figure | None:
    rows = [r for r in table.rows if len(r.labels_by_step) > 1]
    if not rows:
        return None
    # Single-checkpoint rows (e.g. the base model) are drawn as dashed horizontal references.
    flat_rows = [r for r in table.rows if len(r.labels_by_step) == 1]
    tasks = [c.name for c in table.columns if len(c.tasks) == 1]
    plt = _pyplot()
    styles = _row_styles(table.rows)
    fig, axes = _panels(plt, len(tasks))
    for ax, task in zip(axes, tasks):
        for row in rows:
            points = []
            for step, labels in row.labels_by_step:
                found = per_problem_matrix(study, labels, task, table.k)
                if found is not None and step is not None:
                    points.append((step, *pooled_bootstrap([found[1]], num_resamples=PLOT_RESAMPLES)))
            if not points:
                continue
            step, mean, lo, hi = (np.array(v) for v in zip(*points))
            style = styles[row.display]
            ax.plot(step, 100 * mean, marker=style.marker, ls=style.linestyle, ms=4, color=row.colour, lw=1.6)
            ax.fill_between(step, 100 * lo, 100 * hi, color=row.colour, alpha=0.12, lw=0)
        for row in flat_rows:
            cell = table.cells.get((row.display, task))
            if cell is not None:
                ax.axhline(100 * cell.mean, color=row.colour, ls=styles[row.display].linestyle, lw=1.2)
        ax.set_title(f"{task} ({study.task_splits[task].upper()})")
        _integer_axis(ax.xaxis)
        ax.set_xlabel("training step")
        ax.set_ylabel(f"pass@{table.k} (%)")
    _legend(fig, axes, flat_rows + rows, styles)
    _save(fig, out_dir, "accuracy_vs_step")
    plt.close(fig)
    return Figure("accuracy_vs_step", f"pass@{table.k} against training step",
                  "Mean over the seeds evaluated at each step; band: 95% bootstrap CI over problems "
                  "and seeds; horizontal lines: checkpoints without a step sweep (e.g. the base model).")


def _smooth(values: np.ndarray, window: int) -> np.ndarray:
    if window <= 1:
        return values
    kernel = np.ones(window) / window
    padded = np.concatenate([np.full(window - 1, values[0]), values])
    return np.convolve(padded, kernel, mode="valid")


def plot_training_curves(study: Study, table: Table, out_dir: Path) -> Figure | None:
    logs: dict[str, list[list[dict]]] = {}
    for row in table.rows:
        runs = [study.train_log(study.checkpoints[label]) for label in row.final_labels]
        runs = [r for r in runs if r]
        if runs:
            logs[row.display] = runs
    if not logs:
        return None
    plt = _pyplot()
    styles = _row_styles(table.rows)
    fig, axes = _panels(plt, len(TRAIN_METRICS), width=3.2)
    window = 1
    for ax, (key, label) in zip(axes, TRAIN_METRICS):
        for row in table.rows:
            runs = logs.get(row.display)
            if not runs:
                continue
            series = [{r["step"]: r[key] for r in run if r.get(key) is not None} for run in runs]
            steps = sorted(set.intersection(*(set(s) for s in series)))
            if not steps:
                continue
            values = np.array([[s[step] for step in steps] for s in series], dtype=float)
            window = max(1, len(steps) // 25)
            smoothed = np.stack([_smooth(v, window) for v in values])
            style = styles[row.display]
            every = max(1, len(steps) // 8)
            # markers of coinciding curves fall on different steps, so each one stays visible
            offset = table.rows.index(row) * max(1, every // len(table.rows)) % every
            ax.plot(steps, smoothed.mean(axis=0), color=row.colour, lw=1.4, ls=style.linestyle, marker=style.marker,
                    ms=4, markevery=(offset, every))
            if len(runs) > 1:
                ax.fill_between(steps, smoothed.min(axis=0), smoothed.max(axis=0), color=row.colour,
                                alpha=0.15, lw=0)
        ax.set_xlabel("training step")
        _integer_axis(ax.xaxis)
        if key == "response_length":
            _integer_axis(ax.yaxis)
        ax.set_ylabel(label)
        ax.set_title(label)
    _legend(fig, axes, [r for r in table.rows if r.display in logs], styles)
    _save(fig, out_dir, "training_curves")
    plt.close(fig)
    return Figure("training_curves", "Training curves",
                  f"From each run's train_log.jsonl: mean over seeds of a trailing {window}-step "
                  "moving average; band: range over seeds.")


def plot_id_vs_ood(table: Table, out_dir: Path) -> Figure | None:
    def pick(split: str, average: str) -> str | None:
        names = [c.name for c in table.columns if c.split == split]
        return average if average in names else (names[0] if len(names) == 1 else None)

    id_col, ood_col = pick("id", ID_AVG), pick("ood", OOD_AVG)
    if id_col is None or ood_col is None:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    styles = _row_styles(table.rows)
    shown = []
    for row in table.rows:
        x, y = table.cells.get((row.display, id_col)), table.cells.get((row.display, ood_col))
        if x is None or y is None:
            continue
        shown.append(row)
        ax.errorbar(100 * x.mean, 100 * y.mean,
                    xerr=[[100 * (x.mean - x.lo)], [100 * (x.hi - x.mean)]],
                    yerr=[[100 * (y.mean - y.lo)], [100 * (y.hi - y.mean)]],
                    fmt=styles[row.display].marker, ms=6, color=row.colour, capsize=3, lw=1.2)
    if not shown:
        plt.close(fig)
        return None
    ax.set_xlabel(f"in distribution: {id_col} pass@{table.k} (%)")
    ax.set_ylabel(f"out of distribution: {ood_col} pass@{table.k} (%)")
    _legend(fig, [ax], shown, styles)
    _save(fig, out_dir, "id_vs_ood")
    plt.close(fig)
    return Figure("id_vs_ood", "In- against out-of-distribution accuracy",
                  "Each point is a KL configuration at its last step; bars: 95% CI over problems and seeds.")


def make_figures(study: Study, table: Table, out_dir: Path) -> list[Figure]:
    figures = [
        plot_pass_at_k(study, table, out_dir),
        plot_accuracy_vs_step(study, table, out_dir),
        plot_training_curves(study, table, out_dir),
        plot_id_vs_ood(table, out_dir),
    ]
    return [f for f in figures if f is not None]
