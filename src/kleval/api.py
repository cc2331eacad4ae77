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


def evaluate(checkpoints: Any = None, tasks: str | Sequence[str] | None = None, *, config: PathLike | None = None,
             n: int | None = None, k: int | Sequence[int] | None = None, temperature: float | None = None,
             top_p: float | None = None, max_tokens: int | None = None, seed: int | None = None,
             limit: int | None = None, backend: str | None = None, out: PathLike | None = None,
             data_dir: PathLike | None = None, tokenizer: PathLike | None = None, chunk_size: int | None = None,
             trainer_config: PathLike | None = None, verify_timeout: float | None = None, progress: bool = True,
             **backend_options: Any):
    """Evaluate checkpoints on tasks; return the results (one row per checkpoint x task).

    checkpoints: a model directory, a run directory holding step directories (kleval, TRL, verl,
    OpenRLHF), a glob, a list of those, or `kleval.eval.checkpoints.Checkpoint` objects.
    tasks: task names (a list or a comma-separated string; see `list_tasks()`).
    config: a study spec TOML (e.g. "evals/paper.toml"); explicit arguments override it, and it
    supplies checkpoints, tasks and out when they are not given. Other settings mean what the
    `kleval eval` flags of the same name mean (defaults: kleval.eval.spec.DEFAULTS); extra keyword
    arguments go to the backend (e.g. device="cpu", dtype="float32", tensor_parallel_size=2,
    gpu_memory_utilization=0.5, base_url=..., api_key=... (kept out of the study directory)).
    Checkpoints may also be hub ids, NAME=PATH pairs or served model names, as with
    `kleval eval --checkpoints` (kleval.eval.sources). progress=False silences every progress bar.
    """
    from kleval.backends.common import check_device
    from kleval.cli import progress_bars_silenced
    from kleval.eval.run import evaluate as run_evaluate
    from kleval.eval.spec import build_eval_spec, resolve_settings
    from kleval.processes import main_module_not_reimported


    explicit = {"n": n, "k": k, "temperature": temperature, "top_p": top_p, "max_tokens": max_tokens, "seed": seed,
                "limit": limit, "backend": backend, "data_dir": data_dir, "tokenizer": tokenizer,
                "chunk_size": chunk_size, "trainer_config": trainer_config, "verify_timeout": verify_timeout,
                "tasks": _names(tasks) if tasks is not None else None, "backend_options": backend_options or None,
                "checkpoints": checkpoints, "out": out}
    settings = resolve_settings(config, explicit, required=("checkpoints", "tasks"))
    if not settings["out"]:
        settings["out"] = tempfile.mkdtemp(prefix="kleval-study-")
    spec = build_eval_spec(settings)
    if spec.backend == "hf" and spec.backend_options.get("device"):
        check_device(str(spec.backend_options["device"]))
    study_dir = Path(settings["out"])
    resolved = resolve_checkpoints(settings["checkpoints"], tokenizer=settings["tokenizer"],
                                   trainer_config=settings["trainer_config"], backend=spec.backend)
    with main_module_not_reimported(), progress_bars_silenced(not progress):
        run_evaluate(resolved, spec, study_dir, progress=progress)
    return load_results(study_dir)


def resolve_checkpoints(checkpoints: Any, *, tokenizer: PathLike | None = None,
                        trainer_config: PathLike | None = None, backend: str = "hf") -> list:
    """Checkpoint objects from paths, globs, run directories, hub ids, NAME=PATH pairs or served
    names (kleval.eval.sources); Checkpoint objects pass through."""
    from kleval.eval.checkpoints import Checkpoint
    from kleval.eval.sources import resolve_checkpoints as resolve

    items = [checkpoints] if isinstance(checkpoints, (str, os.PathLike, Checkpoint)) else list(checkpoints)
    if not items:
        raise ConfigError("no checkpoints given")
    ready = [c for c in items if isinstance(c, Checkpoint)]
    specs = [str(c) for c in items if not isinstance(c, Checkpoint)]
    found = resolve(specs, backend=backend, tokenizer=None if tokenizer is None else str(tokenizer),
                    trainer_config=trainer_config) if specs else []
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
