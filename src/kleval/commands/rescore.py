"""`kleval rescore STUDY_DIR`: re-verify stored samples with the current verifier (no generation)."""
from __future__ import annotations

import argparse

NAME = "rescore"
HELP = "re-verify a study's samples into scores/ with the current verifier, without regenerating"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study", help="study directory written by kleval eval")
    parser.add_argument("--workers", type=int, default=2, help="grading processes (default 2)")


def run(args: argparse.Namespace) -> int:
    from kleval.eval.results import write_results
    from kleval.eval.rescore import rescore_study

    count = rescore_study(args.study, workers=args.workers)
    results = write_results(args.study)
    print(f"rescored {count} samples in {args.study}; rewrote {results} and table.md")
    return 0
