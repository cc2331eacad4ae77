"""The paper's second task on the CPU: `kleval demo --study countdown`.

Shah et al. train on Countdown as well as MATH. Here the tiny Countdown base
(assets/tiny-countdown-base, kleval.train.countdown_base: a character model that continues
`7,7,4:10=` with an expression, right some of the time) is trained with RLOO on
`countdown_tiny_train` (3 numbers 1-10, reward = the Countdown grader's verdict) under each KL
configuration, with the CPU recipe of kleval.train.tiny, and its final checkpoints are evaluated at
T=1 on `countdown_tiny` (ID, held-out 3-number problems) and `countdown_tiny_ood` (4 numbers:
learned in pre-training, never trained by RL).

Answers are 5-11 tokens (the arithmetic demo's are 2-4), so token- and sequence-level estimators
differ more: a configuration name is a preset (kleval.klconfig.PRESETS) or a preset with `-seq`,
the same estimator applied once to the sequence log-ratio (granularity "sequence"). On-policy,
k2-loss (token level) follows only the partial gradient of the reverse KL, while k2-loss-seq's
gradient is the sequence-level reverse KL's; k3-loss follows a token-level forward KL and
k3-loss-seq the sequence-level one.

Writes into the output directory: `study/` and the usual report (table.md/.tex, figures,
index.html; marks against `none`); `summary.csv` (one row per run: late means of reward, exact
reverse and forward KL, entropy and response length over the last LATE_STEPS steps, and the final
checkpoint's ID/OOD pass@1); `summary.md` (per configuration: mean over seeds, per seed in
brackets, with the base model's pass@1 above); `curves.{png,pdf}`. Deterministic like the demo.
"""
from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass, replace
from pathlib import Path

from kleval.errors import ConfigError

COUNTDOWN_PRESETS = ("none", "k1-reward", "k3-loss", "k1-loss", "k3-reward", "k2-loss", "k2-loss-seq", "k3-loss-seq")
SEQUENCE_SUFFIX = "-seq"
TASKS = ("countdown_tiny", "countdown_tiny_ood")  # (ID, OOD)
TRAIN_TASK = "countdown_tiny_train"
MAX_NEW_TOKENS = 14  # the longest 3-number answer ("(10-9)*(8+7)" style) is 11 characters, plus end of sequence
EVAL_MAX_TOKENS = 20  # 4-number answers reach 17 characters
LATE_STEPS = 50
MEASURES = ("reward", "kl_exact", "kl_exact_forward", "entropy", "response_length")
FIELDS = ("preset", "seed", "run", *(f"{m}_late" for m in MEASURES), "id_pass@1", "ood_pass@1")


@dataclass(frozen=True)
class CountdownStudySettings:
    out: Path = Path("reports/countdown")
    base: Path | None = None  # None: the committed assets/tiny-countdown-base (built if absent)
    presets: tuple[str, ...] = COUNTDOWN_PRESETS
    seeds: tuple[int, ...] = (0, 1)
    steps: int = 200
    beta: float = 1.0
    eval_limit: int = 200
    n: int = 4
    workers: int = 2
    threads: int = 2
    figures: bool = True


def study_kl(name: str, beta: float):
    """The KLConfig of a configuration name: a preset, or `<preset>-seq` (sequence granularity)."""
    from kleval.klconfig import PRESETS, preset

    core = name.removesuffix(SEQUENCE_SUFFIX)
    if core not in PRESETS:
        raise ConfigError(f"unknown configuration {name!r}; choose a preset ({', '.join(PRESETS)}), "
                          f"optionally with '{SEQUENCE_SUFFIX}' for sequence granularity")
    config = preset(core, beta=beta)
    if core != name:
        if config.estimator not in ("k2", "k3"):
            raise ConfigError(f"{name!r}: '{SEQUENCE_SUFFIX}' changes only K2 and K3 (K1 is linear, so its "
                              f"sequence estimate is the token sum); use {core!r}")
        config = replace(config, granularity="sequence")
    return config


def countdown_config(name: str, *, base_dir: str | Path, beta: float, steps: int, seed: int):
    """The tiny recipe (kleval.train.tiny.tiny_config) on the tiny Countdown task."""
    from kleval.train.tiny import tiny_config

    kl = study_kl(name, beta)
    core = name.removesuffix(SEQUENCE_SUFFIX)
    return tiny_config(core, base_dir=base_dir, beta=beta, steps=steps, seed=seed, task=TRAIN_TASK,
                       max_new_tokens=MAX_NEW_TOKENS, kl=kl, preset=name)


