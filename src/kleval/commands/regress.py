"""`kleval regress`: the CI gate; exit 0 unchanged, 1 significant regression, 2 not comparable."""
from __future__ import annotations

import argparse

HELP = "gate a study against a committed baseline (exit 0 ok, 1 regression, 2 not comparable)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline", required=True, metavar="FILE", help="baseline JSON file")
    parser.add_argument("--current", required=True, metavar="STUDY_DIR", help="the study to gate")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="family-wise significance level (Holm over checkpoint x task tests)")
    parser.add_argument("--update-baseline", action="store_true",
                        help="write FILE from the current study instead of gating")
    parser.add_argument("--summary", metavar="OUT.md", default=None,
                        help="also write the Markdown summary here (e.g. for a pull-request comment)")


def run(args: argparse.Namespace) -> int:
    from kleval.errors import ConfigError
    from kleval.regress import run_gate

    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha must be in (0, 1), got {args.alpha}")
    code, summary = run_gate(
        args.baseline, args.current, alpha=args.alpha,
        update_baseline=args.update_baseline, summary_path=args.summary,
    )
    print(summary, end="")
    return code
