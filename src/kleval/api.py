"""The Python API for notebooks and scripts: evaluate checkpoints and read studies as DataFrames.

    import kleval
    results = kleval.evaluate("runs/k3_loss", ["math500", "mmlu_college_physics"], n=4, k=(1, 4), limit=50)
    samples = kleval.load_samples(results.attrs["study_dir"])   # one row per sample, with its verdict
    kleval.api.verify(gold="1/2", completion="... \\boxed{0.5}", kind="math")   # one answer

(`kleval.verify` is the verifier subpackage; its function is `kleval.verify.verify`, which
`kleval.api.verify` names too.) `evaluate` runs the same resumable runner as `kleval eval` and
writes the same study directory (a new temporary one when `out` is None; its path is in
`results.attrs["study_dir"]`), so anything done here can be reported, resumed or re-scored from
the command line. It works at the top level of a script without a `__main__` guard: its worker
processes never re-run the script (see `kleval.processes`).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

from kleval.eval import study as layout
from kleval.errors import ConfigError
from kleval.tasks import list_tasks
from kleval.verify import verify

__all__ = ["evaluate", "list_tasks", "load_results", "load_samples", "verify"]

PathLike = str | os.PathLike


def evaluate(checkpoints: Any, tasks: str | Sequence[str], *, n: int = 1, k: int | Sequence[int] = (1,),
             temperature: float = 1.0, top_p: float = 1.0, max_tokens: int = 2048, seed: int = 0,
             limit: int | None = None, backend: str = "hf", out: PathLike | None = None,
             data_dir: PathLike | None = None, tokenizer: PathLike | None = None, chunk_size: int | None = None,
             verify_timeout: float = 10.0, progress: bool = True, **backend_options: Any):
    """Evaluate checkpoints on tasks; return the results (one row per checkpoint x task).

    checkpoints: a model directory, a run directory holding step directories (kleval, TRL, verl,
    OpenRLHF), a glob, a list of those, or `kleval.eval.checkpoints.Checkpoint` objects.
    tasks: task names (a list or a comma-separated string; see `list_tasks()`).
    Checkpoints may also be hub ids, NAME=PATH pairs or served model names, as with
    `kleval eval --checkpoints` (kleval.eval.sources). Other settings mean what the `kleval eval`
    flags of the same name mean; extra keyword arguments go to the backend (e.g. device="cpu",
    dtype="float32", tensor_parallel_size=2, gpu_memory_utilization=0.5, base_url=...,
    api_key=... (kept out of the study directory)).
    """
    from kleval.backends.common import check_device, stash_api_key
    from kleval.eval.run import EvalSpec
    from kleval.eval.run import evaluate as run_evaluate
    from kleval.processes import main_module_not_reimported
    from kleval.types import SamplingParams

    backend_options = dict(backend_options)
    stash_api_key(backend_options.pop("api_key", None))
    if backend == "hf" and backend_options.get("device"):
        check_device(str(backend_options["device"]))
    spec = EvalSpec(
        tasks=tuple(_names(tasks)),
        sampling=SamplingParams(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed),
        ks=(k,) if isinstance(k, int) else tuple(k), limit=limit, backend=backend,
        backend_options=dict(backend_options), chunk_size=chunk_size or (512 if backend == "vllm" else 32),
        data_dir=None if data_dir is None else str(data_dir), verify_timeout_s=verify_timeout,
    )
    study_dir = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="kleval-study-"))
    resolved = resolve_checkpoints(checkpoints, tokenizer=tokenizer, backend=backend)
    with main_module_not_reimported():
        run_evaluate(resolved, spec, study_dir, progress=progress)
    return load_results(study_dir)


def resolve_checkpoints(checkpoints: Any, *, tokenizer: PathLike | None = None, backend: str = "hf") -> list:
    """Checkpoint objects from paths, globs, run directories, hub ids, NAME=PATH pairs or served
    names (kleval.eval.sources); Checkpoint objects pass through."""
    from kleval.eval.checkpoints import Checkpoint
    from kleval.eval.sources import resolve_checkpoints as resolve

    items = [checkpoints] if isinstance(checkpoints, (str, os.PathLike, Checkpoint)) else list(checkpoints)
    if not items:
        raise ConfigError("no checkpoints given")
    ready = [c for c in items if isinstance(c, Checkpoint)]
    specs = [str(c) for c in items if not isinstance(c, Checkpoint)]
    found = resolve(specs, backend=backend, tokenizer=None if tokenizer is None else str(tokenizer)) if specs else []
    return ready + found


def load_results(study_dir: PathLike):
    """The study's results (the rows of results.csv), recomputed from its logs.

    `frame.attrs["study_dir"]` holds the study path. Only problems with all n samples graded
    are counted, as in results.csv.
    """
    from kleval.eval.results import collect_results

    study_dir = Path(study_dir)
    frame = collect_results(study_dir)
    frame.attrs["study_dir"] = str(study_dir)
    return frame


def load_samples(study_dir: PathLike):
    """One row per logged sample joined with its verdict: checkpoint, task, problem_id,
    sample_index, prompt, completion, ..., correct, status, extracted, ... (status is None for
    samples not graded yet)."""
    import pandas as pd

    study_dir = Path(study_dir)
    header = layout.read_json(study_dir / layout.HEADER_FILE)
    labels = [c["label"] for c in layout.read_json(study_dir / layout.CHECKPOINTS_FILE)]
    rows = []
    for label in labels:
        for task in sorted(header["tasks"]):
            scores = {(r["problem_id"], r["sample_index"]): r
                      for r in layout.read_jsonl(layout.scores_path(study_dir, label, task))}
            for sample in layout.read_jsonl(layout.samples_path(study_dir, label, task)):
                verdict = scores.get((sample["problem_id"], sample["sample_index"]), {})
                extra = {key: value for key, value in verdict.items() if key not in ("problem_id", "sample_index")}
                rows.append({"checkpoint": label, "task": task, **sample, **extra})
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame = frame.sort_values(["checkpoint", "task", "problem_id", "sample_index"], kind="stable")
        frame = frame.reset_index(drop=True)
    frame.attrs["study_dir"] = str(study_dir)
    return frame


def _names(tasks: str | Sequence[str]) -> list[str]:
    names = [t.strip() for t in tasks.split(",")] if isinstance(tasks, str) else [str(t).strip() for t in tasks]
    names = [t for t in names if t]
    if not names:
        raise ConfigError("no tasks given; see kleval.api.list_tasks()")
    return names
