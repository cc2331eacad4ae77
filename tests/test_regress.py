"""Tests for the CI gate `kleval regress`: exit 0 unchanged, 1 regressed, 2 not comparable."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kleval.cli import main
from kleval.regress import make_baseline
from kleval.report.study import Study
from report.fake_study import FakeCheckpoint, write_study

TASKS = {"add": "id", "sub": "ood"}


def _study(path, accuracy=0.6, seed=0, **kwargs):
    ckpts = [FakeCheckpoint("tiny", 0, accuracy={t: accuracy for t in TASKS})]
    return write_study(path, ckpts, TASKS, num_problems=40, seed=seed, **kwargs)


@pytest.fixture()
def baseline(tmp_path):
    study = _study(tmp_path / "base_study")
    path = tmp_path / "baselines" / "ci.json"
    assert main(["regress", "--baseline", str(path), "--current", str(study), "--update-baseline"]) == 0
    return path


def _gate(baseline, study, tmp_path, *extra):
    summary = tmp_path / "summary.md"
    code = main(["regress", "--baseline", str(baseline), "--current", str(study),
                 "--summary", str(summary), *extra])
    return code, summary.read_text()


def test_baseline_file_holds_counts_and_comparability_key(baseline, tmp_path):
    doc = json.loads(baseline.read_text())
    assert doc["format"] == "kleval-baseline/1"
    key = doc["comparability"]
    assert key["sampling"]["n"] == 4 and key["verifier_version"] == "1"
    assert key["tasks"]["add"]["data_hash"] == "data-add"
    entry = doc["checkpoints"]["tiny__step0"]["add"]
    assert entry["n"] == 4 and len(entry["correct"]) == 40
    assert all(0 <= c <= 4 for c in entry["correct"].values())
    # Deterministic: rebuilding from the same study gives the same document.
    assert make_baseline(Study(tmp_path / "base_study")) == doc


def test_unchanged_study_passes(baseline, tmp_path, capsys):
    code, summary = _gate(baseline, tmp_path / "base_study", tmp_path)
    assert code == 0
    assert "no significant regression" in summary and "| tiny__step0 | add |" in summary
    assert "no significant regression" in capsys.readouterr().out


def test_fresh_draw_at_same_accuracy_passes(baseline, tmp_path):
    code, _ = _gate(baseline, _study(tmp_path / "redraw", seed=1), tmp_path)
    assert code == 0


def test_degraded_study_fails_with_summary(baseline, tmp_path):
    code, summary = _gate(baseline, _study(tmp_path / "worse", accuracy=0.2), tmp_path)
    assert code == 1
    assert "significant regression" in summary and summary.count("❌ regressed") == 2


def test_one_degraded_task_is_named(baseline, tmp_path):
    # Overwrite one task's scores with all-wrong samples; everything else stays as baseline.
    outcomes = {("tiny__step0", "sub"): np.zeros((40, 4), dtype=bool)}
    study = write_study(tmp_path / "half", [FakeCheckpoint("tiny", 0, accuracy={t: 0.6 for t in TASKS})],
                        TASKS, num_problems=40, outcomes=outcomes)
    code, summary = _gate(baseline, study, tmp_path)
    assert code == 1
    regressed = [line for line in summary.splitlines() if "❌ regressed" in line]
    assert len(regressed) == 1 and "| sub |" in regressed[0]


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"sampling": {"temperature": 0.7}}, "temperature"),
        ({"sampling": {"n": 8}}, "decoding differs: n"),
        ({"verifier_version": "2"}, "verifier version differs"),
    ],
)
def test_incomparable_settings_exit_2(baseline, tmp_path, change, reason):
    code, summary = _gate(baseline, _study(tmp_path / "other", **change), tmp_path)
    assert code == 2 and "not comparable" in summary and reason in summary


def test_different_tasks_exit_2(baseline, tmp_path):
    ckpts = [FakeCheckpoint("tiny", 0, accuracy={"add": 0.6})]
    study = write_study(tmp_path / "fewer", ckpts, {"add": "id"}, num_problems=40)
    code, summary = _gate(baseline, study, tmp_path)
    assert code == 2 and "different tasks" in summary


def test_missing_baseline_is_a_clear_error(tmp_path, capsys):
    study = _study(tmp_path / "s")
    assert main(["regress", "--baseline", str(tmp_path / "none.json"), "--current", str(study)]) == 2
    assert "--update-baseline" in capsys.readouterr().err


def test_incomplete_current_study_is_refused(baseline, tmp_path, capsys):
    study = _study(tmp_path / "partial")
    scores = study / "scores" / "tiny__step0" / "add.jsonl"
    lines = scores.read_text().splitlines(keepends=True)
    scores.write_text("".join(lines[:-1]))  # the last sample of one problem is not graded yet
    assert main(["regress", "--baseline", str(baseline), "--current", str(study)]) == 2
    assert "fewer than n=4 graded samples" in capsys.readouterr().err
