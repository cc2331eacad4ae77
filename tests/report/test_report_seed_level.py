"""Configuration-level marks: seeds are the unit, Holm over the whole table, no arrows below 3 seeds."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from kleval.report.render import DOWN, UP, to_markdown
from kleval.report.study import Study
from kleval.report.table import compute_table
from kleval.stats import holm_adjust
from report.fake_study import kl_checkpoint, write_study

TASKS = {"add": "id", "sub": "ood"}
N = 4


def _outcomes(per_seed_rates: dict[str, list[float]], num_problems: int, rng) -> dict:
    """Exact per-seed success rates: seed s of a preset gets round(rate * P * n) correct samples."""
    out = {}
    for preset, rates in per_seed_rates.items():
        for seed, rate in enumerate(rates):
            for task in TASKS:
                correct = np.zeros(num_problems * N, dtype=bool)
                correct[rng.permutation(correct.size)[: int(round(rate * correct.size))]] = True
                out[(f"{preset}_s{seed}__step10", task)] = correct.reshape(num_problems, N)
    return out


def _study(tmp_path, per_seed_rates, num_problems=50):
    rng = np.random.default_rng(0)
    ckpts = [kl_checkpoint(p, s, 10, {}) for p, rates in per_seed_rates.items() for s in range(len(rates))]
    return Study(write_study(tmp_path, ckpts, TASKS, num_problems=num_problems,
                             outcomes=_outcomes(per_seed_rates, num_problems, rng)))


RATES = {
    "k3-loss": [0.50, 0.52, 0.54],
    "k3-reward": [0.20, 0.22, 0.24],   # far below the reference: a clear configuration effect
    "k1-reward": [0.30, 0.70, 0.50],   # same mean as the reference but seeds all over the place
}


def test_seed_test_is_welch_on_seed_means_with_holm_over_the_table(tmp_path):
    study = _study(tmp_path, RATES)
    table = compute_table(study, num_resamples=200)
    assert table.test == "seed" and not table.untested_rows
    cell = table.cells[("k3-reward", "add")]
    # Independent computation: per-seed means of pass@1, scipy's Welch test.
    expected = scipy_stats.ttest_ind(RATES["k3-reward"], RATES["k3-loss"], equal_var=False)
    assert cell.vs_reference.difference == pytest.approx(np.mean(RATES["k3-reward"]) - np.mean(RATES["k3-loss"]))
    assert cell.vs_reference.p_value == pytest.approx(expected.pvalue)
    tested = {key: c for key, c in table.cells.items() if c.vs_reference is not None}
    assert len(tested) == table.num_tests == 2 * 2  # two rows x (add, sub); no average column with one task per split
    keys = sorted(tested)
    adjusted = holm_adjust([tested[k].vs_reference.p_value for k in keys])
    assert [tested[k].adjusted_p for k in keys] == pytest.approx(adjusted)
    markdown = to_markdown(table)
    line = next(l for l in markdown.splitlines() if l.startswith("| k3-reward"))
    assert line.count(DOWN) == 2
    noisy = next(l for l in markdown.splitlines() if l.startswith("| k1-reward"))
    assert UP not in noisy and DOWN not in noisy
    assert "Welch t-test on per-seed mean pass@1" in markdown and "Holm-adjusted over the 4 tests" in markdown


def test_fewer_than_three_seeds_gives_no_configuration_arrows_and_says_so(tmp_path):
    two_seeds = {name: rates[:2] for name, rates in RATES.items()}
    study = _study(tmp_path, two_seeds)
    table = compute_table(study, num_resamples=200)
    assert all(c.vs_reference is None for c in table.cells.values())
    assert set(table.untested_rows) == {"k3-reward", "k1-reward"}
    markdown = to_markdown(table)
    assert UP not in markdown.split("\n\n")[1] and DOWN not in markdown.split("\n\n")[1]
    assert "fewer than 3 seeds" in markdown and "No significance marks" in markdown
    # The checkpoint-level question stays available and does find the large difference.
    by_problem = compute_table(study, num_resamples=200, test="problem")
    assert by_problem.cells[("k3-reward", "add")].adjusted_p < 0.05


def test_intervals_widen_with_seed_disagreement(tmp_path):
    """Same mean, same problems: the configuration whose seeds disagree gets the wider interval."""
    study = _study(tmp_path, {"k3-loss": [0.50, 0.52, 0.54], "k1-reward": [0.30, 0.70, 0.50]})
    table = compute_table(study, num_resamples=1000)
    steady, noisy = table.cells[("k3-loss", "add")], table.cells[("k1-reward", "add")]
    assert noisy.hi - noisy.lo > 2 * (steady.hi - steady.lo)
