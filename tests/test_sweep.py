"""`kleval demo --study beta` at a tiny budget: runs per (preset, beta, seed), frontier rows, report."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_beta_sweep_slice_writes_frontier_and_report(tmp_path, monkeypatch):
    from kleval.sweep import BetaSweepSettings, run_beta_sweep

    shutil.copytree(ROOT / "assets" / "tiny-arith-base", tmp_path / "assets" / "tiny-arith-base")
    monkeypatch.chdir(tmp_path)
    settings = BetaSweepSettings(out=Path("sweep"), base=Path("assets/tiny-arith-base"), presets=("k1-reward", "k3-loss"),
                                 betas=(0.1, 1.0), seeds=(0,), steps=3, eval_limit=8, n=2, workers=1)
    frontier = run_beta_sweep(settings, progress=False)
    rows = list(csv.DictReader(open(frontier, encoding="utf-8")))
    assert sorted((r["preset"], r["beta"]) for r in rows) == [
        ("k1-reward", "0.1"), ("k1-reward", "1"), ("k3-loss", "0.1"), ("k3-loss", "1"), ("none", "0")]
    for r in rows:
        assert float(r["kl_exact"]) >= 0 and float(r["entropy"]) > 0
        assert 0 <= float(r["id_pass@1"]) <= 1 and 0 <= float(r["ood_pass@1"]) <= 1
    table = (tmp_path / "sweep" / "table.md").read_text()
    for display in ("k1-reward β=0.1", "k1-reward β=1", "k3-loss β=0.1", "none (ref)"):
        assert display in table, display
    assert "fewer than 3 seeds" in table and "No significance marks" in table
    assert (tmp_path / "sweep" / "frontier.png").is_file() and (tmp_path / "sweep" / "frontier.pdf").is_file()


def test_bad_betas_are_one_clear_line(capsys):
    from kleval.cli import main

    assert main(["demo", "--study", "beta", "--betas", "0.1,x"]) == 2
    assert main(["demo", "--study", "beta", "--betas", "0"]) == 2
    assert main(["demo", "--presets", "k9-nothing"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "--betas" in err[0] and "k9-nothing" in err[2]
