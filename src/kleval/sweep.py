"""The paper's beta sweep on the CPU tiny task: `kleval demo --study beta`.

Shah et al. sweep beta in {0, 0.05, 0.1, 0.3, 1} for each KL configuration and read two things off
it: the reward-KL frontier (how much exact reverse KL each configuration spends for its reward) and
the mechanism (K3 in the loss follows the forward KL, is mode-covering and keeps a higher entropy;
K1 in the reward is mode-seeking). This study trains every preset at every beta (beta 0 is the
"none" preset, trained once per seed) from the committed tiny base, evaluates the final
checkpoints on the ID/OOD arithmetic tasks, and writes into the output directory:

- `study/` and the usual report (table.md/.tex, figures, index.html; rows are preset x beta,
  marks against `none`, configuration-level test as in `kleval report`);
- `frontier.csv`: one row per run: preset, beta, seed, the mean over its last 50 training steps of
  reward, exact reverse KL, exact forward KL and entropy, and the final checkpoint's pass@1;
- `frontier.{png,pdf}`: reward against exact reverse KL (one curve per preset through its betas,
  mean over seeds), forward KL against beta, entropy against beta.

Reproducible like the demo (pinned threads, seeded, no time stamps or absolute paths). At the
defaults (4 presets x 4 betas + none, x 3 seeds, 300 steps) it trains 51 runs: about 3.5 times the
demo's training time.
"""
from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from pathlib import Path

SWEEP_PRESETS = ("k1-reward", "k1-loss", "k3-reward", "k3-loss")
SWEEP_BETAS = (0.05, 0.1, 0.3, 1.0)  # plus beta 0: the "none" preset
LAST_STEPS = 50
FRONTIER_FIELDS = ("preset", "beta", "seed", "run", "reward", "kl_exact", "kl_exact_forward", "entropy",
                   "id_pass@1", "ood_pass@1")


@dataclass(frozen=True)
class BetaSweepSettings:
    out: Path = Path("reports/beta_sweep")
    base: Path | None = None  # None: the committed assets/tiny-arith-base
    presets: tuple[str, ...] = SWEEP_PRESETS
    betas: tuple[float, ...] = SWEEP_BETAS
    seeds: tuple[int, ...] = (0, 1, 2)
    steps: int = 300
    eval_limit: int = 200
    n: int = 4
    workers: int = 2
    threads: int = 2
    figures: bool = True


def _train_one(job: tuple) -> str:
    preset_name, beta, seed, run_dir, steps, base = job
    from kleval.train.tiny import train_tiny

    train_tiny(preset_name, run_dir, steps=steps, seed=seed, base_dir=base, beta=beta)
    return run_dir


def run_beta_sweep(settings: BetaSweepSettings = BetaSweepSettings(), *, progress: bool = True) -> Path:
    """Train, evaluate and report the sweep into settings.out; returns frontier.csv."""
    from kleval.tiny_studies import pinned_torch

    with pinned_torch(settings.threads):
        return _run_beta_sweep(settings, progress)


def _run_beta_sweep(settings: BetaSweepSettings, progress: bool) -> Path:
    from kleval.report import build_report
    from kleval.tiny_studies import evaluate_final_steps, relative_to_cwd, train_runs
    from kleval.train.tiny import ensure_base

    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    base = str(relative_to_cwd(ensure_base(settings.base, progress=progress)))
    jobs = [("none", 0.0, seed, str(out / "runs" / f"none-s{seed}"), settings.steps, base) for seed in settings.seeds]
    jobs += [(p, b, seed, str(out / "runs" / f"{p}-b{b:g}-s{seed}"), settings.steps, base)
             for b in settings.betas for p in settings.presets for seed in settings.seeds]
    print(f"beta sweep: {len(jobs)} runs of {settings.steps} steps, {settings.workers} at a time", flush=True)
    run_dirs = train_runs(_train_one, jobs, settings.workers)
    study = evaluate_final_steps(base, run_dirs, out / "study", n=settings.n, limit=settings.eval_limit,
                                 progress=progress)
    build_report(study, out, k=1, reference="none", figures=settings.figures)
    frontier = write_frontier(out, [(job[0], job[1], job[2], Path(job[3])) for job in jobs], study)
    if settings.figures:
        plot_frontier(frontier, out)
    return frontier


