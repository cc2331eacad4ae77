"""The CI regression gate: compare a current study with a committed baseline, problem by problem.

Baseline file (JSON, written by `kleval regress --update-baseline`):

    {"format": "kleval-baseline/1",
     "comparability": {"sampling": {n, temperature, top_p, max_tokens, stop, seed},
                       "verifier_version": ...,
                       "tasks": {task: {spec_hash, prompt_hash, data_hash, num_problems}}},
     "source": {"study", "git_revision", "kleval_version"},
     "checkpoints": {label: {task: {"n": n, "correct": {problem_id: num_correct}}}}}

Two studies are comparable when tasks (names and hashes), decoding (n, temperature, top_p,
max_tokens, stop), verifier version, checkpoints and problem ids agree; the sampling seed may
differ (that is just another draw). For each checkpoint x task the per-problem success rates are
compared with a one-sided paired sign-flip test (current worse than baseline); p-values are
Holm-adjusted over all tests, and a test whose adjusted p is below alpha is a regression.
Exit codes: 0 nothing regressed, 1 a significant regression, 2 not comparable.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kleval.errors import DataError
from kleval.report.study import Study
from kleval.stats import PairedComparison, holm_adjust, paired_compare

FORMAT = "kleval-baseline/1"
DECODING_KEYS = ("n", "temperature", "top_p", "max_tokens", "stop")
TASK_KEYS = ("spec_hash", "prompt_hash", "data_hash", "num_problems")
EXIT_OK, EXIT_REGRESSED, EXIT_NOT_COMPARABLE = 0, 1, 2


@dataclass(frozen=True)
class TaskComparison:
    checkpoint: str
    task: str
    baseline_rate: float
    current_rate: float
    comparison: PairedComparison
    adjusted_p: float
    regressed: bool


def comparability_key(study: Study) -> dict[str, Any]:
    header = study.header
    if not header:
        raise DataError(f"{study.root / 'study.json'} is missing; the gate needs the study header")
    sampling = dict(header.get("sampling") or {})
    tasks = {}
    for name, info in (header.get("tasks") or {}).items():
        tasks[name] = {key: (info or {}).get(key) for key in TASK_KEYS}
    return {
        "sampling": {key: sampling.get(key) for key in DECODING_KEYS + ("seed",)},
        "verifier_version": header.get("verifier_version"),
        "tasks": tasks,
    }


def _success_counts(study: Study, n: int) -> dict[str, dict[str, Any]]:
    counts: dict[str, dict[str, Any]] = {}
    for label, task in sorted(study.evaluated):
        outcome = study.outcomes(label, task)
        if (label, task) in study.incomplete:
            raise DataError(
                f"{study.root}: {label} on {task} has {study.incomplete[(label, task)]} problems with "
                f"fewer than n={n} graded samples; finish the study (rerun `kleval eval`) before gating"
            )
        correct = {pid: int(c) for pid, c in zip(outcome.problem_ids, outcome.num_correct)}
        counts.setdefault(label, {})[task] = {"n": n, "correct": correct}
    return counts


def make_baseline(study: Study) -> dict[str, Any]:
    """A baseline document for `study` (deterministic: sorted keys, no timestamps)."""
    key = comparability_key(study)
    n = key["sampling"]["n"]
    if not isinstance(n, int):
        raise DataError(f"{study.root / 'study.json'}: sampling.n is missing")
    return {
        "format": FORMAT,
        "comparability": key,
        "source": {
            "study": study.root.resolve().name,
            "git_revision": study.header.get("git_revision"),
            "kleval_version": study.header.get("kleval_version"),
        },
        "checkpoints": _success_counts(study, n),
    }


def load_baseline(path: Path) -> dict[str, Any]:
    """The baseline at `path`; anything malformed is a DataError (exit 2, never 1: CI reads 1 as
    "regression")."""
    try:
        baseline = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(
            f"baseline {path} does not exist; create it with `kleval regress --baseline {path} "
            f"--current STUDY --update-baseline`"
        ) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: baseline is not valid JSON ({exc.msg})") from None
    except (UnicodeDecodeError, OSError) as exc:
        raise DataError(f"{path}: cannot read the baseline ({exc})") from None
    if not isinstance(baseline, dict) or baseline.get("format") != FORMAT:
        raise DataError(f"{path} is not a kleval baseline (expected format {FORMAT!r})")
    problem = _shape_problem(baseline)
    if problem:
        raise DataError(f"{path}: malformed baseline ({problem}); regenerate it with --update-baseline")
    return baseline


def _shape_problem(baseline: dict[str, Any]) -> str | None:
    """What is wrong with a baseline's structure (the docstring's layout), or None."""
    key = baseline.get("comparability")
    if not isinstance(key, dict) or not isinstance(key.get("sampling"), dict) or not isinstance(key.get("tasks"), dict):
        return "comparability needs sampling and tasks objects"
    if not all(isinstance(info, dict) for info in key["tasks"].values()):
        return "comparability.tasks entries must be objects"
    checkpoints = baseline.get("checkpoints")
    if not isinstance(checkpoints, dict):
        return "checkpoints must be an object"
    for label, tasks in checkpoints.items():
        if not isinstance(tasks, dict):
            return f"checkpoints.{label} must be an object"
        for task, entry in tasks.items():
            where = f"checkpoints.{label}.{task}"
            if not isinstance(entry, dict) or not isinstance(entry.get("correct"), dict):
                return f"{where} needs n and correct"
            n = entry.get("n")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                return f"{where}.n must be an integer >= 1"
            if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= n for c in entry["correct"].values()):
                return f"{where}.correct values must be integers in 0..n"
    return None


def incomparability_reasons(baseline: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Why the current study (a baseline-shaped document) cannot be compared; [] if it can."""
    reasons = []
    old, new = baseline["comparability"], current["comparability"]
    old_tasks, new_tasks = set(old["tasks"]), set(new["tasks"])
    if old_tasks != new_tasks:
        reasons.append(f"different tasks: baseline {sorted(old_tasks)}, current {sorted(new_tasks)}")
    for task in sorted(old_tasks & new_tasks):
        for key in TASK_KEYS:
            if old["tasks"][task].get(key) != new["tasks"][task].get(key):
                reasons.append(
                    f"task {task}: {key} differs (baseline {old['tasks'][task].get(key)!r}, "
                    f"current {new['tasks'][task].get(key)!r})"
                )
    for key in DECODING_KEYS:
        if old["sampling"].get(key) != new["sampling"].get(key):
            reasons.append(
                f"decoding differs: {key} baseline {old['sampling'].get(key)!r}, "
                f"current {new['sampling'].get(key)!r}"
            )
    if old.get("verifier_version") != new.get("verifier_version"):
        reasons.append(
            f"verifier version differs: baseline {old.get('verifier_version')!r}, "
            f"current {new.get('verifier_version')!r}"
        )
    for label, tasks in sorted(baseline["checkpoints"].items()):
        if label not in current["checkpoints"]:
            reasons.append(f"checkpoint {label} is in the baseline but not in the current study")
            continue
        for task, entry in sorted(tasks.items()):
            now = current["checkpoints"][label].get(task)
            if now is None:
                reasons.append(f"{label} was not evaluated on {task} in the current study")
            elif set(now["correct"]) != set(entry["correct"]):
                reasons.append(f"{label} on {task}: the problem ids differ from the baseline's")
    return reasons


