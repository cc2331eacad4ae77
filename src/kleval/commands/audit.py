"""`kleval audit STUDY_DIR --against math-verify`: list samples where the two verifiers disagree."""
from __future__ import annotations

import argparse

NAME = "audit"
HELP = "list samples where kleval's verdict and another verifier's (Math-Verify) differ, with both explanations"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study", help="study directory written by kleval eval")
    parser.add_argument("--against", choices=["math-verify"], default="math-verify",
                        help="the other verifier (default math-verify; pip install math-verify)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per disagreement")


def run(args: argparse.Namespace) -> int:
    import json

    from kleval.eval.rescore import audit_study
    from kleval.report.samples import problem_link

    rows = audit_study(args.study)
    for row in rows:
        if args.json:
            print(json.dumps(row, ensure_ascii=False))
        else:
            print(f"{row['checkpoint']} {row['task']} {row['problem_id']}#{row['sample_index']} gold={row['gold']!r}\n"
                  f"  kleval {row['kleval']}: {row['kleval_explanation']}\n"
                  f"  math-verify {row['math_verify']}: {row['math_verify_explanation']}\n"
                  f"  view: {problem_link(args.study, row['task'], row['problem_id'], row['checkpoint'])}")
    print(f"{len(rows)} disagreements" + (" (view links open the sample browser of `kleval report STUDY`)" if rows else ""))
    return 0
