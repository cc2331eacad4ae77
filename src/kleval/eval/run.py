"""Checkpoints x tasks -> samples -> verdicts -> results: the resumable evaluation runner.

For each checkpoint and task, problems are cut into chunks. Each chunk is generated in one
backend call, its samples appended to the log, and its verification handed to the verifier's
process pool while the next chunk generates, so grading overlaps generation.

Samples are a function of (run seed, checkpoint, task, problem, sample index) only: every chunk
of a task samples under one task seed (`task_seed`), and the backends derive each sample's own
random stream from that seed, the prompt text and the sample index (`backends.common.sample_seed`;
vLLM and OpenAI per request). Chunk size, batch composition, the point a run was resumed from and
data-parallel workers therefore change no sample.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from kleval.eval import study as layout
from kleval.errors import ConfigError
from kleval.types import Problem, SamplingParams


TRAIN_LOGS_DIR = "train_logs"  # STUDY/train_logs/: copies of the evaluated kleval runs' train_log.jsonl


def default_verify_workers() -> int:
    """Grading workers: half the cores, 1 to 4. On a 2-core machine a second worker only steals CPU
    from generation (measured: eval/raw 1.17 with two workers, 1.05 with one)."""
    import os

    return max(1, min(4, (os.cpu_count() or 2) // 2))


@dataclass(frozen=True)
class EvalSpec:
    """Everything that defines a study apart from its checkpoints."""

    tasks: tuple[str, ...]
    sampling: SamplingParams = field(default_factory=SamplingParams)
    ks: tuple[int, ...] = (1,)
    limit: int | None = None
    backend: str = "hf"
    backend_options: dict[str, Any] = field(default_factory=dict)
    chunk_size: int = 32  # prompts per generate call; a kill loses at most one chunk
    data_dir: str | None = None
    verify_workers: int = field(default_factory=default_verify_workers)
    verify_timeout_s: float = 10.0

    def __post_init__(self) -> None:
        if not self.tasks:
            raise ConfigError("no tasks given; pass --tasks (see `kleval tasks`)")
        too_big = [k for k in self.ks if k > self.sampling.n]
        if too_big or any(k < 1 for k in self.ks):
            raise ConfigError(f"pass@k needs 1 <= k <= n: got k={list(self.ks)} with n={self.sampling.n}; "
                              f"raise --n to at least {max(self.ks)} or drop those k")
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"--limit must be >= 1, got {self.limit}")
        if self.chunk_size < 1:
            raise ConfigError(f"chunk size must be >= 1, got {self.chunk_size}")
        if self.verify_workers < 1 or not self.verify_timeout_s > 0:
            raise ConfigError(f"verify workers must be >= 1 and verify timeout > 0 s, got {self.verify_workers} "
                              f"and {self.verify_timeout_s}")


def task_seed(base_seed: int, task: str) -> int:
    """The seed every chunk of `task` samples under. It holds no chunk index or position, so how
    problems are chunked cannot change a sample; the backend mixes in prompt and sample index."""
    digest = hashlib.sha256(f"{base_seed}:{task}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def build_header(spec: EvalSpec, tasks: dict[str, Any]) -> dict[str, Any]:
    from kleval import verify

    packages = layout.package_versions()
    task_info = {}
    for task in tasks.values():  # keyed like the log files (a --tasks path/x.toml is task "x")
        if task.name in task_info:
            raise ConfigError(f"two task specs are both named {task.name!r}; rename one of the .toml files")
        task_info[task.name] = {
            "spec_hash": task.spec_hash, "prompt_hash": task.prompt_hash,
            "data_file": str(task.data_file) if task.data_file else None, "data_hash": task.data_hash,
            "num_problems": len(task.problems(spec.limit)), "limit": spec.limit,
            "split": task.split.value, "kind": task.kind.value, "policy": str(task.policy),
        }
    return {
        "kleval_version": packages.get("kleval"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sampling": spec.sampling.to_dict(),
        "ks": sorted(spec.ks),
        "backend": spec.backend,
        "backend_options": layout.redact(spec.backend_options),  # never an api_key in clear
        "chunk_size": spec.chunk_size,
        "tasks": task_info,
        "verifier_version": verify.VERIFIER_VERSION,
        "packages": packages,
        "git_revision": layout.git_revision(),
    }


def evaluate(checkpoints: Sequence[Any], spec: EvalSpec, out: Path | str, *, progress: bool = True) -> Path:
    """Run every checkpoint on every task into the study directory `out`; return its results.csv."""
    from kleval.tasks import load_task

    out = Path(out)
    tasks = {name: load_task(name, data_dir=spec.data_dir) for name in spec.tasks}
    header = build_header(spec, tasks)
    with layout.study_lock(out):
        old = layout.read_json(out / layout.HEADER_FILE) if (out / layout.HEADER_FILE).exists() else None
        header = layout.merge_header(old, header)
        layout.write_json(out / layout.HEADER_FILE, header)
        checkpoints = _record_checkpoints(out, checkpoints)
        from kleval.verify import VerifierPool

        with VerifierPool(workers=spec.verify_workers, timeout_s=spec.verify_timeout_s) as pool:
            for ckpt in checkpoints:
                _evaluate_checkpoint(ckpt, tasks, spec, out, pool, progress)
        from kleval.eval.results import write_results

        return write_results(out)


def _record_checkpoints(out: Path, checkpoints: Sequence[Any]) -> list[Any]:
    """Add the checkpoints to checkpoints.json, with a copy of each kleval run's train_log.jsonl
    (the report plots it, and must not depend on where the run directory was); returns them
    relabelled so a label never means two directories in one study (layout.study_labels)."""
    path = out / layout.CHECKPOINTS_FILE
    known = {c["label"]: c for c in (layout.read_json(path) if path.exists() else [])}
    checkpoints = layout.study_labels(known, checkpoints)
    for ckpt in checkpoints:
        row = ckpt.to_dict()
        if row.get("train_log") and Path(row["train_log"]).is_absolute():
            row["train_log"] = _copy_train_log(out, Path(row["train_log"]), run_key=str(Path(row["path"]).parent))
        elif ckpt.label in known and not row.get("train_log"):
            row["train_log"] = known[ckpt.label].get("train_log")
        known[ckpt.label] = row
    layout.write_json(path, sorted(known.values(), key=lambda c: c["label"]))
    return checkpoints


def _copy_train_log(out: Path, source: Path, run_key: str) -> str | None:
    """Copy what the report plots of a run's train log (step and TRAIN_METRICS, no wall-clock
    timings, so the copy is reproducible) into STUDY/train_logs/, refreshed on every evaluation;
    returns its path in the study. The copy is named by the run directory as the checkpoint path
    was given, so the same study written from the same (relative) paths names it the same."""
    from kleval.report.plots import TRAIN_METRICS

    if not source.is_file():
        return None
    keys = ("step", *(key for key, _ in TRAIN_METRICS))
    digest = hashlib.sha256(run_key.encode()).hexdigest()[:8]
    relative = f"{TRAIN_LOGS_DIR}/{source.parent.name}-{digest}.jsonl"
    rows = layout.read_jsonl(source, skip_torn=True)  # a run still writing may have a torn last line
    layout.write_atomic(out / relative, layout.jsonl_text({k: r[k] for k in keys if k in r} for r in rows))
    return relative


class LazyBackend:
    """Starts the backend only when some chunk actually needs generating (reruns start nothing)."""

    def __init__(self, ckpt: Any, spec: EvalSpec):
        self.ckpt, self.spec, self.backend = ckpt, spec, None

    def get(self):
        if self.backend is None:
            from kleval.backends import make_backend

            self.backend = make_backend(self.spec.backend, str(self.ckpt.path),
                                        tokenizer_path=self.ckpt.tokenizer_path and str(self.ckpt.tokenizer_path),
                                        **self.spec.backend_options)
        return self.backend

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
            self.backend = None


def _evaluate_checkpoint(ckpt, tasks, spec: EvalSpec, out: Path, pool, progress: bool) -> None:
    backend = LazyBackend(ckpt, spec)
    try:
        for name, task in tasks.items():
            evaluate_task(ckpt.label, task, spec, out, backend, pool, progress)
    finally:
        backend.close()


def evaluate_task(label: str, task, spec: EvalSpec, out: Path, backend: LazyBackend, pool, progress: bool) -> None:
    """Generate and grade one checkpoint's samples on one task into `out`, resuming what is there."""
    from tqdm.auto import tqdm

    problems = task.problems(spec.limit)
    n = spec.sampling.n
    s_path, v_path = layout.samples_path(out, label, task.name), layout.scores_path(out, label, task.name)
    samples, scored = _load_consistent_logs(s_path, v_path, n)
    by_id = {p.id: p for p in problems}

    # Samples logged by a run killed before their verdicts were written: grade them first.
    unscored = [r for rows in samples.values() for r in rows if (r["problem_id"], r["sample_index"]) not in scored]
    if unscored:
        layout.append_jsonl(v_path, _score_rows(unscored, pool.map([_item(r, by_id, task) for r in unscored])))

    todo = [(i, problems[i:i + spec.chunk_size]) for i in range(0, len(problems), spec.chunk_size)]
    todo = [(i, chunk) for i, chunk in todo if any(p.id not in samples for p in chunk)]
    total = len(problems) * n
    bar = tqdm(total=total, initial=total - sum(len(c) for _, c in todo) * n, unit="sample",
               desc=f"{label} {task.name}", disable=not progress, leave=True, dynamic_ncols=True)
    pending: list[tuple[list[dict], Any]] = []
    correct = seen = 0
    # The task's stop strings join the study's, as they do in the lm-eval export's "until".
    stop = tuple(dict.fromkeys((*spec.sampling.stop, *getattr(task, "stop", ()))))

    def drain(block: bool) -> None:
        nonlocal correct, seen
        while pending and (block or pending[0][1].done()):
            rows, future = pending.pop(0)
            verdicts = future.result()
            layout.append_jsonl(v_path, _score_rows(rows, verdicts))
            correct += sum(v.correct for v in verdicts)
            seen += len(verdicts)
            bar.set_postfix_str(f"acc {correct / seen:.3f}")

    params = replace(spec.sampling, seed=task_seed(spec.sampling.seed, task.name), stop=stop)
    try:
        for _, chunk in todo:
            prompts = [task.prompt(p) for p in chunk]
            completions = backend.get().generate(prompts, params, chat=task.chat)
            rows = [_sample_row(p, prompt, j, c) for p, prompt, comps in zip(chunk, prompts, completions)
                    if p.id not in samples for j, c in enumerate(comps)]
            layout.append_jsonl(s_path, rows)
            pending.append((rows, pool.submit([_item(r, by_id, task) for r in rows])))
            bar.update(len(chunk) * n)
            drain(block=False)
        drain(block=True)
    finally:
        bar.close()


