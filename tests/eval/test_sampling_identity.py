"""Samples depend on (seed, checkpoint, task, problem, sample index) only: not on the chunk size,
the batch a prompt lands in, or the point an interrupted run was resumed from."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleval.cli import main

TASKS = "gsm8k,mmlu_college_physics"


def _eval(ckpt, out, data_dir, chunk_size: int, *extra: str) -> int:
    return main(["eval", "--checkpoints", str(ckpt), "--tasks", TASKS, "--limit", "5", "--n", "3", "--k", "1",
                 "--max-tokens", "10", "--out", str(out), "--data-dir", str(data_dir),
                 "--chunk-size", str(chunk_size), "--no-progress", *extra])


def _records(study: Path, folder: str = "samples") -> dict[tuple, str]:
    """Every sample (or verdict) record, keyed by (task, problem, sample index), as canonical JSON."""
    out = {}
    for path in sorted((study / folder).rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out[(path.stem, row["problem_id"], row["sample_index"])] = json.dumps(row, sort_keys=True)
    return out


@pytest.fixture(scope="module")
def reference(tiny_checkpoint, data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("chunks") / "one_chunk"
    assert _eval(tiny_checkpoint, out, data_dir, 64) == 0
    return out


def test_chunk_size_changes_no_sample(reference, tiny_checkpoint, data_dir, tmp_path):
    out = tmp_path / "small_chunks"
    assert _eval(tiny_checkpoint, out, data_dir, 2) == 0
    expected = _records(reference)
    assert len(expected) == 2 * 5 * 3
    assert _records(out) == expected
    assert _records(out, "scores") == _records(reference, "scores")


def test_a_different_seed_does_change_samples(reference, tiny_checkpoint, data_dir, tmp_path):
    out = tmp_path / "other_seed"
    assert _eval(tiny_checkpoint, out, data_dir, 64, "--seed", "1") == 0
    ours, theirs = _records(out), _records(reference)
    assert ours.keys() == theirs.keys() and ours != theirs


def test_resumed_run_equals_uninterrupted_run(reference, tiny_checkpoint, data_dir, tmp_path):
    """Cut the logs as a kill would (a torn last line included), resume with another chunk size."""
    out = tmp_path / "resumed"
    assert _eval(tiny_checkpoint, out, data_dir, 3) == 0
    for folder in ("samples", "scores"):
        for path in (out / folder).rglob("*.jsonl"):
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            keep = len(lines) // 2 if folder == "samples" else len(lines) // 3
            path.write_text("".join(lines[:keep]) + lines[keep][: len(lines[keep]) // 2], encoding="utf-8")
    (out / "results.csv").unlink()
    assert _eval(tiny_checkpoint, out, data_dir, 4) == 0
    assert _records(out) == _records(reference)
    assert _records(out, "scores") == _records(reference, "scores")
