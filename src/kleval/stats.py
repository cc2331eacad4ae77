"""Statistics for comparing KL configurations: intervals and tests at the level of the claim.

Two questions, two units:

- *Does configuration A beat configuration B?* The unit is the training run (seed): a new seed is
  a new draw of the thing being compared. `welch_seed_test` compares the per-seed means of A and B
  (Welch's unequal-variance t-test, two-sided), and `pooled_bootstrap` gives a configuration's
  interval by resampling seeds and problems, the seed level rescaled so its variance is the
  unbiased between-seed variance s^2/S (the plain bootstrap gives (S-1)/S of it: half with 2 seeds).
- *Do these two checkpoints (or seed-averaged checkpoint sets) differ on this benchmark?* The unit is
  the problem: `paired_compare` is a paired sign-flip permutation test over problems with a paired
  bootstrap interval. It says nothing about other training seeds; the CI gate (`regress`) asks
  exactly this question of one checkpoint against its baseline.

`holm_adjust` corrects a family of p-values (a whole report table, or every gated cell).

paired_compare details: per-problem scores (success rate or pass@k) of A and B, aligned problem by
problem, optionally split into strata (one per task) so an average over tasks weighs each task
equally; the statistic is the difference of (stratum-averaged) means, A - B. Exact enumeration of
sign patterns when few problems differ, otherwise seeded Monte Carlo with the (1 + hits) /
(1 + draws) correction so the p-value is never 0. Problems where A == B contribute nothing.

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
    """Mean and percentile CI of a configuration over its seeds and problems, for one or more tasks.

    matrices: one (num_runs, num_problems_t) array per task, rows aligned to the same runs
    (seeds). The statistic is the mean over tasks of the mean over runs and problems; the draws
    are `hierarchical_bootstrap_draws`. Returns (mean, lo, hi).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    stats = hierarchical_bootstrap_draws(matrices, num_resamples=num_resamples, seed=seed)
    point = float(np.mean([np.asarray(m, dtype=float).mean() for m in matrices]))
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [tail, 1.0 - tail])
    return point, float(lo), float(hi)


def hierarchical_bootstrap_draws(
    matrices: Sequence[np.ndarray], *, num_resamples: int = 1000, seed: int = 0
) -> np.ndarray:
    """Bootstrap draws of the mean over tasks, runs and problems (see `pooled_bootstrap`).

    Each draw resamples problems (per task, the same draw for every run, because every run was
    evaluated on the same problems: seeds and problems are crossed, not nested) and then runs
    (shared by all tasks, since a seed is one training run). The run level is the rescaled
    bootstrap: with R the draw's mean over all runs and B its mean over the resampled runs, the draw
    is R + sqrt(S / (S - 1)) * (B - R), so its between-seed variance is the unbiased s^2 / S
    instead of the plain bootstrap's (S - 1) / S * s^2 / S. With one run the between-seed
    variance is unknown and the draws are over problems only.
    """
    mats = [np.asarray(m, dtype=float) for m in matrices]
    if not mats or any(m.ndim != 2 or m.size == 0 for m in mats):
        raise ValueError("pooled_bootstrap needs non-empty (num_runs, num_problems) matrices")
    num_runs = mats[0].shape[0]
    if any(m.shape[0] != num_runs for m in mats):
        raise ValueError("every task matrix must have one row per run, the same runs")
    inflation = np.sqrt(num_runs / (num_runs - 1)) if num_runs > 1 else 0.0
    rng = np.random.default_rng(seed)
    stats = np.empty(num_resamples)
    for start in range(0, num_resamples, _CHUNK):
        stop = min(start + _CHUNK, num_resamples)
        draws = stop - start
        per_run = np.zeros((draws, num_runs))  # each run's problem-resampled mean, averaged over tasks
        for m in mats:
            size = m.shape[1]
            problem_counts = rng.multinomial(size, np.full(size, 1.0 / size), size=draws)
            per_run += problem_counts @ m.T / size / len(mats)
        run_counts = rng.multinomial(num_runs, np.full(num_runs, 1.0 / num_runs), size=draws)
        over_runs = per_run.mean(axis=1)
        resampled = (run_counts * per_run).sum(axis=1) / num_runs
        stats[start:stop] = over_runs + inflation * (resampled - over_runs)
    return stats


MIN_SEEDS = 3  # fewer seeds in either configuration: no configuration-level test


@dataclass(frozen=True)
class SeedComparison:
    """A - B with training runs (seeds) as the unit: Welch's t-test on per-seed means."""

    difference: float  # mean of A's seed means minus mean of B's
    lo: float  # Welch confidence interval of the difference
    hi: float
    p_value: float  # two-sided
    t: float
    df: float  # Welch-Satterthwaite degrees of freedom
    num_runs_a: int
    num_runs_b: int


def welch_seed_test(
    seed_means_a: Sequence[float], seed_means_b: Sequence[float], *, confidence: float = 0.95
) -> SeedComparison:
    """Welch's unequal-variance t-test of two configurations' per-seed means (two-sided).

    Why Welch and not a permutation test over seeds: with 3 seeds against 3 there are only 20
    distinct splits, so no two-sided permutation p-value can fall below 0.1, let alone survive a
    Holm correction; the t-test uses the normality that a mean over hundreds of problems makes
    plausible. Why not equal variances: configurations differ in how much seeds disagree (an
    unstable configuration spreads its seeds). Needs at least 2 seeds per side; when both sides'
    seeds agree exactly, the p-value is 1 for equal means and 0 otherwise.
    """
    from scipy import stats as scipy_stats

    a, b = np.asarray(seed_means_a, dtype=float), np.asarray(seed_means_b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.size < 2 or b.size < 2:
        raise ValueError("the Welch test needs at least 2 seed means per configuration")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    difference = float(a.mean() - b.mean())
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    if va + vb == 0:
        p = 1.0 if difference == 0 else 0.0
        return SeedComparison(difference, difference, difference, p, float("inf") if p == 0 else 0.0,
                              float(a.size + b.size - 2), int(a.size), int(b.size))
    # The Welch statistic and Satterthwaite df written out (scipy's ttest_ind gives the same, but warns
    # about precision when one side's seeds agree exactly, which is a normal case here).
    se = float(np.sqrt(va + vb))
    t = difference / se
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    p = float(2 * scipy_stats.t.sf(abs(t), df))
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, df)) * se
    return SeedComparison(difference, difference - half, difference + half, p, float(t), float(df),
                          int(a.size), int(b.size))
