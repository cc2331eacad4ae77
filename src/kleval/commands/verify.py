"""`kleval verify --input IN.jsonl --output OUT.jsonl`: grade (gold, completion) rows from a file.

Each input row holds `gold`, `completion`, optional `kind` (math|number|choice, default math)
and optional `policy` (default|number|gsm8k|choice|exact|countdown); `--policy` sets the policy
of rows that name none. Each output row repeats the input and adds `correct`, `status`,
`extracted` and the rest of the verdict: canonical forms, the `rule` and the `policy` that decided,
and a one-line `explanation`.
"""
from __future__ import annotations

import argparse

from kleval.commands._args import positive_float, positive_int

NAME = "verify"
HELP = "grade gold/completion pairs from a JSONL file with the answer verifier"
KINDS = ("math", "number", "choice")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, help="JSONL with gold, completion, optional kind and policy")
    parser.add_argument("--output", required=True, help="JSONL to write: the input rows plus verdict fields")
    parser.add_argument("--workers", type=positive_int, default=2, help="verifier processes (default 2)")
    parser.add_argument("--timeout", type=positive_float, default=10.0, help="per-item wall-clock limit in seconds")
    parser.add_argument("--policy", default="default", metavar="NAME",
                        help="grading policy for rows without a `policy` field: default (kind number and choice "
                             "use their presets), number, gsm8k, choice or exact (see docs/verifier.md)")


def read_items(path: str, default_policy: str = "default") -> tuple[list[dict], list]:
    """Rows and VerifyItems; a malformed row raises DataError naming the file and line."""
    from pathlib import Path

    from kleval.data import read_jsonl
    from kleval.errors import DataError
    from kleval.verify.policy import PRESETS
    from kleval.verify.pool import VerifyItem

    known = sorted(set(PRESETS) | {"countdown"})  # countdown: the Countdown task's expression grader
    if default_policy not in known:
        raise DataError(f"--policy {default_policy!r} is not one of {', '.join(known)}")
    if not Path(path).is_file():
        raise DataError(f"cannot read {path}: no such file; pass an existing JSONL file to --input")
    rows, items = [], []
    for source in read_jsonl(Path(path)):
        row, where = dict(source.record), source.where
        for key in ("gold", "completion"):
            if not isinstance(row.get(key), str):
                raise DataError(f"{where}: field {key!r} is missing or not a string")
        kind = row.get("kind") or "math"
        if kind not in KINDS:
            raise DataError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
        policy = row.get("policy") or default_policy
        if not isinstance(policy, str) or policy not in known:
            raise DataError(f"{where}: policy {policy!r} is not one of {', '.join(known)}")
        rows.append(row)
        items.append(VerifyItem(row["gold"], row["completion"], kind, policy))
    if not rows:
        raise DataError(f"{path}: no rows to grade (the file is empty)")
    return rows, items


def run(args: argparse.Namespace) -> int:
    import json
    import os

    from kleval.verify.pool import VerifierPool

    rows, items = read_items(args.input, args.policy)
    with VerifierPool(workers=args.workers, timeout_s=args.timeout) as pool:
        verdicts = pool.map(items)
    temporary = args.output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        for row, verdict in zip(rows, verdicts):
            out.write(json.dumps({**row, **verdict.to_dict()}, ensure_ascii=False) + "\n")
    os.replace(temporary, args.output)  # never leave a half-written output
    correct = sum(v.correct for v in verdicts)
    print(f"{correct}/{len(verdicts)} correct; wrote {args.output}")
    return 0