def run_summary(run_dir: Path, last: int = LAST_STEPS) -> dict[str, float]:
    """Means of reward, exact reverse/forward KL and entropy over a run's last `last` logged steps."""
    from kleval.report.study import read_train_log

    rows = read_train_log(run_dir / "train_log.jsonl")[-last:]
    return {key: statistics.fmean(float(r[key]) for r in rows)
            for key in ("reward", "kl_exact", "kl_exact_forward", "entropy")}


def write_frontier(out: Path, runs: list[tuple[str, float, int, Path]], study: Path) -> Path:
    """frontier.csv: one row per (preset, beta, seed) run, training summary and final pass@1."""
    from kleval.tiny_studies import final_pass_at_1

    results = final_pass_at_1(study)
    path = out / "frontier.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(FRONTIER_FIELDS)
        for preset_name, beta, seed, run_dir in runs:
            summary = run_summary(run_dir)
            writer.writerow([preset_name, f"{beta:g}", seed, run_dir.name,
                             *(f"{summary[k]:.6g}" for k in ("reward", "kl_exact", "kl_exact_forward", "entropy")),
                             f"{results.get((run_dir.name, 'id'), float('nan')):.6g}",
                             f"{results.get((run_dir.name, 'ood'), float('nan')):.6g}"])
    return path


def plot_frontier(frontier_csv: Path, out_dir: Path) -> None:
    """frontier.{png,pdf}: reward vs exact reverse KL, forward KL vs beta, entropy vs beta."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kleval.report.configs import PRESET_COLOURS

    with open(frontier_csv, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    means: dict[tuple[str, float], dict[str, float]] = {}
    for key in sorted({(r["preset"], float(r["beta"])) for r in rows}):
        group = [r for r in rows if (r["preset"], float(r["beta"])) == key]
        means[key] = {m: statistics.fmean(float(r[m]) for r in group)
                      for m in ("reward", "kl_exact", "kl_exact_forward", "entropy")}
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
    for preset_name in sorted({p for p, _ in means}):
        points = sorted((b, v) for (p, b), v in means.items() if p == preset_name)
        colour = PRESET_COLOURS.get(preset_name, "#000000")
        marker = "*" if preset_name == "none" else "o"
        axes[0].plot([v["kl_exact"] for _, v in points], [v["reward"] for _, v in points], marker=marker,
                     color=colour, label=preset_name, ms=8 if marker == "*" else 4)
        for b, v in points:
            if preset_name != "none":
                axes[0].annotate(f"{b:g}", (v["kl_exact"], v["reward"]), fontsize=6, xytext=(2, 2),
                                 textcoords="offset points")
        if preset_name != "none":
            betas = [b for b, _ in points]
            axes[1].plot(betas, [v["kl_exact_forward"] for _, v in points], marker="o", color=colour)
            axes[2].plot(betas, [v["entropy"] for _, v in points], marker="o", color=colour)
    axes[0].set(xlabel="exact reverse KL (last 50 steps)", ylabel="training reward", title="reward-KL frontier")
    axes[1].set(xscale="log", xlabel="β", ylabel="exact forward KL", title="forward KL")
    axes[2].set(xscale="log", xlabel="β", ylabel="entropy (nats/token)", title="entropy")
    axes[0].legend(fontsize=7, frameon=False)
    fig.tight_layout()
    fig.savefig(out_dir / "frontier.png", dpi=150, metadata={"Software": None})
    fig.savefig(out_dir / "frontier.pdf", metadata={"CreationDate": None, "Producer": None})
    plt.close(fig)
