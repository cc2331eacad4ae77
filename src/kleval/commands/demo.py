"""`kleval demo`: the embedded default study (train every KL preset on CPU, evaluate, report), or
with `--study beta` the paper's beta sweep with its reward-KL frontier (kleval.sweep), `--study
async` the off-policy recipe (kleval.async_study), `--study countdown` the paper's second task on the
tiny Countdown model (kleval.countdown_study)."""
from __future__ import annotations

import argparse

HELP = "train every KL preset on the tiny CPU task, evaluate, gradcheck and report (make demo)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--study", choices=("paper", "beta", "async", "countdown"), default="paper",
                   help="'paper': every preset at beta 1 (default); 'beta': the beta sweep and its frontier; "
                        "'async': the off-policy recipe (--recipe async, 10 updates stale) and its stability; "
                        "'countdown': the paper's second task on the tiny Countdown model, token- vs sequence-level "
                        "estimators included")
    p.add_argument("--out", default=None,
                   help="output directory (default reports/demo, reports/beta_sweep, reports/async or reports/countdown)")
    p.add_argument("--steps", type=int, default=None,
                   help="RL steps per run (default 300; 200 for --study countdown)")
    p.add_argument("--seeds", type=int, default=None,
                   help="seeds per preset (default 3, the fewest the report's configuration-level test uses; "
                        "2 for --study countdown)")
    p.add_argument("--presets", default=None,
                   help="comma-separated presets (default: the paper's six; for --study beta the four estimators; "
                        "for --study countdown also k2-loss-seq and k3-loss-seq: '-seq' = sequence granularity)")
    p.add_argument("--betas", default=None, help="--study beta: comma-separated betas (default 0.05,0.1,0.3,1)")
    p.add_argument("--screenshot", action="store_true",
                   help="also write index.png with headless Chromium (not byte-reproducible)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


# Per-study defaults where they differ from 300 steps x 3 seeds (each fits its time on 2 cores).
STEPS = {"countdown": 200}
SEEDS = {"countdown": 2}


def _floats(text: str) -> tuple[float, ...]:
    from kleval.errors import ConfigError

    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise ConfigError(f"--betas must be comma-separated numbers, got {text!r}") from None
    if not values or any(v <= 0 for v in values):
        raise ConfigError(f"--betas must be positive (beta 0 is the 'none' run, always included), got {text!r}")
    return values


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kleval.errors import ConfigError
    from kleval.klconfig import PRESETS as KNOWN

    steps = args.steps if args.steps is not None else STEPS.get(args.study, 300)
    seed_count = args.seeds if args.seeds is not None else SEEDS.get(args.study, 3)
    if steps < 1 or seed_count < 1:
        raise ConfigError(f"--steps and --seeds must be >= 1, got {steps} and {seed_count}")
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip()) if args.presets else None
    if args.presets is not None and not presets:
        raise ConfigError("--presets is empty; give comma-separated preset names")
    seeds = tuple(range(seed_count))
    if args.study == "countdown":
        from kleval.countdown_study import (
            COUNTDOWN_PRESETS,
            CountdownStudySettings,
            run_countdown_study,
            study_kl,
        )

        for name in presets or ():
            study_kl(name, 1.0)  # a ConfigError naming the bad configuration
        settings = CountdownStudySettings(out=Path(args.out or "reports/countdown"), steps=steps, seeds=seeds,
                                          presets=presets or COUNTDOWN_PRESETS)
        print(f"summary: {run_countdown_study(settings, progress=not args.no_progress)}")
        return 0
    unknown = [p for p in presets or () if p not in KNOWN]
    if unknown:
        raise ConfigError(f"unknown preset(s) {', '.join(unknown)}; choose from {', '.join(KNOWN)}")
    if args.study == "beta":
        from kleval.sweep import (
            SWEEP_BETAS,
            SWEEP_PRESETS,
            BetaSweepSettings,
            run_beta_sweep,
        )

        settings = BetaSweepSettings(out=Path(args.out or "reports/beta_sweep"), steps=steps, seeds=seeds,
                                     presets=tuple(p for p in presets or SWEEP_PRESETS if p != "none"),
                                     betas=_floats(args.betas) if args.betas else SWEEP_BETAS)
        print(f"frontier: {run_beta_sweep(settings, progress=not args.no_progress)}")
        return 0
    if args.study == "async":
        from kleval.async_study import (
            ASYNC_PRESETS,
            AsyncStudySettings,
            run_async_study,
        )

        settings = AsyncStudySettings(out=Path(args.out or "reports/async"), steps=steps, seeds=seeds,
                                      presets=presets or ASYNC_PRESETS)
        print(f"stability: {run_async_study(settings, progress=not args.no_progress)}")
        return 0
    from kleval.demo import PRESETS, DemoSettings, run_demo

    settings = DemoSettings(out=Path(args.out or "reports/demo"), steps=steps, seeds=seeds,
                            presets=presets or PRESETS, screenshot=args.screenshot)
    run_demo(settings, progress=not args.no_progress)
    return 0
