"""Sample-level metrics for verified generations: unbiased pass@k, mean@n, maj@k, bootstrap CIs.

Everything here is a pure numpy function of per-problem outcomes. Conventions:

- `correct` is a boolean array of shape (num_problems, n): sample j of problem i was graded correct.
- pass@k is the unbiased estimator of Chen et al. (2021), 1 - C(n-c, k) / C(n, k), evaluated in
  the numerically stable product form 1 - prod_{i=n-c+1}^{n} (1 - k / i). It is undefined for
  k > n, and asking for it raises ValueError (never a silent number).
- maj@k votes over canonical answers within disjoint blocks of k consecutive samples (see
  `maj_at_k`); answers that are None (no answer extracted) never vote.
- Confidence intervals are percentile bootstraps over problems, seeded, so the same inputs always
  give the same interval.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

DEFAULT_RESAMPLES = 1000
_RESAMPLE_CHUNK = 256  # resamples drawn per block, to bound memory at (chunk, num_problems)


def _check_k(k: int, n_min: int) -> None:
    if int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if k > n_min:
        raise ValueError(
            f"pass@{k} is undefined with only n={n_min} samples per problem (needs k <= n); "
            f"sample more (n >= {k}) or ask for a smaller k"
        )


def pass_at_k(num_samples: np.ndarray | int, num_correct: np.ndarray | int, k: int) -> np.ndarray:
    """Unbiased per-problem pass@k from n samples of which c are correct.

    num_samples and num_correct broadcast against each other; returns a float array of their
    broadcast shape. Raises ValueError when k > n for any problem or when c is outside [0, n].
    """
    n = np.asarray(num_samples, dtype=np.int64)
    c = np.asarray(num_correct, dtype=np.int64)
    n, c = np.broadcast_arrays(n, c)
    if n.size == 0:
        return np.zeros(n.shape, dtype=float)
    if np.any(c < 0) or np.any(c > n):
        raise ValueError("num_correct must lie in [0, num_samples] for every problem")
    _check_k(k, int(n.min()))
    result = np.empty(n.shape, dtype=float)
    # Few distinct (n, c) pairs occur (at most n + 1 for a fixed n), so compute each once.
    pairs, inverse = np.unique(np.stack([n.ravel(), c.ravel()], axis=1), axis=0, return_inverse=True)
    values = np.empty(len(pairs), dtype=float)
    for index, (n_i, c_i) in enumerate(pairs):
        if n_i - c_i < k:
            values[index] = 1.0  # every k-subset contains a correct sample
        else:
            values[index] = 1.0 - float(np.prod(1.0 - k / np.arange(n_i - c_i + 1, n_i + 1)))
    result.ravel()[:] = values[inverse.ravel()]
    return result


def per_problem_pass_at_k(correct: np.ndarray, k: int) -> np.ndarray:
    """pass@k for each row of a (num_problems, n) boolean matrix."""
    correct = _as_correct_matrix(correct)
    return pass_at_k(correct.shape[1], correct.sum(axis=1), k)


def mean_at_n(correct: np.ndarray) -> float:
    """Mean accuracy over all n samples of all problems (equal weight per problem)."""
    correct = _as_correct_matrix(correct)
    return float(correct.mean(axis=1).mean()) if correct.shape[0] else float("nan")


def majority_answer(votes: Sequence[str | None]) -> int | None:
    """Index (into votes) of the winning answer's first occurrence, or None if nobody voted.

    None votes (no answer extracted) are abstentions: they neither win nor count toward a
    winner. Ties between answers are broken by earliest first occurrence, so the result depends
    only on the sample order, never on hashing.
    """
    counts = Counter(v for v in votes if v is not None)
    if not counts:
        return None
    best = max(counts.values())
    for index, vote in enumerate(votes):
        if vote is not None and counts[vote] == best:
            return index
    raise AssertionError("unreachable: a counted vote was not found")


def per_problem_maj_at_k(
    correct: np.ndarray, answers: Sequence[Sequence[str | None]], k: int
) -> np.ndarray:
    """maj@k per problem, averaged over the floor(n / k) disjoint blocks of k consecutive samples.

    Within a block the majority canonical answer (see `majority_answer`) is taken; the block
    scores 1 if the sample carrying that answer's first occurrence was graded correct, and 0
    if the answer is wrong or no sample in the block gave an answer. Using every full block (not
    only the first k samples) uses all the data and is unbiased for the expected maj@k of k
    independent samples. Samples beyond the last full block are ignored.
    """
    correct = _as_correct_matrix(correct)
    num_problems, n = correct.shape
    if len(answers) != num_problems:
        raise ValueError(f"answers has {len(answers)} problems, correct has {num_problems}")
    _check_k(k, n)
    blocks = n // k
    scores = np.zeros(num_problems, dtype=float)
    for i, row in enumerate(answers):
        if len(row) != n:
            raise ValueError(f"problem {i} has {len(row)} answers, expected n={n}")
        wins = 0
        for b in range(blocks):
            winner = majority_answer(row[b * k : (b + 1) * k])
            if winner is not None and correct[i, b * k + winner]:
                wins += 1
        scores[i] = wins / blocks
    return scores


def maj_at_k(correct: np.ndarray, answers: Sequence[Sequence[str | None]], k: int) -> float:
    """maj@k averaged over problems (see `per_problem_maj_at_k`)."""
    return float(per_problem_maj_at_k(correct, answers, k).mean())


def bootstrap_resample_means(
    values: np.ndarray, *, num_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> np.ndarray:
    """Means of `num_resamples` bootstrap resamples (with replacement) of a 1-D array.

    Resample counts are drawn as multinomials in chunks, so memory stays at (chunk, len(values)).
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("bootstrap needs a non-empty 1-D array of per-problem values")
    rng = np.random.default_rng(seed)
    size = values.size
    uniform = np.full(size, 1.0 / size)
    means = np.empty(num_resamples, dtype=float)
    for start in range(0, num_resamples, _RESAMPLE_CHUNK):
        stop = min(start + _RESAMPLE_CHUNK, num_resamples)
        counts = rng.multinomial(size, uniform, size=stop - start)
        means[start:stop] = counts @ values / size
    return means


