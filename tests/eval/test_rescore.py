"""rescore_study rewrites scores from samples; audit lists Math-Verify disagreements."""
from __future__ import annotations

import json

from kleval.cli import main
from kleval.verify import VERIFIER_VERSION
from kleval.eval.rescore import audit_study, rescore_study


def _study(tmp_path):
    study = tmp_path / "study"
    (study / "samples" / "ckpt").mkdir(parents=True)
    (study / "study.json").write_text(json.dumps({"verifier_version": "0.0.0",
                                                  "tasks": {"unknown_task": {"policy": "default"}}}))
    samples = [
        {"problem_id": "p1", "sample_index": 0, "completion": "\\boxed{0.5}", "gold": "\\frac{1}{2}", "kind": "math"},
        {"problem_id": "p1", "sample_index": 1, "completion": "\\boxed{3}", "gold": "\\frac{1}{2}", "kind": "math"},
        {"problem_id": "p2", "sample_index": 0, "completion": "so \\boxed{1 + \\sqrt{5}}, done",
         "gold": "1+\\sqrt5", "kind": "math"},
    ]
    (study / "samples" / "ckpt" / "unknown_task.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return study


def test_rescore_writes_scores_and_version(tmp_path):
    study = _study(tmp_path)
    assert rescore_study(study, workers=1) == 3
    scores = [json.loads(l) for l in (study / "scores" / "ckpt" / "unknown_task.jsonl").read_text().splitlines()]
    assert [s["correct"] for s in scores] == [True, False, True]
    assert scores[0]["problem_id"] == "p1" and scores[1]["sample_index"] == 1
    assert json.loads((study / "study.json").read_text())["verifier_version"] == VERIFIER_VERSION


def test_audit_lists_only_disagreements(tmp_path, capsys):
    study = _study(tmp_path)
    rescore_study(study, workers=1)
    rows = audit_study(study)
    assert all(r["kleval"] != r["math_verify"] for r in rows)
    assert main(["audit", str(study), "--against", "math-verify"]) == 0
    assert f"{len(rows)} disagreements" in capsys.readouterr().out


def test_rescore_uses_the_recorded_policy_and_never_guesses(tmp_path):
    import pytest

    from kleval.errors import DataError

    study = _study(tmp_path)
    header = json.loads((study / "study.json").read_text())
    header["tasks"]["unknown_task"]["policy"] = "exact"  # the whole completion must be the answer
    (study / "study.json").write_text(json.dumps(header))
    rescore_study(study, workers=1)
    scores = [json.loads(l) for l in (study / "scores" / "ckpt" / "unknown_task.jsonl").read_text().splitlines()]
    assert [s["correct"] for s in scores] == [False, False, False]
    del header["tasks"]["unknown_task"]
    (study / "study.json").write_text(json.dumps(header))
    with pytest.raises(DataError, match="no verification policy for task 'unknown_task'"):
        rescore_study(study, workers=1)


def test_rescore_of_a_directory_without_samples_fails_before_starting_a_pool(tmp_path, monkeypatch):
    import pytest

    from kleval.errors import DataError
    from kleval.verify import pool as pool_module

    study = tmp_path / "not_a_study"
    study.mkdir()
    (study / "study.json").write_text("{}")

    def no_pool(*args, **kwargs):
        raise AssertionError("a verifier pool was started for a directory without samples")

    monkeypatch.setattr(pool_module, "VerifierPool", no_pool)
    with pytest.raises(DataError, match="samples not found"):
        rescore_study(study, workers=1)
