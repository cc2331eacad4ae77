"""Shared steps of the CPU studies (`kleval demo`, `--study beta`, `--study async`): pinned torch
for the run, training jobs in a spawn pool, evaluation of each run's final step, and study headers
free of what would differ between two clones (time, git revision, where the data lies), so that a
fresh clone rewrites the committed reports byte for byte.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Sequence

# Study-header fields that record when and from which tree a run was made: true, but they would make
# every regenerated report differ from the committed one, so the CPU studies do not keep them.
VOLATILE_HEADER_FIELDS = ("created", "git_revision")

@contextmanager
def pinned_torch(threads: int):
    """Fixed torch thread count and deterministic algorithms for the block, restored afterwards
    (the demo is also called from tests and notebooks, which should not inherit them)."""
    import torch

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
    kept = {key: value for key, value in header.items() if key not in VOLATILE_HEADER_FIELDS}
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


def evaluate_final_steps(base: str, run_dirs: Sequence[str], study: Path, *, n: int, limit: int,
                         progress: bool) -> Path:
    """Evaluate the base model and each run's last step on arith_add (ID) and arith_sub (OOD), T=1,
    into `study`, with its header made clone-independent; returns `study`."""
    from kleval.eval.checkpoints import discover
    from kleval.eval.run import EvalSpec, evaluate
    from kleval.types import SamplingParams

    last = {}
    for c in discover([base, *run_dirs]):
        if c.run is None or c.step is None:
            last[c.label] = c
        elif c.run not in last or c.step > last[c.run].step:
            last[c.run] = c
    sampling = SamplingParams(n=n, temperature=1.0, top_p=1.0, max_tokens=8, seed=0)
    retire_stale_study(study)
    evaluate(list(last.values()), EvalSpec(tasks=("arith_add", "arith_sub"), sampling=sampling, ks=(1,),
                                          limit=limit, chunk_size=200), study, progress=progress)
    drop_volatile_header_fields(study)
    return study