def _train_one(job: tuple) -> str:
    name, seed, run_dir, steps, base, beta = job
    from kleval.train.loop import train

    train(countdown_config(name, base_dir=base, beta=beta, steps=steps, seed=seed), run_dir, progress=False)
    return run_dir


def run_countdown_study(settings: CountdownStudySettings = CountdownStudySettings(), *, progress: bool = True) -> Path:
    """Train, evaluate and summarize the study into settings.out; returns summary.md."""
    from kleval.tiny_studies import pinned_torch

    for name in settings.presets:
        study_kl(name, settings.beta)  # a bad name fails here, before any training
    with pinned_torch(settings.threads):
        return _run(settings, progress)


def _run(settings: CountdownStudySettings, progress: bool) -> Path:
    from kleval.report import build_report
    from kleval.tiny_studies import (
        evaluate_final_steps,
        plot_curves,
        relative_to_cwd,
        train_runs,
    )
    from kleval.train.countdown_base import ensure_countdown_base

    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    base = str(relative_to_cwd(ensure_countdown_base(settings.base, progress=progress)))
    jobs = [(name, seed, str(out / "runs" / f"{name}-s{seed}"), settings.steps, base, settings.beta)
            for seed in settings.seeds for name in settings.presets]
    print(f"countdown study: {len(jobs)} runs of {settings.steps} steps, beta {settings.beta:g}, "
          f"{settings.workers} at a time", flush=True)
    run_dirs = train_runs(_train_one, jobs, settings.workers)
    study = evaluate_final_steps(base, run_dirs, out / "study", n=settings.n, limit=settings.eval_limit,
                                 progress=progress, tasks=TASKS, max_tokens=EVAL_MAX_TOKENS)
    build_report(study, out, k=1, reference="none" if "none" in settings.presets else None, figures=settings.figures)
    runs = [(job[0], job[1], Path(job[2])) for job in jobs]
    rows = write_summary_csv(out, runs, study)
    if settings.figures:
        plot_curves(runs, out)
    return write_summary(out, rows, settings, base_pass=_base_pass(study, base))


def _base_pass(study: Path, base: str) -> dict[str, float]:
    from kleval.tiny_studies import final_pass_at_1

    name = Path(base).name
    return {split: value for (run, split), value in final_pass_at_1(study).items() if run == name}


def run_late_means(run_dir: Path, last: int = LATE_STEPS) -> dict[str, float]:
    """Means of MEASURES over a run's last `last` logged steps."""
    from kleval.train.diagnostics import read_log

    rows = read_log(run_dir)[-last:]
    return {f"{m}_late": statistics.fmean(float(r[m]) for r in rows) for m in MEASURES}


def write_summary_csv(out: Path, runs: list[tuple[str, int, Path]], study: Path) -> list[dict]:
    """summary.csv: one row per run; returns the rows."""
    from kleval.tiny_studies import final_pass_at_1

    results = final_pass_at_1(study)
    rows = [{"preset": name, "seed": seed, "run": run_dir.name, **run_late_means(run_dir),
             "id_pass@1": results.get((run_dir.name, "id"), float("nan")),
             "ood_pass@1": results.get((run_dir.name, "ood"), float("nan"))} for name, seed, run_dir in runs]
    with open(out / "summary.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(FIELDS)
        for row in rows:
            writer.writerow([row[f] if f in ("preset", "seed", "run") else f"{row[f]:.4g}" for f in FIELDS])
    return rows


def write_summary(out: Path, rows: list[dict], settings: CountdownStudySettings, *, base_pass: dict[str, float]) -> Path:
    """summary.md: the base's pass@1, then per configuration the mean over seeds (per seed in brackets)."""
    from kleval.tiny_studies import seed_table

    caption = (f"Tiny Countdown (ID {TASKS[0]}: 3 numbers; OOD {TASKS[1]}: 4 numbers), RLOO on {TRAIN_TASK}, "
               f"beta {settings.beta:g}, {settings.steps} steps, seeds {', '.join(map(str, settings.seeds))} "
               f"(mean; per seed in brackets). Late = last {LATE_STEPS} training steps; KL = exact KL per "
               f"sequence (reverse: KL(pi || ref), forward: KL(ref || pi)); pass@1 of the final checkpoint at "
               f"T=1, {settings.n} samples on the first {settings.eval_limit} problems of each task.\n\n"
               f"Base model before RL: ID pass@1 {base_pass.get('id', float('nan')):.3f}, "
               f"OOD pass@1 {base_pass.get('ood', float('nan')):.3f}.")
    path = out / "summary.md"
    path.write_text(seed_table(rows, settings.presets, FIELDS[3:], caption), encoding="utf-8")
    return path