def compare(baseline: dict[str, Any], current: dict[str, Any], *, alpha: float) -> list[TaskComparison]:
    """Paired one-sided tests (current < baseline) for every baseline checkpoint x task."""
    pending = []
    for label, tasks in sorted(baseline["checkpoints"].items()):
        for task, entry in sorted(tasks.items()):
            now = current["checkpoints"][label][task]
            ids = sorted(entry["correct"])
            before = np.array([entry["correct"][p] for p in ids], dtype=float) / entry["n"]
            after = np.array([now["correct"][p] for p in ids], dtype=float) / now["n"]
            comparison = paired_compare(after, before, alternative="less", seed=0)
            pending.append((label, task, float(before.mean()), float(after.mean()), comparison))
    adjusted = holm_adjust([c.p_value for *_, c in pending]) if pending else []
    return [
        TaskComparison(label, task, b, a, c, p, p < alpha)
        for (label, task, b, a, c), p in zip(pending, adjusted)
    ]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def summary_markdown(
    results: list[TaskComparison], *, alpha: float, baseline_path: str, current_dir: str,
    reasons: list[str] | None = None, extra: list[str] | None = None,
) -> str:
    if reasons:
        lines = [
            "## kleval regression gate: ⚠️ not comparable",
            "",
            f"Baseline `{baseline_path}` and current study `{current_dir}` cannot be compared:",
            "",
            *[f"- {reason}" for reason in reasons],
            "",
            ("Rerun the study with the baseline's settings, or, if the change is intended, refresh the "
             f"baseline: `kleval regress --baseline {baseline_path} --current {current_dir} --update-baseline`."),
            "",
        ]
        return "\n".join(lines)
    regressions = [r for r in results if r.regressed]
    verdict = (f"❌ {len(regressions)} significant regression{'s' if len(regressions) != 1 else ''}"
               if regressions else "✅ no significant regression")
    lines = [
        f"## kleval regression gate: {verdict}",
        "",
        f"Baseline `{baseline_path}` vs current study `{current_dir}` (alpha {alpha:g}).",
        "",
        "| checkpoint | task | problems | baseline pass@1 | current pass@1 | Δ [95% CI] | p (Holm) | |",
        "|:---|:---|---:|---:|---:|---:|---:|:---|",
    ]
    for r in results:
        c = r.comparison
        status = "❌ regressed" if r.regressed else ("▲ better" if c.difference > 0 else "ok")
        lines.append(
            f"| {r.checkpoint} | {r.task} | {c.num_problems} | {_pct(r.baseline_rate)} | "
            f"{_pct(r.current_rate)} | {100 * c.difference:+.1f} [{100 * c.lo:+.1f}, {100 * c.hi:+.1f}] | "
            f"{r.adjusted_p:.3g} | {status} |"
        )
    lines += [
        "",
        ("pass@1 in %, mean per-problem success rate. One-sided paired sign-flip test over problems "
         f"(current worse than baseline), Holm-adjusted across the {len(results)} tests."),
        *(extra or []),
        "",
    ]
    return "\n".join(lines)