def _load_consistent_logs(s_path: Path, v_path: Path, n: int) -> tuple[dict[str, list[dict]], set]:
    """Read both logs after an interruption and make them consistent: keep only problems with
    all n samples (their chunk is regenerated otherwise) and one verdict per kept sample."""
    rows = layout.read_jsonl(s_path, repair=True)
    grouped: dict[str, dict[int, dict]] = {}
    for r in rows:
        grouped.setdefault(r["problem_id"], {})[r["sample_index"]] = r
    samples = {pid: [g[j] for j in range(n)] for pid, g in grouped.items() if all(j in g for j in range(n))}
    kept = [r for rs in samples.values() for r in rs]
    if len(kept) != len(rows):
        layout.write_atomic(s_path, layout.jsonl_text(kept))
    scores = layout.read_jsonl(v_path, repair=True)
    unique = {(r["problem_id"], r["sample_index"]): r for r in scores if r["problem_id"] in samples}
    if len(unique) != len(scores):
        layout.write_atomic(v_path, layout.jsonl_text(unique.values()))
    return samples, set(unique)


def _sample_row(problem: Problem, prompt: str, index: int, completion) -> dict[str, Any]:
    return {
        "problem_id": problem.id, "sample_index": index, "prompt": prompt, "completion": completion.text,
        "num_tokens": completion.num_tokens, "prompt_tokens": completion.prompt_tokens,
        "finish_reason": completion.finish_reason, "gold": problem.gold, "kind": problem.kind.value,
    }


def _item(row: dict, by_id: dict[str, Problem], task):
    from kleval.verify import VerifyItem

    gold = by_id[row["problem_id"]].gold if row["problem_id"] in by_id else row["gold"]
    return VerifyItem(gold=gold, completion=row["completion"], kind=task.kind, policy=task.policy)


def _score_rows(rows: list[dict], verdicts) -> list[dict[str, Any]]:
    return [{"problem_id": r["problem_id"], "sample_index": r["sample_index"], **v.to_dict()}
            for r, v in zip(rows, verdicts)]
