"""Study logs -> results.csv and table.md: one row per checkpoint x task, a pure function of disk.

Each row carries the checkpoint's whole training configuration (kleval.klconfig.RunSettings.to_row:
kl_label, trainer, algorithm, loss_aggregation, group_size and every KLConfig field as kl_<field>).

Only problems with all n samples graded are counted, so a partial run reports what it has
finished (num_problems says how many) rather than mixing in half-graded problems.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kleval.eval import study as layout
from kleval.klconfig import ROW_COLUMNS

_RATE_STATUSES = ("no_answer", "parse_error", "timeout")


def task_result(study: Path, label: str, task: str, n: int, ks: list[int]) -> dict[str, Any] | None:
    """Metrics for one checkpoint on one task, or None when nothing is graded yet."""
    import numpy as np

    from kleval.metrics import summarize

    samples = layout.read_jsonl(layout.samples_path(study, label, task))
    scores = {(r["problem_id"], r["sample_index"]): r for r in layout.read_jsonl(layout.scores_path(study, label, task))}
    by_problem: dict[str, list[tuple[dict, dict]]] = {}
    for s in samples:
        v = scores.get((s["problem_id"], s["sample_index"]))
        if v is not None:
            by_problem.setdefault(s["problem_id"], []).append((s, v))
    done = {pid: sorted(rows, key=lambda sv: sv[0]["sample_index"]) for pid, rows in by_problem.items() if len(rows) == n}
    if not done:
        return None
    ids = sorted(done)
    correct = np.array([[v["correct"] for _, v in done[pid]] for pid in ids], dtype=bool)
    answers = [[_answer(v) for _, v in done[pid]] for pid in ids]
    row: dict[str, Any] = summarize(correct, answers, ks)
    pairs = [sv for pid in ids for sv in done[pid]]
    for status in _RATE_STATUSES:
        row[f"{status}_rate"] = sum(v["status"] == status for _, v in pairs) / len(pairs)
    row["truncation_rate"] = sum(s["finish_reason"] == "length" for s, _ in pairs) / len(pairs)
    row["mean_tokens"] = sum(s["num_tokens"] for s, _ in pairs) / len(pairs)
    return row


def _answer(verdict: dict) -> str | None:
    if verdict["status"] in ("no_answer", "timeout"):
        return None
    return verdict.get("pred_canonical") or verdict.get("extracted")


def collect_results(study: Path):
    """A pandas DataFrame with one row per checkpoint x task that has graded samples."""
    import pandas as pd

    header = layout.read_json(study / layout.HEADER_FILE)
    checkpoints = layout.read_json(study / layout.CHECKPOINTS_FILE)
    n, ks = header["sampling"]["n"], header["ks"]
    from kleval.eval.checkpoints import Checkpoint

    rows = []
    for entry in sorted(checkpoints, key=_run_step_order):
        ckpt = Checkpoint.from_dict(entry)
        settings = ckpt.settings.to_row() if ckpt.settings else dict.fromkeys(ROW_COLUMNS)
        for task, info in sorted(header["tasks"].items()):
            metrics = task_result(study, ckpt.label, task, n, ks)
            if metrics is None:
                continue
            rows.append({"checkpoint": ckpt.label, "run": ckpt.run, "step": ckpt.step, "format": ckpt.format,
                         **settings, "task": task, "split": info["split"], **metrics})
    return pd.DataFrame(rows)


def _run_step_order(entry: dict[str, Any]) -> tuple:
    """Checkpoints by run, then step as a number (step 10 after step 3), then label."""
    step = entry.get("step")
    return (str(entry.get("run") or entry["label"]), step if isinstance(step, int) else -1, entry["label"])


def write_results(study: Path | str) -> Path:
    """(Re)write results.csv and table.md from the study's logs; return the results.csv path."""
    study = Path(study)
    frame = collect_results(study)
    path = study / layout.RESULTS_FILE
    layout.write_atomic(path, frame.to_csv(index=False, float_format="%.6g"))
    layout.write_atomic(study / layout.TABLE_FILE, render_table(frame, layout.read_json(study / layout.HEADER_FILE)))
    return path


def render_table(frame, header: dict[str, Any]) -> str:
    """A Markdown table: one row per checkpoint, one column per task, pass@k with its CI.

    Checkpoint, task and configuration names are data: escaped, so a `|` or `*` in a run name
    cannot split a row or turn into formatting."""
    from kleval.report.render import markdown_escape as esc

    ks = header["ks"]
    s = header["sampling"]
    lines = ["# kleval results\n",
             f"n={s['n']}, temperature={s['temperature']}, top_p={s['top_p']}, max_tokens={s['max_tokens']}, "
             f"seed={s['seed']}; verifier {header['verifier_version']}; 95% bootstrap CIs over problems.\n"]
    if frame.empty:
        return "\n".join(lines + ["No graded samples yet."]) + "\n"
    tasks = list(dict.fromkeys(frame["task"]))
    for k in ks:
        col = f"pass@{k}"
        lines.append(f"\n## {col}\n")
        lines.append("| checkpoint | KL configuration | step | "
                     + " | ".join(f"{esc(t)} ({frame[frame.task == t].split.iloc[0]})" for t in tasks) + " |")
        lines.append("|---|---|---|" + "---|" * len(tasks))
        for label, group in frame.groupby("checkpoint", sort=False):
            cells = []
            for t in tasks:
                hit = group[group.task == t]
                if hit.empty or col not in hit:
                    cells.append("")
                    continue
                r = hit.iloc[0]
                cells.append(f"{100 * r[col]:.1f} [{100 * r[col + '_lo']:.1f}, {100 * r[col + '_hi']:.1f}]")
            first = group.iloc[0]
            kl_label = first["kl_label"] if isinstance(first["kl_label"], str) else "-"
            step = "-" if first["step"] is None or first["step"] != first["step"] else int(first["step"])
            lines.append(f"| {esc(label)} | {esc(kl_label)} | {step} | " + " | ".join(cells) + " |")
    lines.append("\nRates (no answer / truncated), mean tokens:\n")
    lines.append("| checkpoint | task | problems | no answer | truncated | mean tokens |")
    lines.append("|---|---|---|---|---|---|")
    for _, r in frame.iterrows():
        lines.append(f"| {esc(r.checkpoint)} | {esc(r.task)} | {int(r.num_problems)} | {100 * r.no_answer_rate:.1f}% | "
                     f"{100 * r.truncation_rate:.1f}% | {r.mean_tokens:.1f} |")
    return "\n".join(lines) + "\n"
