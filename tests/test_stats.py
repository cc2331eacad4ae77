"""Tests for kleval.stats: the paired bootstrap / sign-flip comparison and Holm adjustment."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kleval.stats import holm_adjust, paired_compare


def test_identical_configurations_give_p_one_and_zero_difference():
    a = np.random.default_rng(0).random(50)
    result = paired_compare(a, a.copy())
    assert result.difference == 0 and result.p_value == 1.0
    assert result.lo == 0 and result.hi == 0


def test_clear_improvement_is_significant_and_ci_excludes_zero():
    rng = np.random.default_rng(1)
    b = rng.random(200) * 0.5
    a = b + 0.2 + rng.normal(0, 0.05, 200)
    result = paired_compare(a, b, seed=0)
    assert result.difference == pytest.approx(float((a - b).mean()))
    assert result.lo > 0 and result.p_value < 0.01 and not result.exact
    assert paired_compare(a, b, alternative="greater").p_value < 0.01
    assert paired_compare(a, b, alternative="less").p_value > 0.99


def test_no_difference_is_rarely_significant():
    rng = np.random.default_rng(2)
    rejections = 0
    for trial in range(100):
        a = (rng.random(60) < 0.5).astype(float)
        b = (rng.random(60) < 0.5).astype(float)
        rejections += paired_compare(a, b, seed=trial, num_resamples=500).p_value < 0.05
    assert rejections <= 12  # nominal 5%; allow sampling slack


def test_exact_p_value_matches_enumeration():
    a = np.array([1.0, 1.0, 1.0, 0.0, 0.5, 0.25])
    b = np.array([0.0, 0.0, 0.5, 0.0, 0.5, 0.0])
    d = a - b
    observed = d.mean()
    flips = [np.mean(np.array(s) * d) for s in itertools.product([-1, 1], repeat=d.size)]
    expected = np.mean([abs(f) >= abs(observed) - 1e-12 for f in flips])
    result = paired_compare(a, b)
    assert result.exact and result.p_value == pytest.approx(expected)


def test_strata_weigh_tasks_equally_and_runs_are_deterministic():
    rng = np.random.default_rng(3)
    a = [rng.random(10), rng.random(1000)]
    b = [rng.random(10), rng.random(1000)]
    result = paired_compare(a, b, seed=5)
    expected = np.mean([(a[0] - b[0]).mean(), (a[1] - b[1]).mean()])
    assert result.difference == pytest.approx(expected)
    assert result == paired_compare(a, b, seed=5)
    with pytest.raises(ValueError):
        paired_compare([a[0]], [b[1]])


def test_holm_adjust():
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm_adjust([0.5]) == [0.5]


# ---- configuration level: seeds as the unit -------------------------------------------------

from kleval.stats import hierarchical_bootstrap_draws, pooled_bootstrap, welch_seed_test


def test_seed_level_variance_is_the_unbiased_between_seed_variance():
    """Seeds that disagree on identical problem sets: the draws' variance is s^2/S (ddof=1),
    not the plain bootstrap's (S-1)/S of it, plus the (here tiny) problem-level variance."""
    rng = np.random.default_rng(1)
    for seed_means in ([0.3, 0.7], [0.2, 0.5, 0.6], [0.1, 0.3, 0.4, 0.8]):
        offsets = rng.normal(0, 0.01, 200)
        matrix = np.array([m + offsets - offsets.mean() for m in seed_means])  # (S, P), per-run means exact
        draws = hierarchical_bootstrap_draws([matrix], num_resamples=20000, seed=0)
        s = len(seed_means)
        unbiased = np.var(seed_means, ddof=1) / s
        problem_level = offsets.var() / offsets.size
        assert draws.mean() == pytest.approx(np.mean(seed_means), abs=0.01)
        assert draws.var() == pytest.approx(unbiased + problem_level, rel=0.05)


def test_one_run_is_the_plain_problem_bootstrap():
    values = np.random.default_rng(2).random(300)
    draws = hierarchical_bootstrap_draws([values[None, :]], num_resamples=20000, seed=0)
    assert draws.var() == pytest.approx(values.var() / values.size, rel=0.05)
    mean, lo, hi = pooled_bootstrap([values[None, :]], num_resamples=2000)
    assert lo < mean < hi and mean == pytest.approx(values.mean())


def test_welch_matches_closed_form():
    a, b = [0.61, 0.58, 0.66, 0.63], [0.52, 0.55, 0.49]
    result = welch_seed_test(a, b)
    va, vb = np.var(a, ddof=1) / 4, np.var(b, ddof=1) / 3
    t = (np.mean(a) - np.mean(b)) / np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / 3 + vb**2 / 2)
    # Two-sided p from the Student-t CDF by numerical integration of its density (independent of scipy).
    from math import gamma, pi, sqrt

    def density(x):
        return gamma((df + 1) / 2) / (sqrt(df * pi) * gamma(df / 2)) * (1 + x * x / df) ** (-(df + 1) / 2)

    grid = np.linspace(abs(t), abs(t) + 400, 2_000_001)
    tail = np.trapezoid(density(grid), grid)
    assert result.t == pytest.approx(t) and result.df == pytest.approx(df)
    assert result.p_value == pytest.approx(2 * tail, rel=1e-3)
    assert result.lo < result.difference < result.hi
    assert welch_seed_test(b, a).p_value == pytest.approx(result.p_value)


def test_welch_degenerate_and_bad_input():
    assert welch_seed_test([0.5, 0.5], [0.5, 0.5]).p_value == 1.0
    assert welch_seed_test([0.6, 0.6], [0.5, 0.5]).p_value == 0.0
    with pytest.raises(ValueError, match="at least 2"):
        welch_seed_test([0.5], [0.4, 0.6])
