"""End to end: a real tiny checkpoint through `kleval eval` on real benchmark data."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from kleval.cli import main

TASKS = "math500,gsm8k,mmlu_college_physics"


def _eval(ckpt, out, data_dir, *extra):
    return main(["eval", "--checkpoints", str(ckpt), "--tasks", TASKS, "--limit", "4", "--n", "2", "--k", "1,2",
                 "--max-tokens", "12", "--out", str(out), "--data-dir", str(data_dir), "--chunk-size", "3",
                 "--no-progress", *extra])


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _sample_keys(study: Path) -> list[tuple]:
    keys = []
    for f in sorted((study / "samples").rglob("*.jsonl")):
        keys += [(f.stem, r["problem_id"], r["sample_index"], r["completion"]) for r in _rows(f)]
    return sorted(keys)


@pytest.fixture(scope="module")
def study(tiny_checkpoint, data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "s"
    assert _eval(tiny_checkpoint, out, data_dir) == 0
    return out


def test_eval_writes_every_file_with_all_samples(study):
    for name in ("study.json", "checkpoints.json", "results.csv", "table.md"):
        assert (study / name).is_file(), name
    header = json.loads((study / "study.json").read_text())
    assert header["sampling"]["n"] == 2 and header["verifier_version"] and header["packages"]["torch"]
    assert set(header["tasks"]) == set(TASKS.split(","))
    for info in header["tasks"].values():
        assert len(info["data_hash"]) >= 16 and info["prompt_hash"]
    [label] = [c["label"] for c in json.loads((study / "checkpoints.json").read_text())]
    for task in TASKS.split(","):
        samples = _rows(study / "samples" / label / f"{task}.jsonl")
        scores = _rows(study / "scores" / label / f"{task}.jsonl")
        assert len(samples) == len(scores) == 4 * 2
        assert {(r["problem_id"], r["sample_index"]) for r in samples} == {
            (r["problem_id"], r["sample_index"]) for r in scores}
        for r in samples:
            assert r["finish_reason"] in ("stop", "length") and 0 < r["num_tokens"] <= 12
        for r in scores:
            assert r["status"] in ("correct", "incorrect", "no_answer", "parse_error", "timeout", "gold_error")
    results = pd.read_csv(study / "results.csv")
    assert len(results) == 3
    for col in ("pass@1", "pass@2", "mean@n", "maj@2", "pass@1_lo", "pass@1_hi", "truncation_rate"):
        assert results[col].between(0, 1).all(), col
    assert (results["num_problems"] == 4).all()


def test_rerun_generates_nothing_and_gives_identical_results(study, tiny_checkpoint, data_dir, monkeypatch):
    import kleval.backends as backends

    before = (study / "results.csv").read_text(), _sample_keys(study)

    def refuse(*a, **k):
        raise AssertionError("a finished study must not start a backend")

    monkeypatch.setattr(backends, "make_backend", refuse)
    assert _eval(tiny_checkpoint, study, data_dir) == 0
    assert ((study / "results.csv").read_text(), _sample_keys(study)) == before


def test_different_settings_in_same_study_are_refused(study, tiny_checkpoint, data_dir, capsys):
    before = _sample_keys(study)
    assert _eval(tiny_checkpoint, study, data_dir, "--temperature", "0.5") == 2
    assert "different settings" in capsys.readouterr().err
    assert _sample_keys(study) == before


@pytest.mark.parametrize("args, message", [
    (["--k", "1,4"], "k <= n"),
    (["--tasks", "nonexistent_task"], "nonexistent_task"),
])
def test_bad_input_is_one_clear_line(tiny_checkpoint, data_dir, tmp_path, capsys, args, message):
    base = ["eval", "--checkpoints", str(tiny_checkpoint), "--tasks", "gsm8k", "--n", "2", "--out",
            str(tmp_path / "s"), "--data-dir", str(data_dir), "--no-progress"]
    assert main(base + args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_missing_checkpoint_is_a_clear_error(tmp_path, data_dir, capsys):
    assert main(["eval", "--checkpoints", str(tmp_path / "nope"), "--tasks", "gsm8k", "--out", str(tmp_path / "s"),
                 "--data-dir", str(data_dir), "--no-progress"]) == 2
    assert "nope" in capsys.readouterr().err


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_matches_clean_run(study, tiny_checkpoint, data_dir, tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "kleval.cli", "eval", "--checkpoints", str(tiny_checkpoint), "--tasks", TASKS,
           "--limit", "4", "--n", "2", "--k", "1,2", "--max-tokens", "12", "--out", str(out),
           "--data-dir", str(data_dir), "--chunk-size", "3", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    # Kill as soon as the first chunk's samples are on disk, i.e. in the middle of the run.
    while time.time() < deadline and not list((out / "samples").rglob("*.jsonl")):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    keys = _sample_keys(out)
    assert len(keys) == len(set(k[:3] for k in keys)) == 3 * 4 * 2  # no duplicates, none missing
    assert keys == _sample_keys(study)  # same samples as the uninterrupted run
    clean = pd.read_csv(study / "results.csv").drop(columns=["checkpoint", "run"], errors="ignore")
    resumed = pd.read_csv(out / "results.csv").drop(columns=["checkpoint", "run"], errors="ignore")
    pd.testing.assert_frame_equal(clean, resumed)
