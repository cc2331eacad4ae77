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
