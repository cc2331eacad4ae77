"""The paper's off-policy study on the CPU tiny task: `kleval demo --study async`.

Shah et al. train with an asynchronous recipe (train/async_recipe.py: rollouts `async_level` = 10
updates stale, exactly or at most (`staleness_mode`, train/staleness.py), -clamp(pi/pi_old, 0, 8) *
(R - group mean), no PPO clip) and report that without a
KL the run is unstable, that K1 in the reward and K3 in the loss keep it stable, and that K1 in the
loss and K3 in the reward oscillate. This study trains those five presets with the recipe from the
committed tiny base, evaluates the final checkpoints on the ID/OOD arithmetic tasks and writes:

- `stability.csv`: one row per run: the late-training means of reward and exact reverse KL, and
  what instability would show as: the largest exact KL reached, the spread of the KL over the
  second half, the drop of the 10-step moving-average reward from its best to its end, the swing
  (max - min) of the 25-step moving-average KL over the second half (oscillation), the share of tokens
  whose ratio hit the cap, the mean number of updates between sampling and training a batch, and the
  final checkpoint's ID/OOD pass@1;
- `stability.md`: the same, averaged over seeds (mean and per-seed range);
- `curves.{png,pdf}`: reward and exact KL against step, one colour per preset, one line per seed;
- `study/` and the usual report (table, figures, index.html; marks against `none`).

Deterministic like the demo (seeded, pinned threads, no time stamps): the same command writes the
same files on the same kind of machine.
"""
from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from pathlib import Path

ASYNC_PRESETS = ("none", "k1-reward", "k3-loss", "k1-loss", "k3-reward")
LATE_STEPS = 50
FIELDS = ("preset", "seed", "run", "reward_late", "kl_late", "kl_max", "kl_std_second_half", "reward_drop",
          "kl_swing_second_half", "ratio_capped_share", "staleness_mean", "id_pass@1", "ood_pass@1")


@dataclass(frozen=True)
class AsyncStudySettings:
    out: Path = Path("reports/async")
    base: Path | None = None  # None: the committed assets/tiny-arith-base
    presets: tuple[str, ...] = ASYNC_PRESETS
    seeds: tuple[int, ...] = (0, 1)
    steps: int = 300
    beta: float = 1.0
    async_level: int = 10
    staleness_mode: str = "fixed"  # train/staleness.py: exactly async_level stale, or the newest policy up to it
    eval_limit: int = 200
    n: int = 4
    workers: int = 2
    threads: int = 2
    figures: bool = True


def _train_one(job: tuple) -> str:
    preset_name, seed, run_dir, steps, base, beta, level, mode = job
    from kleval.train.async_recipe import apply_recipe
    from kleval.train.loop import train
    from kleval.train.tiny import tiny_config

    config = apply_recipe(tiny_config(preset_name, base_dir=base, beta=beta, steps=steps, seed=seed),
                          async_level=level)
    if mode != "fixed":
        config = config.with_overrides(staleness_mode=mode)
    train(config, run_dir, progress=False)
    return run_dir


def run_async_study(settings: AsyncStudySettings = AsyncStudySettings(), *, progress: bool = True) -> Path:
    """Train, evaluate and summarize the study into settings.out; returns stability.md."""
    from kleval.tiny_studies import pinned_torch

    with pinned_torch(settings.threads):
        return _run(settings, progress)


def _run(settings: AsyncStudySettings, progress: bool) -> Path:
    from kleval.report import build_report
    from kleval.tiny_studies import (
        evaluate_final_steps,
        plot_curves,
        relative_to_cwd,
        train_runs,
    )
    from kleval.train.tiny import ensure_base

    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    base = str(relative_to_cwd(ensure_base(settings.base, progress=progress)))
    jobs = [(p, seed, str(out / "runs" / f"{p}-s{seed}"), settings.steps, base, settings.beta, settings.async_level,
             settings.staleness_mode) for seed in settings.seeds for p in settings.presets]
    print(f"async study: {len(jobs)} runs of {settings.steps} steps, async_level {settings.async_level} "
          f"({settings.staleness_mode} staleness), beta {settings.beta:g}, "
          f"{settings.workers} at a time", flush=True)
    run_dirs = train_runs(_train_one, jobs, settings.workers)
    study = evaluate_final_steps(base, run_dirs, out / "study", n=settings.n, limit=settings.eval_limit,
                                 progress=progress)
    build_report(study, out, k=1, reference="none" if "none" in settings.presets else None, figures=settings.figures)
    rows = write_stability(out, [(job[0], job[1], Path(job[2])) for job in jobs], study)
    if settings.figures:
        plot_curves([(job[0], job[1], Path(job[2])) for job in jobs], out)
    return write_summary(out, rows, settings)


def run_stability(run_dir: Path) -> dict[str, float]:
    """The stability measures of one run from its train_log.jsonl (see the module docstring)."""
    from kleval.tiny_studies import moving_average
    from kleval.train.diagnostics import read_log

    rows = read_log(run_dir)
    reward = [float(r["reward"]) for r in rows]
    kl = [float(r["kl_exact"]) for r in rows]
    half = len(rows) // 2
    smooth_reward = moving_average(reward, 10)
    capped = [float(r.get("clip_fraction", 0.0)) for r in rows]
    return {"reward_late": statistics.fmean(reward[-LATE_STEPS:]), "kl_late": statistics.fmean(kl[-LATE_STEPS:]),
            "kl_max": max(kl), "kl_std_second_half": statistics.pstdev(kl[half:]),
            "reward_drop": max(smooth_reward) - smooth_reward[-1],
            "kl_swing_second_half": max(moving_average(kl, 25)[half:]) - min(moving_average(kl, 25)[half:]),
            "ratio_capped_share": statistics.fmean(capped),
            "staleness_mean": statistics.fmean(float(r.get("rollout_staleness", 0)) for r in rows)}


def write_stability(out: Path, runs: list[tuple[str, int, Path]], study: Path) -> list[dict]:
    """stability.csv: one row per run; returns the rows."""
    from kleval.tiny_studies import final_pass_at_1

    results = final_pass_at_1(study)
    rows = []
    for preset_name, seed, run_dir in runs:
        row = {"preset": preset_name, "seed": seed, "run": run_dir.name, **run_stability(run_dir),
               "id_pass@1": results.get((run_dir.name, "id"), float("nan")),
               "ood_pass@1": results.get((run_dir.name, "ood"), float("nan"))}
        rows.append(row)
    with open(out / "stability.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(FIELDS)
        for row in rows:
            writer.writerow([row[f] if f in ("preset", "seed", "run") else f"{row[f]:.4g}" for f in FIELDS])
    return rows


def write_summary(out: Path, rows: list[dict], settings: AsyncStudySettings) -> Path:
    """stability.md: per preset, the mean over seeds with the per-seed values in brackets."""
    from kleval.tiny_studies import seed_table

    caption = (f"Async recipe, async_level {settings.async_level} ({settings.staleness_mode} staleness), "
               f"beta {settings.beta:g}, {settings.steps} steps, "
               f"seeds {', '.join(map(str, settings.seeds))} (mean; per seed in brackets). "
               f"Late = last {LATE_STEPS} steps; KL = exact reverse KL per sequence.")
    path = out / "stability.md"
    path.write_text(seed_table(rows, settings.presets, FIELDS[3:], caption), encoding="utf-8")
    return path
