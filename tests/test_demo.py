"""`kleval demo` end to end at a tiny budget: every phase runs and the report names each preset."""
from __future__ import annotations

import json

import pytest


@pytest.mark.slow
def test_demo_runs_every_phase_and_reports_each_preset(tmp_path):
    from kleval.demo import DemoSettings, run_demo

    settings = DemoSettings(out=tmp_path / "demo", presets=("none", "k1-reward"), seeds=(0,), steps=4,
                            eval_limit=16, n=2, ks=(1, 2), real_limit=2)
    index = run_demo(settings, progress=False)
    out = settings.out
    assert index.is_file() and (out / "table.md").is_file() and (out / "table.tex").is_file()
    table = (out / "table.md").read_text()
    for preset in ("none", "k1-reward", "tiny-arith-base"):
        assert f"| {preset} " in table, preset
    assert "arith_add (ID)" in table and "arith_sub (OOD)" in table
    assert json.loads((out / "gradcheck.json").read_text())["all_passed"] is True
    import pandas as pd

    real = pd.read_csv(out / "real_slice" / "results.csv")  # the base and each run's final step, on GSM8K
    assert sorted(real["checkpoint"]) == ["k1-reward-s0__step4", "none-s0__step4", "tiny-arith-base"]
    assert (real["task"] == "gsm8k").all() and (real["num_problems"] == 2).all()
    for run in ("none-s0", "k1-reward-s0"):
        assert (out / "runs" / run / "train_log.jsonl").is_file()
