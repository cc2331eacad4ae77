"""Online evaluation during training: `kleval train --eval-every N --eval-tasks a,b`.

Every N steps the loop saves the step directory (if that step is not a save step anyway) and runs
the ordinary evaluation runner (`kleval.eval.run.evaluate`, hf backend) on it, into a normal study
directory (RUN_DIR/eval-study by default). The study is the same as `kleval eval` would write for
those checkpoints, so `kleval report RUN_DIR/eval-study` draws accuracy against step (and the base
model, evaluated once when the run starts, as the horizontal reference line) without a separate
pass. The runner resumes: an interrupted run re-evaluates nothing it has already graded.

Only rank 0 evaluates (the others wait). These settings are bookkeeping, not training numbers: they
are not part of TrainConfig, so a run can be resumed with online evaluation switched on or off.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kleval.errors import ConfigError


@dataclass(frozen=True)
class OnlineEval:
    every: int
    tasks: tuple[str, ...]
    out: Path
    n: int = 1
    limit: int | None = 100
    temperature: float = 1.0
    max_tokens: int = 256
    seed: int = 0
    include_base: bool = True
    backend_options: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.every < 1:
            raise ConfigError(f"--eval-every must be >= 1, got {self.every}")
        if not self.tasks:
            raise ConfigError("--eval-every needs --eval-tasks (comma-separated task names, see `kleval tasks`)")
        if self.n < 1 or (self.limit is not None and self.limit < 1):
            raise ConfigError(f"--eval-n and --eval-limit must be >= 1, got {self.n} and {self.limit}")

    def spec(self):
        from kleval.eval.run import EvalSpec
        from kleval.types import SamplingParams

        sampling = SamplingParams(n=self.n, temperature=self.temperature, top_p=1.0, max_tokens=self.max_tokens,
                                  seed=self.seed)
        return EvalSpec(tasks=self.tasks, sampling=sampling, ks=(1,), limit=self.limit,
                        backend_options=dict(self.backend_options))

    def check_tasks(self) -> None:
        """Fail before training when a task name is unknown (not after the first N steps)."""
        from kleval.tasks import load_task

        for name in self.tasks:
            load_task(name)


def evaluate_paths(settings: OnlineEval, paths: list[str], progress: bool) -> None:
    """Run the study's evaluation on these checkpoint directories (resuming what is there)."""
    from kleval.eval.checkpoints import discover
    from kleval.eval.run import evaluate

    evaluate(discover(paths), settings.spec(), settings.out, progress=progress)


def at_start(settings: OnlineEval, run, progress: bool) -> None:
    """Before the first step (rank 0): the base model, and on a resume the evaluation steps already
    saved (an evaluation the interruption cut short is finished; complete ones cost nothing)."""
    from kleval.train.checkpoint import step_dirs

    if not run.ranks.is_main:
        return
    paths = [str(run.config.model)] if settings.include_base else []
    paths += [str(path) for step, path in step_dirs(run.run_dir) if step % settings.every == 0]
    if paths:
        evaluate_paths(settings, paths, progress)


def after_step(settings: OnlineEval, run, step: int, progress: bool) -> None:
    """At every `every`-th step: make sure global_step_<step>/ exists, then evaluate it (rank 0)."""
    from kleval.train import data_parallel
    from kleval.train.session import save_step

    if step % settings.every:
        return
    step_dir = run.run_dir / f"global_step_{step}"
    if not (step_dir / "config.json").exists():
        save_step(run, step)  # a collective under torchrun: every rank calls it
    if run.ranks.is_main:
        evaluate_paths(settings, [str(step_dir)], progress)
    data_parallel.barrier(run.ranks)
