"""Shared steps of the CPU studies (`kleval demo`, `--study beta|async|online|countdown`): pinned torch
for the run, training jobs in a spawn pool, evaluation of each run's final step, study headers
free of what would differ between two clones (time, git revision, where the data lies), so that a
fresh clone rewrites the committed reports byte for byte, and the per-seed summary table and
training-curve figure.
"""
from __future__ import annotations

import copy
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Sequence

# Study-header fields that record when and from which tree a run was made: true, but they would make
# every regenerated report differ from the committed one, so the CPU studies do not keep them.
VOLATILE_HEADER_FIELDS = ("created", "git_revision")

@contextmanager
def pinned_torch(threads: int):
    """Fixed torch thread count and deterministic algorithms for the block, restored afterwards
    (the demo is also called from tests and notebooks, which should not inherit them); tokenizer
    threads off unless the caller chose (the studies fork training workers)."""
    import os

    import torch

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    before = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(), \
        torch.is_deterministic_algorithms_warn_only_enabled()
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.set_num_threads(before[0])
        torch.use_deterministic_algorithms(before[1], warn_only=before[2])


def relative_to_cwd(path: Path) -> Path:
    """path relative to the working directory when it lies below it (so recorded paths do not
    depend on where the repository was cloned), else unchanged."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return Path(path)


def drop_volatile_header_fields(study: Path) -> None:
    from kleval.eval.study import HEADER_FILE, read_json, write_json

    header = read_json(study / HEADER_FILE)
    # A deep copy: the task entries are edited below, and `header` must keep the original to compare.
    kept = copy.deepcopy({key: value for key, value in header.items() if key not in VOLATILE_HEADER_FIELDS})
    # A benchmark file lies outside the checkout (../shared/data or $KLEVAL_DATA_DIR): keep its path
    # inside the data directory only (its content is pinned by data_hash), so the committed demo
    # does not depend on where the data directory was found.
    for entry in kept.get("tasks", {}).values():
        if entry.get("data_file"):
            entry["data_file"] = "/".join(Path(entry["data_file"]).parts[-2:])
    if kept != header:
        write_json(study / HEADER_FILE, kept)


def retire_stale_study(study: Path) -> bool:
    """Remove `study` when an earlier verifier graded it (e.g. the committed copy of a report after a
    verifier change), so the study starts afresh instead of refusing to mix verdicts; a study with the
    current verifier is kept, so an interrupted evaluation resumes. Returns whether it was removed."""
    import shutil

    from kleval.eval.study import HEADER_FILE, read_json
    from kleval.verify import VERIFIER_VERSION

    header = study / HEADER_FILE
    if not header.exists():
        return False
    old = read_json(header).get("verifier_version")
    if old == VERIFIER_VERSION:
        return False
    print(f"note: {study} was graded by verifier {old}; this is {VERIFIER_VERSION}: starting it afresh", flush=True)
    shutil.rmtree(study)
    return True


def train_runs(train_one: Callable[[tuple], str], jobs: Sequence[tuple], workers: int) -> list[str]:
    """Run `train_one(job)` for every job, `workers` single-threaded runs at a time (spawned, so each
    starts clean); returns the run directories in job order."""
    import multiprocessing

    if workers <= 1:
        return [train_one(job) for job in jobs]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return pool.map(train_one, jobs, chunksize=1)


ARITHMETIC_TASKS = ("arith_add", "arith_sub")  # (ID, OOD) of the arithmetic studies


def evaluate_final_steps(base: str, run_dirs: Sequence[str], study: Path, *, n: int, limit: int,
                         progress: bool, tasks: Sequence[str] = ARITHMETIC_TASKS, max_tokens: int = 8) -> Path:
    """Evaluate the base model and each run's last step on `tasks` (default arith_add, ID, and
    arith_sub, OOD), T=1, into `study`, with its header made clone-independent; returns `study`."""
    from kleval.eval.checkpoints import discover
    from kleval.eval.run import EvalSpec, evaluate
    from kleval.types import SamplingParams

    last = {}
    for c in discover([base, *run_dirs]):
        if c.run is None or c.step is None:
            last[c.label] = c
        elif c.run not in last or c.step > last[c.run].step:
            last[c.run] = c
    sampling = SamplingParams(n=n, temperature=1.0, top_p=1.0, max_tokens=max_tokens, seed=0)
    retire_stale_study(study)
    evaluate(list(last.values()), EvalSpec(tasks=tuple(tasks), sampling=sampling, ks=(1,),
                                          limit=limit, chunk_size=200), study, progress=progress)
    drop_volatile_header_fields(study)
    return study


def final_pass_at_1(study: Path) -> dict[tuple[str, str], float]:
    """(run name, split) -> pass@1 of the evaluated checkpoints, from the study's results.csv; a
    checkpoint outside any run (the base model) is keyed by its checkpoint label."""
    import csv

    with open(study / "results.csv", newline="", encoding="utf-8") as handle:
        return {(r["run"] or r["checkpoint"], r["split"]): float(r["pass@1"]) for r in csv.DictReader(handle)}


def seed_table(rows: Sequence[dict], presets: Sequence[str], columns: Sequence[str], caption: str) -> str:
    """A markdown table, one line per preset: each column's mean over the preset's rows (seeds) with
    the per-seed values in brackets."""
    import statistics

    lines = [caption, "", "| preset | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for preset_name in presets:
        group = [r for r in rows if r["preset"] == preset_name]
        cells = []
        for column in columns:
            values = [r[column] for r in group]
            per_seed = " / ".join(f"{v:.2f}" for v in values)
            cells.append(f"{statistics.fmean(values):.2f} ({per_seed})" if len(values) > 1 else f"{values[0]:.2f}")
        lines.append(f"| {preset_name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def moving_average(values: list[float], window: int) -> list[float]:
    import statistics

    return [statistics.fmean(values[max(0, i - window + 1): i + 1]) for i in range(len(values))]


def plot_curves(runs: Sequence[tuple[str, int, Path]], out: Path) -> None:
    """curves.{png,pdf}: 10-step moving averages of reward and exact KL against step, one colour per
    preset, one line per (preset, seed) run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kleval.report.configs import PRESET_COLOURS
    from kleval.train.diagnostics import read_log

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    labelled = set()
    for preset_name, _, run_dir in runs:
        rows = read_log(run_dir)
        steps = [r["step"] for r in rows]
        colour = PRESET_COLOURS.get(preset_name, "#000000")
        label = None if preset_name in labelled else preset_name
        labelled.add(preset_name)
        axes[0].plot(steps, moving_average([float(r["reward"]) for r in rows], 10), color=colour, lw=1, label=label)
        axes[1].plot(steps, moving_average([float(r["kl_exact"]) for r in rows], 10), color=colour, lw=1)
    axes[0].set(xlabel="step", ylabel="training reward (10-step mean)", title="reward")
    axes[1].set(xlabel="step", ylabel="exact KL(pi || ref) (10-step mean)", title="KL", yscale="log")
    from matplotlib.ticker import FormatStrFormatter, NullFormatter

    axes[1].yaxis.set_major_formatter(FormatStrFormatter("%g"))  # plain numbers, no mathtext
    axes[1].yaxis.set_minor_formatter(NullFormatter())
    fig.legend(fontsize=7, frameon=False, loc="upper center", ncol=len(labelled), bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(out / "curves.png", dpi=150, metadata={"Software": None})
    fig.savefig(out / "curves.pdf", metadata={"CreationDate": None, "Producer": None})
    plt.close(fig)