def run_gate(
    baseline_path: str | Path,
    current_dir: str | Path,
    *,
    alpha: float = 0.05,
    update_baseline: bool = False,
    summary_path: str | Path | None = None,
) -> tuple[int, str]:
    """Run the gate; returns (exit code, Markdown summary). Writes the baseline when asked."""
    study = Study(current_dir)
    current = make_baseline(study)
    if update_baseline:
        path = Path(baseline_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
        tests = sum(len(t) for t in current["checkpoints"].values())
        return EXIT_OK, f"Wrote baseline {path} from {current_dir} ({tests} checkpoint x task entries).\n"
    baseline = load_baseline(Path(baseline_path))
    reasons = incomparability_reasons(baseline, current)
    if reasons:
        code, results = EXIT_NOT_COMPARABLE, []
    else:
        results = compare(baseline, current, alpha=alpha)
        code = EXIT_REGRESSED if any(r.regressed for r in results) else EXIT_OK
    extra = [
        f"Not gated (not in the baseline): {label}."
        for label in sorted(set(current["checkpoints"]) - set(baseline["checkpoints"]))
    ]
    extra += _lost_problems(baseline, current, results, current_dir)
    summary = summary_markdown(results, alpha=alpha, baseline_path=str(baseline_path),
                               current_dir=str(current_dir), reasons=reasons, extra=extra)
    if summary_path is not None:
        Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
        Path(summary_path).write_text(summary, encoding="utf-8")
    return code, summary


def _lost_problems(baseline: dict, current: dict, results: list[TaskComparison], current_dir, limit: int = 10) -> list[str]:
    """For each regression, the problems solved less often than in the baseline (most lost first),
    linked into the current study's sample browser (`kleval report` writes it)."""
    from kleval.report.samples import problem_link

    lines = []
    for r in (r for r in results if r.regressed):
        before = baseline["checkpoints"][r.checkpoint][r.task]
        now = current["checkpoints"][r.checkpoint][r.task]
        lost = sorted((now["correct"][p] / now["n"] - c / before["n"], p) for p, c in before["correct"].items()
                      if now["correct"].get(p, 0) / now["n"] < c / before["n"])
        links = ", ".join(f"[{p}]({problem_link(current_dir, r.task, p, r.checkpoint)})" for _, p in lost[:limit])
        more = f" and {len(lost) - limit} more" if len(lost) > limit else ""
        lines.append(f"Problems {r.checkpoint} solves less often on {r.task}: {links}{more}.")
    return lines