def bootstrap_ci(
    values: np.ndarray,
    *,
    confidence: float = 0.95,
    num_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval for the mean of per-problem values."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    means = bootstrap_resample_means(values, num_resamples=num_resamples, seed=seed)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def summarize(
    correct: np.ndarray,
    answers: Sequence[Sequence[str | None]],
    ks: Sequence[int],
    *,
    seed: int = 0,
    confidence: float = 0.95,
    num_resamples: int = DEFAULT_RESAMPLES,
) -> dict[str, float | int]:
    """All metrics for one checkpoint x task, as the eval runner writes them to results.csv.

    Returns `pass@{k}`, `pass@{k}_lo`, `pass@{k}_hi`, `maj@{k}` for each k in ks (in the order
    given), then `mean@n`, `num_problems` and `n`. Raises ValueError if any k > n or there are no
    problems. CIs for every k use the same seeded resamples of problems.
    """
    correct = _as_correct_matrix(correct)
    num_problems, n = correct.shape
    if num_problems == 0:
        raise ValueError("cannot summarize zero problems")
    for k in ks:
        _check_k(k, n)
    out: dict[str, float | int] = {}
    for k in ks:
        per_problem = per_problem_pass_at_k(correct, k)
        lo, hi = bootstrap_ci(per_problem, confidence=confidence, num_resamples=num_resamples, seed=seed)
        out[f"pass@{k}"] = float(per_problem.mean())
        out[f"pass@{k}_lo"] = lo
        out[f"pass@{k}_hi"] = hi
    for k in ks:
        out[f"maj@{k}"] = maj_at_k(correct, answers, k)
    out["mean@n"] = mean_at_n(correct)
    out["num_problems"] = num_problems
    out["n"] = n
    return out


def _as_correct_matrix(correct: np.ndarray) -> np.ndarray:
    matrix = np.asarray(correct)
    if matrix.ndim != 2:
        raise ValueError(f"correct must be a (num_problems, n) array, got shape {matrix.shape}")
    if matrix.dtype != bool:
        if not np.isin(matrix, (0, 1)).all():
            raise ValueError("correct must hold booleans (or 0/1)")
        matrix = matrix.astype(bool)
    return matrix
