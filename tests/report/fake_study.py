"""Write study directories (docs/study-layout.md) from chosen per-sample outcomes, for tests.

The eval runner is not needed: tests decide which samples are correct and get a study whose
results.csv, scores, checkpoints.json, study.json and (optionally) training logs are consistent.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kleval.metrics import summarize

SAMPLING = {"n": 4, "temperature": 1.0, "top_p": 1.0, "max_tokens": 64, "seed": 0, "stop": []}


@dataclass
class FakeCheckpoint:
    run: str
    step: int
    preset: str = ""
    estimator: str = ""
    placement: str = ""
    beta: float | None = None
    accuracy: dict[str, float] = field(default_factory=dict)  # task -> success probability

    @property
    def label(self) -> str:
        return f"{self.run}__step{self.step}"


def kl_checkpoint(preset: str, seed: int, step: int, accuracy: dict[str, float], beta: float = 0.1):
    estimator, placement = preset.split("-") if "-" in preset else ("", "")
    beta = None if preset == "none" else beta
    return FakeCheckpoint(f"{preset}_s{seed}", step, preset, estimator, placement, beta, accuracy)


def write_study(
    root: Path,
    checkpoints: list[FakeCheckpoint],
    tasks: dict[str, str],
    *,
    num_problems: int = 30,
    sampling: dict | None = None,
    verifier_version: str = "1",
    seed: int = 0,
    runs_dir: Path | None = None,
    train_steps: int = 0,
    outcomes: dict[tuple[str, str], np.ndarray] | None = None,
) -> Path:
    """Write a study; outcomes[(label, task)] (bool (P, n)) overrides random draws."""
    sampling = dict(SAMPLING, **(sampling or {}))
    n = sampling["n"]
    rng = np.random.default_rng(seed)
    root.mkdir(parents=True, exist_ok=True)
    # Problem difficulty shared by all checkpoints so that pairing across configurations matters.
    difficulty = {t: rng.normal(0, 1.5, num_problems) for t in tasks}
    results, entries = [], []
    for ckpt in checkpoints:
        path = ""
        if runs_dir is not None:
            run_dir = runs_dir / ckpt.run
            path = str(run_dir / f"global_step_{ckpt.step}")
            if train_steps and ckpt.preset and not (run_dir / "train_log.jsonl").exists():
                _write_train_log(run_dir, train_steps, ckpt, rng)
        entries.append({
            "label": ckpt.label, "path": path, "format": "kleval", "step": ckpt.step, "run": ckpt.run,
            "kl": {"estimator": ckpt.estimator, "placement": ckpt.placement, "beta": ckpt.beta}
            if ckpt.preset else None,
            "train_config": {"preset": ckpt.preset} if ckpt.preset else None,
        })
        for task, split in tasks.items():
            if outcomes and (ckpt.label, task) in outcomes:
                correct = np.asarray(outcomes[(ckpt.label, task)], dtype=bool)
            else:
                p = ckpt.accuracy.get(task, 0.5)
                logit = np.log(p / (1 - p)) - difficulty[task]
                prob = 1 / (1 + np.exp(-logit))
                correct = rng.random((num_problems, n)) < prob[:, None]
            answers = [[("gold" if c else f"wrong{j % 2}") for j, c in enumerate(r)] for r in correct]
            score_dir = root / "scores" / ckpt.label
            score_dir.mkdir(parents=True, exist_ok=True)
            with open(score_dir / f"{task}.jsonl", "w") as handle:
                for i, row in enumerate(correct):
                    for j, ok in enumerate(row):
                        handle.write(json.dumps({
                            "problem_id": f"{task}-{i:03d}", "sample_index": j, "correct": bool(ok),
                            "status": "correct" if ok else "incorrect", "extracted": answers[i][j],
                            "gold_canonical": "gold", "pred_canonical": answers[i][j], "rule": "exact",
                            "explanation": "",
                        }) + "\n")
            ks = [k for k in (1, 2, 4, 8, 16) if k <= n]
            summary = summarize(correct, answers, ks)
            results.append({
                "checkpoint": ckpt.label, "run": ckpt.run, "step": ckpt.step, "format": "kleval",
                "preset": ckpt.preset, "kl_estimator": ckpt.estimator, "kl_placement": ckpt.placement,
                "kl_beta": "" if ckpt.beta is None else ckpt.beta, "task": task, "split": split,
                **summary, "no_answer_rate": 0.0, "parse_error_rate": 0.0, "timeout_rate": 0.0,
                "truncation_rate": 0.0, "mean_tokens": 10.0,
            })
    with open(root / "results.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(results[0]))
        writer.writeheader()
        writer.writerows(results)
    (root / "checkpoints.json").write_text(json.dumps(entries, indent=1))
    header = {
        "kleval_version": "0.1.0", "created": "2025-01-01T00:00:00", "sampling": sampling,
        "ks": [k for k in (1, 2, 4) if k <= n], "backend": "hf", "backend_options": {},
        "tasks": {
            t: {"spec_hash": f"spec-{t}", "prompt_hash": f"prompt-{t}", "data_file": f"{t}.jsonl",
                "data_hash": f"data-{t}", "num_problems": num_problems, "limit": num_problems,
                "split": s, "kind": "math"}
            for t, s in tasks.items()
        },
        "verifier_version": verifier_version, "packages": {}, "git_revision": "abc",
    }
    (root / "study.json").write_text(json.dumps(header, indent=1))
    return root


def _write_train_log(run_dir: Path, steps: int, ckpt: FakeCheckpoint, rng) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    drift = {"none": 0.5, "k1-loss": 0.6, "k3-reward": 2.0}.get(ckpt.preset, 0.08)
    with open(run_dir / "train_log.jsonl", "w") as handle:
        for step in range(1, steps + 1):
            t = step / steps
            handle.write(json.dumps({
                "step": step, "reward": 0.5 + 0.2 * t + rng.normal(0, 0.05),
                "kl_exact": drift * t + abs(rng.normal(0, 0.01)), "entropy": 1.0 - 0.3 * t,
                "response_length": 4 + rng.normal(0, 0.2), "time": 0.1 * step,
            }) + "\n")
