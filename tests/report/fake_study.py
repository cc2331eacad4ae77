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

from kleval.eval.checkpoints import Checkpoint
from kleval.klconfig import ROW_COLUMNS, KLConfig, RunSettings, preset as preset_config
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
    trainer: str = "kleval"
    kl: KLConfig | None = None  # overrides the preset's KLConfig
    loss_aggregation: str = "seq-mean-token-sum"
    algorithm: str = "rloo"

    @property
    def label(self) -> str:
        return f"{self.run}__step{self.step}"

    @property
    def settings(self) -> RunSettings | None:
        if not self.preset and self.kl is None:
            return None
        kl = self.kl if self.kl is not None else preset_config(self.preset, beta=self.beta)
        return RunSettings(self.trainer, kl, self.algorithm, self.loss_aggregation, 4)


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
        path, train_log = "", None
        if runs_dir is not None:
            path = str(runs_dir / ckpt.run / f"global_step_{ckpt.step}")
            if train_steps and ckpt.preset:  # kleval eval keeps a copy of each run's log in the study
                train_log = f"train_logs/{ckpt.run}.jsonl"
                if not (root / train_log).exists():
                    _write_train_log(root / train_log, train_steps, ckpt, rng)
        settings = ckpt.settings
        entries.append(Checkpoint(path=Path(path), label=ckpt.label, format="kleval" if settings else "hf",
                                  step=ckpt.step, run=ckpt.run, tokenizer_path="", settings=settings,
                                  train_config=None, train_log=train_log).to_dict())
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
            columns = settings.to_row() if settings else dict.fromkeys(ROW_COLUMNS)
            results.append({
                "checkpoint": ckpt.label, "run": ckpt.run, "step": ckpt.step, "format": "kleval",
                **{k: "" if v is None else v for k, v in columns.items()}, "task": task, "split": split,
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


def _write_train_log(path: Path, steps: int, ckpt: FakeCheckpoint, rng) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    drift = {"none": 0.5, "k1-loss": 0.6, "k3-reward": 2.0}.get(ckpt.preset, 0.08)
    with open(path, "w") as handle:
        for step in range(1, steps + 1):
            t = step / steps
            handle.write(json.dumps({
                "step": step, "reward": 0.5 + 0.2 * t + rng.normal(0, 0.05),
                "kl_exact": drift * t + abs(rng.normal(0, 0.01)), "entropy": 1.0 - 0.3 * t,
                "response_length": 4 + rng.normal(0, 0.2), "time": 0.1 * step,
            }) + "\n")
