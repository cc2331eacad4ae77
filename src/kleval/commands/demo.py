"""`kleval demo`: the embedded default study (train every KL preset on CPU, evaluate, report)."""
from __future__ import annotations

import argparse

HELP = "train every KL preset on the tiny CPU task, evaluate, gradcheck and report (make demo)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="reports/demo", help="output directory (default reports/demo)")
    p.add_argument("--steps", type=int, default=300, help="RL steps per run (default 300)")
    p.add_argument("--seeds", type=int, default=3,
                   help="seeds per preset (default 3, the fewest the report's configuration-level test uses)")
    p.add_argument("--presets", default=None, help="comma-separated presets (default: the paper's six)")
    p.add_argument("--screenshot", action="store_true",
                   help="also write index.png with headless Chromium (not byte-reproducible)")
    p.add_argument("--no-progress", action="store_true")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kleval.demo import PRESETS, DemoSettings, run_demo

    presets = tuple(p.strip() for p in args.presets.split(",")) if args.presets else PRESETS
    if args.steps < 1 or args.seeds < 1:
        from kleval.errors import ConfigError

        raise ConfigError(f"--steps and --seeds must be >= 1, got {args.steps} and {args.seeds}")
    settings = DemoSettings(out=Path(args.out), steps=args.steps, seeds=tuple(range(args.seeds)), presets=presets,
                            screenshot=args.screenshot)
    run_demo(settings, progress=not args.no_progress)
    return 0
