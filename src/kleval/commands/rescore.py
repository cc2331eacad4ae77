"""`kleval rescore STUDY_DIR`: re-verify stored samples with the current verifier (no generation).

Holds the study lock for the whole rewrite, so a rescore never interleaves with an eval (or
another rescore) of the same study: the second one is refused with the reason.
"""
from __future__ import annotations

import argparse

from kleval.commands._args import positive_int

NAME = "rescore"
HELP = "re-verify a study's samples into scores/ with the current verifier, without regenerating"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study", help="study directory written by kleval eval")
    parser.add_argument("--workers", type=positive_int, default=2, help="grading processes (default 2)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kleval.errors import DataError
    from kleval.eval.results import write_results
    from kleval.eval.rescore import rescore_study
    from kleval.eval.study import HEADER_FILE, study_lock

    study = Path(args.study)
    if not (study / HEADER_FILE).is_file():  # never create a lock file in a directory that is no study
        raise DataError(f"{study / HEADER_FILE} not found: is {study} a kleval study directory?")
    with study_lock(study):
        count = rescore_study(study, workers=args.workers)
        results = write_results(study)
    print(f"rescored {count} samples in {study}; rewrote {results} and table.md")
    return 0
