"""`kleval demo`: the embedded default study (train every KL preset on CPU, evaluate, report), or
with `--study beta` the paper's beta sweep with its reward-KL frontier (kleval.sweep), `--study
async` the off-policy recipe's stability (kleval.async_study), `--study online` accuracy against
step from evaluation during training (kleval.online_study), `--study countdown` the paper's second
task on the tiny Countdown model (kleval.countdown_study)."""
from __future__ import annotations

import argparse

HELP = "train every KL preset on the tiny CPU task, evaluate, gradcheck and report (make demo)"

# Per-study defaults where they differ from 300 steps x 3 seeds (each fits its time on 2 cores).
STEPS = {"countdown": 200}
SEEDS = {"countdown": 2, "online": 1}
OUT = {"paper": "reports/demo", "beta": "reports/beta_sweep", "async": "reports/async",
       "online": "reports/online_eval", "countdown": "reports/countdown"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--study", choices=tuple(OUT), default="paper",
                   help="'paper': every preset at beta 1 (default); 'beta': the beta sweep and its frontier; "
                        "'async': the off-policy recipe (--recipe async, 10 updates stale) and its stability; "
                        "'online': accuracy against step from evaluation during training (--eval-every); "
                        "'countdown': the paper's second task on the tiny Countdown model, token- vs "
                        "sequence-level estimators included")
    p.add_argument("--out", default=None,
                   help="output directory (default reports/demo, reports/beta_sweep, reports/async, "
                        "reports/online_eval or reports/countdown)")
    p.add_argument("--steps", type=int, default=None,
                   help="RL steps per run (default 300; 200 for --study countdown)")
    p.add_argument("--seeds", type=int, default=None,
                   help="seeds per preset (default 3, the fewest the report's configuration-level test uses; "
                        "2 for --study countdown, 1 for --study online)")
    p.add_argument("--presets", default=None,
                   help="comma-separated presets (default: the paper's six; for --study beta the four estimators; "
                        "for --study countdown also k2-loss-seq and k3-loss-seq: '-seq' = sequence granularity)")
    p.add_argument("--betas", default=None, help="--study beta: comma-separated betas (default 0.05,0.1,0.3,1)")
    p.add_argument("--beta", default=None,
                   help="--study paper|async|online|countdown: the KL coefficient of every preset (default 1; "
                        "'none' has none)")
    p.add_argument("--staleness-mode", choices=("fixed", "latest"), default=None,
                   help="--study async: batches exactly async_level updates stale ('fixed', default) or sampled by "
                        "the newest policy at most that old ('latest', seeded timing model; train/staleness.py)")
    p.add_argument("--screenshot", action="store_true",
                   help="also write index.png with headless Chromium (not byte-reproducible)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def _floats(text: str, *, flag: str) -> tuple[float, ...]:
    """Comma-separated positive finite betas (one for --beta)."""
    import math

    from kleval.errors import ConfigError

    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise ConfigError(f"{flag} must be {'a number' if flag == '--beta' else 'comma-separated numbers'}, "
                          f"got {text!r}") from None
    if not values or any(not (0 < v < math.inf) for v in values) or (flag == "--beta" and len(values) != 1):
        raise ConfigError(f"{flag} must be {'one positive number' if flag == '--beta' else 'positive numbers'} "
                          f"(beta 0 is the 'none' run, always included), got {text!r}")
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
    if args.beta is not None and args.study == "beta":
        raise ConfigError("--study beta sweeps --betas; --beta sets the one beta of the other studies")
    if args.staleness_mode is not None and args.study != "async":
        raise ConfigError("--staleness-mode belongs to --study async")
    beta = {"beta": _floats(args.beta, flag="--beta")[0]} if args.beta is not None else {}
    out = Path(args.out or OUT[args.study])
    progress = not args.no_progress
    if args.study == "countdown":
        from kleval.countdown_study import COUNTDOWN_PRESETS, CountdownStudySettings, run_countdown_study, study_kl

        for name in presets or ():
            study_kl(name, 1.0)  # a ConfigError naming the bad configuration
        settings = CountdownStudySettings(out=out, steps=steps, seeds=seeds, presets=presets or COUNTDOWN_PRESETS,
                                          **beta)
        print(f"summary: {run_countdown_study(settings, progress=progress)}")
        return 0
    unknown = [p for p in presets or () if p not in KNOWN]
    if unknown:
        raise ConfigError(f"unknown preset(s) {', '.join(unknown)}; choose from {', '.join(KNOWN)}")
    if args.study == "beta":
        from kleval.sweep import SWEEP_BETAS, SWEEP_PRESETS, BetaSweepSettings, run_beta_sweep

        settings = BetaSweepSettings(out=out, steps=steps, seeds=seeds,
                                     presets=tuple(p for p in presets or SWEEP_PRESETS if p != "none"),
                                     betas=_floats(args.betas, flag="--betas") if args.betas else SWEEP_BETAS)
        print(f"frontier: {run_beta_sweep(settings, progress=progress)}")
        return 0
    if args.study == "async":
        from kleval.async_study import ASYNC_PRESETS, AsyncStudySettings, run_async_study

        mode = {"staleness_mode": args.staleness_mode} if args.staleness_mode else {}
        settings = AsyncStudySettings(out=out, steps=steps, seeds=seeds, presets=presets or ASYNC_PRESETS,
                                      **beta, **mode)
        print(f"stability: {run_async_study(settings, progress=progress)}")
        return 0
    if args.study == "online":
        from kleval.online_study import ONLINE_PRESETS, OnlineStudySettings, run_online_study

        settings = OnlineStudySettings(out=out, steps=steps, seeds=seeds, presets=presets or ONLINE_PRESETS, **beta)
        print(f"accuracy by step: {run_online_study(settings, progress=progress)}")
        return 0
    from kleval.demo import PRESETS, DemoSettings, run_demo

    settings = DemoSettings(out=out, steps=steps, seeds=seeds, presets=presets or PRESETS,
                            screenshot=args.screenshot, **beta)
    run_demo(settings, progress=progress)
    return 0
