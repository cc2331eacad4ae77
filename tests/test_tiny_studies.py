"""The CPU studies' shared steps: a committed copy graded by an earlier verifier is started afresh."""
from __future__ import annotations

import json

from kleval.tiny_studies import retire_stale_study
from kleval.verify import VERIFIER_VERSION


def _study(tmp_path, version: str):
    study = tmp_path / "study"
    (study / "samples" / "base").mkdir(parents=True)
    (study / "samples" / "base" / "arith_add.jsonl").write_text("{}\n")
    (study / "study.json").write_text(json.dumps({"verifier_version": version}))
    return study


def test_a_study_graded_by_another_verifier_is_removed(tmp_path, capsys):
    study = _study(tmp_path, "0.0.1")
    assert retire_stale_study(study) is True
    assert not study.exists()
    assert f"graded by verifier 0.0.1; this is {VERIFIER_VERSION}" in capsys.readouterr().out


def test_a_study_of_this_verifier_is_kept_for_resuming(tmp_path):
    study = _study(tmp_path, VERIFIER_VERSION)
    assert retire_stale_study(study) is False
    assert (study / "samples" / "base" / "arith_add.jsonl").exists()
    assert retire_stale_study(tmp_path / "absent") is False


def test_the_demo_evaluates_into_a_committed_copy_of_an_older_verifier(tmp_path):
    """End to end on the real runner: the stale header would make evaluate() refuse to add runs."""
    from kleval.eval.checkpoints import discover
    from kleval.eval.run import EvalSpec, evaluate
    from kleval.train.tiny import COMMITTED_BASE
    from kleval.types import SamplingParams

    study = _study(tmp_path, "0.0.1")
    spec = EvalSpec(tasks=("arith_add",), sampling=SamplingParams(n=1, temperature=1.0, top_p=1.0, max_tokens=8,
                                                                  seed=0), ks=(1,), limit=2)
    retire_stale_study(study)
    evaluate(discover([str(COMMITTED_BASE)]), spec, study, progress=False)
    assert json.loads((study / "study.json").read_text())["verifier_version"] == VERIFIER_VERSION


def test_a_merged_header_without_volatile_fields_still_gets_its_data_path_shortened(tmp_path):
    """A study merged into a committed copy has no 'created' field to drop; its benchmark path must still
    be cut to the part inside the data directory (it was left absolute: make demo then dirtied real_slice)."""
    from kleval.tiny_studies import drop_volatile_header_fields

    study = tmp_path / "study"
    study.mkdir()
    (study / "study.json").write_text(json.dumps(
        {"verifier_version": VERIFIER_VERSION, "tasks": {"gsm8k": {"data_file": "/somewhere/data/gsm8k/test.jsonl"}}}))
    drop_volatile_header_fields(study)
    assert json.loads((study / "study.json").read_text())["tasks"]["gsm8k"]["data_file"] == "gsm8k/test.jsonl"
