"""`kleval regress` regressions and `kleval audit` disagreements link into the sample browser."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kleval.cli import main
from kleval.report.samples import problem_link
from report.fake_study import FakeCheckpoint, write_study

TASKS = {"add": "id", "sub": "ood"}


def test_regressed_problems_are_linked_by_problem_id(tmp_path):
    ckpt = FakeCheckpoint("tiny", 0, accuracy={t: 0.6 for t in TASKS})
    base = write_study(tmp_path / "base", [ckpt], TASKS, num_problems=40)
    baseline = tmp_path / "ci.json"
    assert main(["regress", "--baseline", str(baseline), "--current", str(base), "--update-baseline"]) == 0
    worse = write_study(tmp_path / "worse", [ckpt], TASKS, num_problems=40,
                        outcomes={("tiny__step0", "sub"): np.zeros((40, 4), dtype=bool)})
    summary = tmp_path / "summary.md"
    assert main(["regress", "--baseline", str(baseline), "--current", str(worse), "--summary", str(summary)]) == 1
    text = summary.read_text()
    [line] = [x for x in text.splitlines() if x.startswith("Problems tiny__step0 solves less often on sub")]
    before = json.loads(baseline.read_text())["checkpoints"]["tiny__step0"]["sub"]["correct"]
    solved_before = [p for _, p in sorted((-c, p) for p, c in before.items() if c > 0)]  # most lost first
    shown = ", ".join(f"[{p}]({problem_link(worse, 'sub', p, 'tiny__step0')})" for p in solved_before[:10])
    assert f"on sub: {shown}" in line
    assert "#problem=sub/sub-" in line and "&checkpoint=tiny__step0" in line
    assert (f" and {len(solved_before) - 10} more" in line) == (len(solved_before) > 10)
    assert "solves less often on add" not in text  # only regressions are listed


def test_audit_prints_a_view_link_per_disagreement(tmp_path, monkeypatch, capsys):
    import kleval.eval.rescore as rescore

    row = {"checkpoint": "k3__step20", "task": "math500", "problem_id": "test/algebra/1.json", "sample_index": 2,
           "gold": "1/2", "kleval": "correct", "kleval_explanation": "equal", "math_verify": "incorrect",
           "math_verify_explanation": "differs"}
    monkeypatch.setattr(rescore, "audit_study", lambda study: [row])
    assert main(["audit", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    expected = (Path(tmp_path) / "report" / "index.html").resolve().as_uri() + \
        "#problem=math500/test%2Falgebra%2F1.json&checkpoint=k3__step20"
    assert f"view: {expected}" in out
