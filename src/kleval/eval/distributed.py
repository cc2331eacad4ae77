"""`kleval eval --ray`: spread checkpoint x task jobs over a Ray cluster into one study directory.

The driver writes the study header and checkpoint list (refusing incomparable settings exactly
like a plain run), skips jobs whose logs are already complete, and submits one Ray task per
remaining (checkpoint, task). Each job runs the plain runner's per-task loop
(`kleval.eval.run.evaluate_task`) with its own backend and verifier pool, so its samples are the
same as a plain run's (sampling seeds depend only on the seed, task, prompt and sample index), and it
writes only samples/<label>/<task>.jsonl and scores/<label>/<task>.jsonl: jobs never share a
file. The driver writes results.csv once, at the end. A job that fails or is killed leaves a
resumable log; rerunning the same command finishes it.

On a multi-machine cluster the study directory must be on a filesystem every node sees (NFS,
Lustre, ...), and kleval plus the checkpoints must be installed/readable on every node.
Ray is optional (`pip install 'kleval[ray]'`) and imported only here, inside functions.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from kleval.eval import study as layout
from kleval.errors import ConfigError, KlevalError


@dataclass(frozen=True)
class Job:
    """One unit of distributed work: every problem of one task on one checkpoint."""

    checkpoint: Any  # kleval.eval.checkpoints.Checkpoint (pickled to the worker)
    task: str

    @property
    def name(self) -> str:
        return f"{self.checkpoint.label}/{self.task}"


def import_ray():
    """Import Ray or explain how to get it."""
    try:
        import ray
    except ImportError:
        raise ConfigError("--ray needs Ray: pip install 'kleval[ray]' (or pip install ray)") from None
    return ray


def job_finished(out: Path, label: str, task, spec) -> bool:
    """True when every problem of `task` has all n samples and their verdicts logged."""
    n = spec.sampling.n
    wanted = {p.id for p in task.problems(spec.limit)}
    # repair=True cuts a torn last line (a killed job): that job then counts as unfinished.
    samples = layout.read_jsonl(layout.samples_path(out, label, task.name), repair=True)
    scores = layout.read_jsonl(layout.scores_path(out, label, task.name), repair=True)
    graded = {(r["problem_id"], r["sample_index"]) for r in scores}
    have = {(r["problem_id"], r["sample_index"]) for r in samples} & graded
    return all((pid, j) in have for pid in wanted for j in range(n))


def run_job(checkpoint: Any, task_name: str, spec, out: str | Path) -> dict[str, Any]:
    """Evaluate one checkpoint on one task into `out` (the body of one Ray task; also callable
    directly). Uses the plain runner's loop, so resuming and seeding behave identically."""
    from kleval.eval import run as runner
    from kleval.tasks import load_task
    from kleval.verify import VerifierPool

    out = Path(out)
    start = time.time()
    task = load_task(task_name, data_dir=spec.data_dir)
    backend = runner.LazyBackend(checkpoint, spec)
    try:
        with VerifierPool(workers=spec.verify_workers, timeout_s=spec.verify_timeout_s) as pool:
            runner.evaluate_task(checkpoint.label, task, spec, out, backend, pool, progress=False)
    finally:
        backend.close()
    return {"job": f"{checkpoint.label}/{task_name}", "seconds": time.time() - start}


def with_absolute_paths(checkpoint: Any) -> Any:
    """The checkpoint with its model and tokenizer paths made absolute on the driver, where they
    were typed; names that are not local paths (hub ids, served model names) stay as they are."""
    path, tokenizer = Path(checkpoint.path), checkpoint.tokenizer_path
    changes: dict[str, Any] = {}
    if not path.is_absolute() and path.exists():
        changes["path"] = path.resolve()
    if tokenizer and not Path(tokenizer).is_absolute() and Path(tokenizer).exists():
        changes["tokenizer_path"] = Path(tokenizer).resolve()
    return replace(checkpoint, **changes) if changes else checkpoint


def plan_jobs(checkpoints: Sequence[Any], tasks: dict[str, Any], spec, out: Path) -> tuple[list[Job], list[Job]]:
    """(jobs to run, jobs already finished), checkpoint-major."""
    todo, done = [], []
    for ckpt in checkpoints:
        for name, task in tasks.items():
            (done if job_finished(out, ckpt.label, task, spec) else todo).append(Job(ckpt, name))
    return todo, done


