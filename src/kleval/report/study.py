"""Read a study directory (docs/study-layout.md) into plain data for reports and the CI gate.

Reading only, and only inside the study: nothing here writes into it or looks outside it.
Per-problem outcomes come from `scores/<label>/<task>.jsonl` (success counts per problem id,
problems sorted by id so the result never depends on the order batches were appended);
checkpoints and their training configuration (kleval.eval.checkpoints.Checkpoint, the one type)
from `checkpoints.json`, else from results.csv's columns; training curves from the copies of the
runs' `train_log.jsonl` that `kleval eval` keeps in `train_logs/`.

Like results.csv, only problems with all n samples graded count (n from study.json); the
number left out per checkpoint x task is kept in `Study.incomplete`.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from kleval.errors import DataError
from kleval.eval.checkpoints import Checkpoint
from kleval.eval.study import read_json, read_jsonl
from kleval.klconfig import RunSettings


@dataclass(frozen=True)
class ProblemOutcomes:
    """Per-problem sample and success counts for one checkpoint x task, problems sorted by id."""

    problem_ids: tuple[str, ...]
    num_samples: np.ndarray  # (num_problems,) int
    num_correct: np.ndarray  # (num_problems,) int

    def restrict(self, problem_ids: tuple[str, ...]) -> "ProblemOutcomes":
        index = {pid: i for i, pid in enumerate(self.problem_ids)}
        rows = [index[pid] for pid in problem_ids]
        return ProblemOutcomes(problem_ids, self.num_samples[rows], self.num_correct[rows])


def read_train_log(path: Path) -> list[dict[str, Any]]:
    """Rows of a train_log.jsonl; a torn last line (a run still writing, or killed) is skipped."""
    return read_jsonl(path, skip_torn=True)


def _optional_int(value: Any) -> int | None:
    if value is None or str(value).strip() in ("", "None", "null"):
        return None
    return int(float(value))


class Study:
    """A study directory, loaded lazily. `root` must hold results.csv and checkpoints.json."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        if not self.root.is_dir():
            raise DataError(f"study directory {self.root} does not exist")
        self._outcome_cache: dict[tuple[str, str], ProblemOutcomes] = {}
        self.incomplete: dict[tuple[str, str], int] = {}  # problems left out: fewer than n graded

    @cached_property
    def header(self) -> dict[str, Any]:
        """study.json: sampling, tasks with hashes, verifier version (empty dict if absent)."""
        path = self.root / "study.json"
        return read_json(path) if path.exists() else {}

    @cached_property
    def results(self) -> list[dict[str, str]]:
        path = self.root / "results.csv"
        if not path.exists():
            raise DataError(f"{path} is missing; run `kleval eval --out {self.root}` first")
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        if not rows:
            raise DataError(f"{path} holds no rows")
        for required in ("checkpoint", "task"):
            if required not in rows[0]:
                raise DataError(f"{path}: column {required!r} is missing")
        return rows

    @cached_property
    def task_splits(self) -> dict[str, str]:
        """Task name -> "id" or "ood", in study order (study.json first, then results.csv)."""
        splits: dict[str, str] = {}
        for name, info in (self.header.get("tasks") or {}).items():
            splits[name] = str((info or {}).get("split") or "id")
        for row in self.results:
            splits.setdefault(row["task"], row.get("split") or "id")
        return splits

    @cached_property
    def checkpoints(self) -> dict[str, Checkpoint]:
        """Label -> Checkpoint, in the order of checkpoints.json (then results.csv)."""
        entries = {}
        path = self.root / "checkpoints.json"
        if path.exists():
            raw = read_json(path)
            if isinstance(raw, dict):
                raw = raw.get("checkpoints", [])
            for entry in raw:
                entries[str(entry["label"])] = entry
        out = {label: Checkpoint.from_dict(entry) for label, entry in entries.items()}
        for row in self.results:
            label = row["checkpoint"]
            if label not in out:
                settings = RunSettings.from_row(row)
                out[label] = Checkpoint(path=Path(""), label=label, format=row.get("format") or "hf",
                                        step=_optional_int(row.get("step")), run=row.get("run") or label,
                                        tokenizer_path="", settings=settings)
        return out

    @property
    def evaluated(self) -> set[tuple[str, str]]:
        """(checkpoint label, task) pairs that results.csv reports."""
        return {(row["checkpoint"], row["task"]) for row in self.results}

    def outcomes(self, label: str, task: str) -> ProblemOutcomes:
        """Per-problem counts from scores/<label>/<task>.jsonl (cached)."""
        key = (label, task)
        if key not in self._outcome_cache:
            self._outcome_cache[key] = self._load_outcomes(label, task)
        return self._outcome_cache[key]

    def _load_outcomes(self, label: str, task: str) -> ProblemOutcomes:
        path = self.root / "scores" / label / f"{task}.jsonl"
        if not path.exists():
            raise DataError(
                f"{path} is missing: per-problem scores are needed for CIs and paired tests; "
                f"rerun `kleval eval` (or `kleval rescore`) into {self.root}"
            )

        seen: dict[tuple[str, int], bool] = {}
        for row in read_jsonl(path):
            key = (str(row["problem_id"]), int(row["sample_index"]))
            seen.setdefault(key, bool(row["correct"]))  # a duplicated row counts once
        samples: dict[str, list[int]] = {}
        for (pid, _), correct in seen.items():
            samples.setdefault(pid, [0, 0])
            samples[pid][0] += 1
            samples[pid][1] += int(correct)
        n = (self.header.get("sampling") or {}).get("n")
        if isinstance(n, int):
            partial = [pid for pid, (m, _) in samples.items() if m < n]
            if partial:
                self.incomplete[(label, task)] = len(partial)
            samples = {pid: v for pid, v in samples.items() if v[0] >= n}
        ids = tuple(sorted(samples))
        counts = np.array([samples[pid] for pid in ids], dtype=np.int64).reshape(-1, 2)
        return ProblemOutcomes(ids, counts[:, 0], counts[:, 1])

    def train_log(self, checkpoint: Checkpoint) -> list[dict[str, Any]]:
        """Rows of the copy of the checkpoint's run train_log.jsonl in the study, or []."""
        if not checkpoint.train_log or Path(checkpoint.train_log).is_absolute():
            return []
        path = self.root / checkpoint.train_log
        return read_train_log(path) if path.is_file() else []
