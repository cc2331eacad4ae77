"""kill -9 inside `kleval eval` (generation, grading, writing), `rescore`, `report` and `train`
at random moments; the same command then finishes the job, and the result equals an
uninterrupted run, with no lock left held and no grading worker left behind."""
from __future__ import annotations

import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from faultkit import child_env, kleval_argv, one_line_error
from killing import (files_fingerprint, kill_at_progress, kill_at_random, lock_is_free, run_to_end, study_fingerprint,
                     study_rows, train_fingerprint, train_units)
from stub_openai import StubOpenAI

pytestmark = pytest.mark.faults
KILLS = {"eval": 8, "rescore": 5, "report": 4, "train": 3}  # 20 in all (the slow variants); fast: 2 each
FAST_AND_FULL = pytest.mark.parametrize("kills", [2, pytest.param("full", marks=pytest.mark.slow)])
FULL_ONLY = pytest.mark.parametrize("kills", [pytest.param("full", marks=pytest.mark.slow)])


def eval_argv(model: Path, out: Path, data_dir: Path) -> list[str]:
    return ["eval", "--backend", "openai", "--checkpoints", str(model), "--tokenizer", "tok", "--tasks", "gsm8k,math500",
            "--limit", "8", "--n", "4", "--k", "1,4", "--chunk-size", "2", "--out", str(out), "--data-dir", str(data_dir),
            "--verify-workers", "1", "--no-progress"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    model = root / "run" / "served"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"")
    with StubOpenAI(length=6000, long_answers=True, delay=0.1) as server:
        yield model, {"OPENAI_BASE_URL": server.base_url}


@pytest.fixture(scope="module")
def reference(served, data_dir, tmp_path_factory):
    model, env = served
    out = tmp_path_factory.mktemp("reference") / "study"
    run_to_end(eval_argv(model, out, data_dir), env=env)
    return out


@FAST_AND_FULL
def test_eval_killed_at_random_moments_resumes_to_the_same_study(served, reference, data_dir, tmp_path, kills):
    kills = KILLS['eval'] if kills == "full" else kills
    model, env = served
    clean = reference
    # Each run is killed right after it has logged a random number of new rows (1 to its share of the
    # rows still missing), not at a moment in seconds: kill moments drawn over a clean run's duration
    # missed whenever the killed runs got a quieter CPU than the timed one (seen under pytest-xdist:
    # 3 of 8 landed). Counted in rows, every kill finds the run with rows still to write (generating
    # the next chunk, grading the last one, or both), at whatever speed the machine runs it.
    out = tmp_path / "study"
    report = kill_at_progress(eval_argv(model, out, data_dir), kills=kills, progress=lambda: study_rows(out),
                              total=study_rows(clean), rng=random.Random(14), env=env)
    assert report.kills == kills, report  # every kill landed mid-run
    assert report.lingering_workers == 0
    run_to_end(eval_argv(model, out, data_dir), env=env)
    assert study_fingerprint(out) == study_fingerprint(clean)
    assert lock_is_free(out)


@FULL_ONLY
def test_rescore_killed_at_random_moments_gives_the_same_scores(reference, tmp_path, kills):
    kills = KILLS['rescore'] if kills == "full" else kills
    clean = reference
    rescored = tmp_path / "rescored"
    shutil.copytree(clean, rescored)
    started = time.monotonic()
    run_to_end(["rescore", str(rescored), "--workers", "1"])
    seconds = time.monotonic() - started
    study = tmp_path / "study"
    shutil.copytree(clean, study)
    report = kill_at_random(["rescore", str(study), "--workers", "1"], kills=kills, window=(0.3, seconds),
                            rng=random.Random(15))
    assert report.lingering_workers == 0
    run_to_end(["rescore", str(study), "--workers", "1"])
    assert study_fingerprint(study) == study_fingerprint(rescored) == study_fingerprint(clean)
    assert lock_is_free(study)


@FULL_ONLY
def test_report_killed_at_random_moments_leaves_whole_files(reference, tmp_path, kills):
    kills = KILLS['report'] if kills == "full" else kills
    clean = reference
    study = tmp_path / "study"
    shutil.copytree(clean, study)
    argv = ["report", str(study), "--resamples", "200"]
    started = time.monotonic()
    run_to_end(argv)
    seconds = time.monotonic() - started
    expected = files_fingerprint(study / "report", ("*.md", "*.tex", "*.html", "*.png"))
    shutil.rmtree(study / "report")
    kill_at_random(argv, kills=kills, window=(0.5, seconds), rng=random.Random(16))
    for page in (study / "report").glob("index.html"):  # whatever a kill left is a whole file
        assert page.read_text().rstrip().endswith("</html>")
    run_to_end(argv)
    assert files_fingerprint(study / "report", ("*.md", "*.tex", "*.html", "*.png")) == expected


def test_two_evals_on_one_study_the_second_is_refused(served, data_dir, tmp_path):
    model, env = served
    out = tmp_path / "study"
    first = subprocess.Popen(kleval_argv(*eval_argv(model, out, data_dir)), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=child_env(**env))
    try:
        deadline = time.monotonic() + 60
        while not (out / "study.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = subprocess.run(kleval_argv(*eval_argv(model, out, data_dir)), capture_output=True, text=True,
                                timeout=120, env=child_env(**env))
        line = one_line_error(second)
        assert "is in use" in line and "pid" in line
    finally:
        first.kill()
        first.wait()


@pytest.mark.slow
def test_train_killed_at_random_moments_resumes_to_the_same_weights(tmp_path):
    argv = ["train", "--tiny", "--steps", "4", "--save-every", "1", "--prompts-per-step", "2",
            "--samples-per-prompt", "2", "--max-new-tokens", "8", "--no-progress"]
    clean = tmp_path / "clean"
    run_to_end([*argv, "--out", str(clean)])
    run = tmp_path / "killed"
    # Killed after a random number of new log rows or step directories, not at a moment in seconds: a
    # run is mostly start-up and exit (measured on a quiet machine: 7.1 s before step 1, 0.2 s for the
    # four steps, 1.1 s after the last), so moments in the second half of a clean run's duration
    # landed before the first step or after the last save nearly every time, or missed.
    report = kill_at_progress([*argv, "--out", str(run)], kills=KILLS["train"], progress=lambda: train_units(run),
                              total=train_units(clean), rng=random.Random(17))
    assert report.kills == KILLS["train"], report  # every kill landed mid-run
    run_to_end([*argv, "--out", str(run)])
    assert train_fingerprint(run) == train_fingerprint(clean)
    assert lock_is_free(run)
