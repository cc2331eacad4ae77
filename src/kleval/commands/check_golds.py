"""`kleval check-golds [TASK...] [--file F.jsonl]`: every gold parses, verifies against itself and its reference."""
from __future__ import annotations

import argparse

NAME = "check-golds"
HELP = "check that every gold answer parses and verifies against itself and its reference solution"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tasks", nargs="*", help="task names (default: every task with a data file)")
    parser.add_argument("--data-dir", default=None, help="local benchmark data directory")
    parser.add_argument("--file", action="append", default=[], metavar="JSONL",
                        help="also check a raw MATH (solution) or GSM8K (####) file, e.g. a train split")
    parser.add_argument("--show", type=int, default=50, help="exceptions to print per source (default 50)")


def run(args: argparse.Namespace) -> int:
    from kleval.tasks import list_tasks, load_task
    from kleval.verify.golds import check_problems, problems_from_file

    sources = []
    names = args.tasks or ([] if args.file else list_tasks())
    for name in names:
        task = load_task(name, data_dir=args.data_dir)
        policy = task.policy if isinstance(task.policy, str) else getattr(task.policy, "name", "default")
        sources.append((name, lambda task=task: task.problems(), policy))
    for path in args.file:
        problems, policy = problems_from_file(path)
        sources.append((path, lambda problems=problems: problems, policy))
    total_failures = 0
    for name, load, policy in sources:
        count, failures = check_problems(load(), policy)
        bad = len({f.problem_id for f in failures})
        total_failures += bad
        print(f"{name}: {count - bad}/{count} golds clean ({100 * (count - bad) / max(count, 1):.2f}%)")
        for failure in failures[: args.show]:
            print(f"  {failure.problem_id} [{failure.check}] {failure.status}: {failure.explanation}")
    return 1 if total_failures else 0