def evaluate_distributed(checkpoints: Sequence[Any], spec, out: Path | str, *, address: str | None = None,
                         gpus_per_job: float | None = None, cpus_per_job: float = 1.0,
                         progress: bool = True) -> Path:
    """Like `kleval.eval.run.evaluate`, with each (checkpoint, task) a Ray task; return results.csv.

    `address`: an existing cluster ("auto", "ray://host:10001", "host:6379"); None starts a
    local Ray (or uses one already initialised in this process). `gpus_per_job`: GPUs reserved
    per job; default 1 when the cluster has GPUs, else 0.
    """
    from kleval.eval import run as runner
    from kleval.eval.results import write_results
    from kleval.tasks import load_task

    ray = import_ray()
    out = Path(out)
    # Workers run in whatever directory their node's `ray start` ran in: ship absolute paths.
    checkpoints = [with_absolute_paths(c) for c in checkpoints]
    if spec.data_dir is not None:
        spec = replace(spec, data_dir=str(Path(spec.data_dir).expanduser().resolve()))
    tasks = {name: load_task(name, data_dir=spec.data_dir) for name in spec.tasks}
    header = runner.build_header(spec, tasks)
    header["distributed"] = {"engine": "ray", "address": address}
    with layout.study_lock(out):  # held by the driver: no plain run may interleave with the jobs
        old = layout.read_json(out / layout.HEADER_FILE) if (out / layout.HEADER_FILE).exists() else None
        layout.write_json(out / layout.HEADER_FILE, layout.merge_header(old, header))
        checkpoints = runner._record_checkpoints(out, checkpoints)
        todo, done = plan_jobs(checkpoints, tasks, spec, out)
        _say(progress, f"ray: {len(todo)} jobs to run, {len(done)} already finished")
        failures: list[str] = []
        if todo:
            started_here = not ray.is_initialized()
            if started_here:
                _connect(ray, address, progress)
            try:
                failures = _run_on_ray(ray, todo, spec, out, gpus_per_job, cpus_per_job, progress)
            finally:
                if started_here:
                    ray.shutdown()
        results = write_results(out)  # also after failures: the finished jobs are reported
    if failures:
        raise JobsFailed(f"{len(failures)} of {len(todo)} ray jobs failed: {'; '.join(failures)}. "
                         "Finished work is kept; rerun the same command to retry them")
    return results


# Settings a worker on another node would otherwise not see (they live in the driver's environment).
# (The API key travels this way too: Ray shows runtime_env variables on its dashboard.)
FORWARDED_ENV = ("KLEVAL_DATA_DIR", "KLEVAL_TASKS_DIR", "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE",
                 "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM", "KLEVAL_VERIFY_TIMEOUT",
                 "KLEVAL_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def _connect(ray, address: str | None, progress: bool) -> None:
    try:
        ray.init(address=address, log_to_driver=progress)
    except ConnectionError as exc:
        raise ConfigError(f"could not connect to the Ray cluster at {address!r} ({exc}); check --ray-address "
                          "or start one with `ray start --head`") from None


def _run_on_ray(ray, jobs: list[Job], spec, out: Path, gpus_per_job, cpus_per_job, progress) -> list[str]:
    """Run the jobs, reporting each as it ends; return a line per failed job."""
    if gpus_per_job is None:
        gpus_per_job = 1 if ray.cluster_resources().get("GPU", 0) > 0 else 0
    env = {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}
    remote = ray.remote(num_cpus=cpus_per_job, num_gpus=gpus_per_job, max_retries=0,
                        runtime_env={"env_vars": env} if env else None)(run_job)
    pending = {remote.remote(job.checkpoint, job.task, spec, str(out.resolve())): job for job in jobs}
    failures: list[str] = []
    finished = 0
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        job = pending.pop(ready[0])
        finished += 1
        try:
            info = ray.get(ready[0])
            _say(progress, f"ray: [{finished}/{len(jobs)}] {job.name} done in {info['seconds']:.1f}s")
        except ray.exceptions.RayError as exc:
            cause = getattr(exc, "cause", None)
            reason = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc).splitlines()[0]
            failures.append(f"{job.name} ({reason})")
            _say(progress, f"ray: [{finished}/{len(jobs)}] {job.name} FAILED: {reason}")
    return failures


class JobsFailed(KlevalError):
    """Some distributed jobs raised; the rest of the study is on disk and resumable."""


def _say(enabled: bool, message: str) -> None:
    if enabled:
        print(message, flush=True)
