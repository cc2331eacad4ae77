"""Tests for kleval.metrics: pass@k against brute force, maj@k by hand, bootstrap CIs."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kleval import metrics


def brute_force_pass_at_k(n: int, c: int, k: int) -> float:
    """Fraction of k-subsets of n samples (c of them correct) holding at least one correct."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_pass_at_k_matches_enumeration_of_subsets(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            got = float(metrics.pass_at_k(n, c, k))
            assert got == pytest.approx(brute_force_pass_at_k(n, c, k), abs=1e-12), (n, c, k)


def test_pass_at_k_edge_cases():
    assert float(metrics.pass_at_k(10, 0, 3)) == 0.0
    assert float(metrics.pass_at_k(10, 10, 3)) == 1.0
    assert float(metrics.pass_at_k(10, 1, 10)) == 1.0  # k = n: any correct sample suffices
    assert float(metrics.pass_at_k(10, 0, 10)) == 0.0
    assert float(metrics.pass_at_k(10, 3, 1)) == pytest.approx(0.3)


def test_pass_at_k_is_stable_for_large_n():
    # C(1000, 500) overflows floats; the product form must not.
    value = float(metrics.pass_at_k(1000, 1, 500))
    assert value == pytest.approx(0.5)
    assert np.isfinite(metrics.pass_at_k(5000, 37, 256))


def test_pass_at_k_vectorised_over_problems():
    got = metrics.pass_at_k(np.array([4, 4, 4]), np.array([0, 2, 4]), 2)
    expected = [brute_force_pass_at_k(4, c, 2) for c in (0, 2, 4)]
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("k", [5, 9])
def test_k_greater_than_n_raises(k):
    with pytest.raises(ValueError, match="n=4"):
        metrics.pass_at_k(4, 2, k)
    with pytest.raises(ValueError):
        metrics.summarize(np.ones((3, 4), bool), [["1"] * 4] * 3, [1, k])


def test_invalid_counts_and_k_raise():
    with pytest.raises(ValueError):
        metrics.pass_at_k(4, 5, 1)
    with pytest.raises(ValueError):
        metrics.pass_at_k(4, 1, 0)


def test_majority_answer_ignores_none_and_breaks_ties_by_first_occurrence():
    assert metrics.majority_answer(["3", None, None, "3", "4"]) == 0
    assert metrics.majority_answer([None, "4", "3", "3", "4"]) == 1  # tie 4 vs 3: 4 came first
    assert metrics.majority_answer([None, None]) is None
    assert metrics.majority_answer([]) is None


def test_maj_at_k_hand_examples():
    # Problem 0: the majority answer "5" is correct although only 2 of 4 samples are.
    # Problem 1: majority "7" is wrong while the one correct sample is in the minority.
    # Problem 2: nobody answered.
    answers = [["5", "5", "6", None], ["7", "7", "2", "7"], [None, None, None, None]]
    correct = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], dtype=bool)
    np.testing.assert_allclose(metrics.per_problem_maj_at_k(correct, answers, 4), [1, 0, 0])
    # k = 2 uses blocks (0,1) and (2,3): problem 0 -> "5" right, "6" wrong -> 0.5;
    # problem 1 -> "7" wrong, tie "2"/"7" broken by first occurrence "2" (correct) -> 0.5.
    np.testing.assert_allclose(metrics.per_problem_maj_at_k(correct, answers, 2), [0.5, 0.5, 0])
    # maj@1 is mean accuracy when every sample answers.
    np.testing.assert_allclose(metrics.per_problem_maj_at_k(correct[:2], answers[:2], 1), [0.5, 0.25])


def test_bootstrap_ci_contains_estimate_and_shrinks_with_more_problems():
    rng = np.random.default_rng(1)
    small = rng.random(20) < 0.4
    large = rng.random(2000) < 0.4
    lo_s, hi_s = metrics.bootstrap_ci(small.astype(float), seed=0)
    lo_l, hi_l = metrics.bootstrap_ci(large.astype(float), seed=0)
    assert lo_s <= small.mean() <= hi_s
    assert lo_l <= large.mean() <= hi_l
    assert (hi_l - lo_l) < (hi_s - lo_s) / 4
    assert metrics.bootstrap_ci(small.astype(float), seed=0) == (lo_s, hi_s)  # seeded
    assert metrics.bootstrap_ci(np.full(5, 0.25)) == (0.25, 0.25)


def test_bootstrap_coverage_is_roughly_nominal():
    # 200 studies of 100 Bernoulli(0.3) problems: a 90% interval should cover 0.3 ~90% of the time.
    rng = np.random.default_rng(7)
    covered = 0
    for trial in range(200):
        values = (rng.random(100) < 0.3).astype(float)
        lo, hi = metrics.bootstrap_ci(values, confidence=0.9, num_resamples=400, seed=trial)
        covered += lo <= 0.3 <= hi
    assert 0.8 <= covered / 200 <= 0.97


def test_summarize_keys_and_values():
    correct = np.array([[1, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]], dtype=bool)
    answers = [["1", "2", "2", None], ["x"] * 4, [None] * 4]
    out = metrics.summarize(correct, answers, [1, 2, 4], seed=3)
    assert out["num_problems"] == 3 and out["n"] == 4
    assert out["pass@1"] == pytest.approx((0.25 + 1 + 0) / 3)
    assert out["pass@4"] == pytest.approx(2 / 3)
    assert out["pass@2"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert out["mean@n"] == pytest.approx(out["pass@1"])
    assert out["maj@4"] == pytest.approx(1 / 3)  # "2" wins problem 0 and is wrong
    for k in (1, 2, 4):
        assert out[f"pass@{k}_lo"] <= out[f"pass@{k}"] <= out[f"pass@{k}_hi"]
    assert out == metrics.summarize(correct, answers, [1, 2, 4], seed=3)
    with pytest.raises(ValueError):
        metrics.summarize(np.zeros((0, 4), bool), [], [1])
