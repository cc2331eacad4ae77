"""`kleval report STUDY_DIR`: paper-style table (Markdown, LaTeX), figures and index.html."""
from __future__ import annotations

import argparse

from kleval.commands._args import positive_int

HELP = "write the KL-configuration table, figures and index.html for a study directory"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study_dir", metavar="STUDY_DIR", help="a study directory written by `kleval eval`")
    parser.add_argument("--k", type=positive_int, default=1, help="pass@k shown in the table (default 1)")
    parser.add_argument(
        "--reference", default=None,
        help="row the significance marks compare against, by its name in the table (default: k3-loss when "
             "the study has it; several k3-loss rows: kleval's with the most seeds)",
    )
    parser.add_argument(
        "--test", choices=("seed", "problem"), default="seed",
        help="what the marks test: 'seed' = configurations, Welch t-test over per-seed means (needs >= 3 "
             "seeds per row); 'problem' = these checkpoints, paired sign-flip test over problems (default seed)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level for the marks")
    parser.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap resamples per CI")
    parser.add_argument("--out", default=None, help="output directory (default STUDY_DIR/report)")
    parser.add_argument("--no-figures", action="store_true", help="write the tables only")


def run(args: argparse.Namespace) -> int:
    from kleval.errors import ConfigError
    from kleval.report import build_report

    if args.k < 1:
        raise ConfigError(f"--k must be >= 1, got {args.k}")
    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha must be in (0, 1), got {args.alpha}")
    files = build_report(
        args.study_dir, args.out, k=args.k, reference=args.reference, alpha=args.alpha,
        num_resamples=args.resamples, figures=not args.no_figures, test=args.test,
    )
    print(files.table_md.read_text(encoding="utf-8"))
    print(f"report written to {files.out_dir} (open {files.index_html})")
    return 0
