"""`kleval tasks`: list the benchmark tasks with their split, answer kind, data source and size.

A task whose data cannot be read is listed with a marker and the reason, never a crash, so the
table doubles as a check of the data directory. `--show NAME` prints one task's first prompt.
"""
from __future__ import annotations

import argparse

NAME = "tasks"
HELP = "List the benchmark tasks with their split, kind, data source and problem count."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", help="benchmark data directory (default: $KLEVAL_DATA_DIR, ../shared/data, the hub)"
    )
    parser.add_argument("--tasks-dir", help="task spec directory (default: $KLEVAL_TASKS_DIR, the repo's tasks/)")
    parser.add_argument("--show", metavar="TASK", help="print one task's first prompt and gold")
    parser.add_argument("--no-count", action="store_true", help="skip reading the data (faster; no counts)")


def _row(name: str, args: argparse.Namespace) -> tuple[list[str], str | None]:
    from kleval.errors import KlevalError
    from kleval.tasks import load_task

    try:
        task = load_task(name, data_dir=args.data_dir, tasks_dir=args.tasks_dir)
    except KlevalError as exc:
        return [name, "?", "?", "-", "UNAVAILABLE"], str(exc)
    source = task.source
    if task.data_file is not None and args.data_dir is None:
        source = f"{task.data_file.parent.name}/{task.data_file.name}"
    count = "-"
    if not args.no_count:
        try:
            count = str(len(task.problems()))
        except KlevalError as exc:
            return [name, task.split.value, task.kind.value, source, "UNAVAILABLE"], str(exc)
    return [name, task.split.value, task.kind.value, source, count], None


def _show(args: argparse.Namespace) -> int:
    from kleval.tasks import load_task

    task = load_task(args.show, data_dir=args.data_dir, tasks_dir=args.tasks_dir)
    problem = task.problems(limit=1)[0]
    print(f"# {task.name}  split={task.split.value} kind={task.kind.value} policy={task.policy} "
          f"chat={task.chat} problems={len(task.problems())}")
    print(f"# source={task.source}\n# spec_hash={task.spec_hash[:12]} prompt_hash={task.prompt_hash[:12]}")
    print(f"# problem id={problem.id} gold={problem.gold!r}\n")
    print(task.prompt(problem))
    return 0


def run(args: argparse.Namespace) -> int:
    from kleval.tasks import list_tasks

    if args.show:
        return _show(args)
    names = list_tasks(args.tasks_dir)
    header = ["task", "split", "kind", "source", "problems"]
    rows, problems = [], []
    for name in names:
        row, error = _row(name, args)
        rows.append(row)
        if error:
            problems.append(f"  {name}: {error}")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        cells = [c.ljust(w) if i < 4 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        print("  ".join(cells).rstrip())
    if problems:
        print(f"\n{len(problems)} task(s) unavailable:")
        print("\n".join(problems))
    return 0
