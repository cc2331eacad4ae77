"""Paired comparison of two configurations evaluated on the same problems.

Input: per-problem scores (success rate or pass@k) of A and B, aligned problem by problem,
optionally split into strata (one stratum per task) so an average over tasks weighs each task
equally. The statistic is the difference of (stratum-averaged) means, A - B.

- Confidence interval: paired percentile bootstrap over problems (resampled within each stratum).
- p-value: paired sign-flip permutation test. Under H0 (A and B exchangeable per problem) every
  per-problem difference is equally likely to have either sign. Exact enumeration when few
  problems differ, otherwise seeded Monte Carlo with the (1 + hits) / (1 + draws) correction so
  the p-value is never 0. Problems where A == B contribute nothing either way.

Everything is deterministic given `seed`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np

Alternative = Literal["two-sided", "less", "greater"]
_EXACT_LIMIT = 16  # enumerate all 2^m sign patterns when m nonzero differences are at most this
_CHUNK = 256
_TOLERANCE = 1e-12  # float slack when comparing permuted statistics with the observed one


@dataclass(frozen=True)
class PairedComparison:
    """A - B on the same problems: difference of means, its CI, and the permutation p-value."""

    difference: float
    lo: float
    hi: float
    p_value: float
    num_problems: int
    alternative: str
    exact: bool  # True when the p-value comes from full enumeration of sign patterns


def _as_strata(values: np.ndarray | Sequence[np.ndarray]) -> list[np.ndarray]:
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return [values.astype(float)]
    strata = [np.asarray(v, dtype=float) for v in values]
    if any(s.ndim != 1 for s in strata):
        raise ValueError("each stratum must be a 1-D array of per-problem values")
    return strata


def paired_compare(
    a: np.ndarray | Sequence[np.ndarray],
    b: np.ndarray | Sequence[np.ndarray],
    *,
    alternative: Alternative = "two-sided",
    confidence: float = 0.95,
    num_resamples: int = 2000,
    seed: int = 0,
) -> PairedComparison:
    """Compare A with B problem by problem. a and b: 1-D arrays, or lists of them (strata).

    alternative: "two-sided" (A != B), "less" (A < B, e.g. current worse than baseline) or
    "greater" (A > B).
    """
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(f"unknown alternative {alternative!r}")
    strata_a, strata_b = _as_strata(a), _as_strata(b)
    if len(strata_a) != len(strata_b) or any(x.shape != y.shape for x, y in zip(strata_a, strata_b)):
        raise ValueError("a and b must hold the same problems in the same order")
    if not strata_a or any(s.size == 0 for s in strata_a):
        raise ValueError("paired comparison needs at least one problem in every stratum")
    diffs = [x - y for x, y in zip(strata_a, strata_b)]
    # Weight of each problem in the statistic: strata count equally, problems equally within one.
    weights = np.concatenate([np.full(d.size, 1.0 / (d.size * len(diffs))) for d in diffs])
    flat = np.concatenate(diffs)
    observed = float(weights @ flat)

    rng = np.random.default_rng(seed)
    lo, hi = _bootstrap_interval(diffs, confidence, num_resamples, rng)
    p_value, exact = _sign_flip_p_value(flat * weights, observed, alternative, num_resamples, rng)
    return PairedComparison(observed, lo, hi, p_value, int(flat.size), alternative, exact)


def _bootstrap_interval(
    diffs: list[np.ndarray], confidence: float, num_resamples: int, rng: np.random.Generator
) -> tuple[float, float]:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    stats = np.zeros(num_resamples)
    for d in diffs:
        uniform = np.full(d.size, 1.0 / d.size)
        for start in range(0, num_resamples, _CHUNK):
            stop = min(start + _CHUNK, num_resamples)
            counts = rng.multinomial(d.size, uniform, size=stop - start)
            stats[start:stop] += counts @ d / d.size / len(diffs)
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [tail, 1.0 - tail])
    return float(lo), float(hi)


def _sign_flip_p_value(
    weighted: np.ndarray,
    observed: float,
    alternative: str,
    num_resamples: int,
    rng: np.random.Generator,
) -> tuple[float, bool]:
    nonzero = weighted[weighted != 0]
    if nonzero.size == 0:
        return 1.0, True  # identical on every problem: no evidence of any difference
    if nonzero.size <= _EXACT_LIMIT:
        patterns = np.array(np.meshgrid(*[[-1.0, 1.0]] * nonzero.size)).reshape(nonzero.size, -1).T
        null = patterns @ nonzero
        return float(np.mean(_as_extreme(null, observed, alternative))), True
    hits = 0
    for start in range(0, num_resamples, _CHUNK):
        stop = min(start + _CHUNK, num_resamples)
        signs = rng.integers(0, 2, size=(stop - start, nonzero.size)) * 2.0 - 1.0
        hits += int(_as_extreme(signs @ nonzero, observed, alternative).sum())
    return (1.0 + hits) / (1.0 + num_resamples), False


def _as_extreme(null: np.ndarray, observed: float, alternative: str) -> np.ndarray:
    if alternative == "two-sided":
        return np.abs(null) >= abs(observed) - _TOLERANCE
    if alternative == "less":
        return null <= observed + _TOLERANCE
    return null >= observed - _TOLERANCE


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (family-wise error control over several tests)."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (p.size - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()


def pooled_bootstrap(
    matrices: Sequence[np.ndarray],
    *,
    confidence: float = 0.95,
    num_resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Mean and percentile CI over seeds *and* problems, for one or several tasks.

    matrices: one (num_runs, num_problems_t) array per task, rows aligned to the same runs
    (seeds). The statistic is the mean over tasks of the mean over runs and problems. Each
    bootstrap draw resamples runs (shared by every task, since a seed is one training run) and,
    independently per task, problems; with a single run this is the plain problem bootstrap.
    Returns (mean, lo, hi).
    """
    mats = [np.asarray(m, dtype=float) for m in matrices]
    if not mats or any(m.ndim != 2 or m.size == 0 for m in mats):
        raise ValueError("pooled_bootstrap needs non-empty (num_runs, num_problems) matrices")
    num_runs = mats[0].shape[0]
    if any(m.shape[0] != num_runs for m in mats):
        raise ValueError("every task matrix must have one row per run, the same runs")
    point = float(np.mean([m.mean() for m in mats]))
    rng = np.random.default_rng(seed)
    stats = np.empty(num_resamples)
    for start in range(0, num_resamples, _CHUNK):
        stop = min(start + _CHUNK, num_resamples)
        draws = stop - start
        run_counts = rng.multinomial(num_runs, np.full(num_runs, 1.0 / num_runs), size=draws)
        total = np.zeros(draws)
        for m in mats:
            size = m.shape[1]
            problem_counts = rng.multinomial(size, np.full(size, 1.0 / size), size=draws)
            per_run = problem_counts @ m.T / size  # (draws, num_runs): each run's resampled mean
            total += (run_counts * per_run).sum(axis=1) / num_runs
        stats[start:stop] = total / len(mats)
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [tail, 1.0 - tail])
    return point, float(lo), float(hi)
