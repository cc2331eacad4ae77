"""Which policy samples each batch when rollouts are stale (`staleness N`, `--staleness-mode`).

An asynchronous trainer's sampler runs ahead of the trainer by at most N policy versions (prime-rl's
`async_level`). Which version samples batch j then depends on how the sampler picks its weights:

- "fixed" (default): batch j is sampled by version max(j - 1 - N, 0), so after the first N + 1
  batches (all from the initial policy) every batch is exactly N updates stale. This is prime-rl's
  orchestrator while its loss was the async recipe's (`-clamp(ratio, max=8) * A`, Aug-Oct 2025): it
  loads new weights only at its async barrier, always checkpoint `step - async_level`, and the
  trainer recomputes the old log-probs with the model of step `step - async_level`; later prime-rl
  keeps it as `strict_async_level = true`.
- "latest": the sampler starts each batch with the newest finished policy, never older than N
  updates (prime-rl's continuous-batching scheduler from Nov 2025, `strict_async_level = false`, its
  default). The version then depends on timing; kleval simulates it with a seeded event model:
  sampler and trainer each work back to back, every batch's sampling and every update taking an
  exponential time of mean 1 (an equally fast sampler and trainer; the paper reports no timings).
  Staleness then varies between 1 and N (0 for the first batch), mean about N/2 at N = 10.

Both are pure functions of (steps, N, mode, seed): resumed runs and a rerun see the same schedule.
Not modelled: in-flight weight updates, which let one response span several policy versions.
"""
from __future__ import annotations

import bisect
import random

STALENESS_MODES = ("fixed", "latest")


def sampling_versions(steps: int, depth: int, mode: str, seed: int) -> list[int]:
    """versions[j] for j = 1..steps (versions[0] = 0 is unused): how many updates the policy that
    samples step j's batch has made. Always max(j - 1 - depth, 0) <= versions[j] <= j - 1, and
    non-decreasing in j (a sampler never goes back to older weights)."""
    if mode not in STALENESS_MODES:
        raise ValueError(f"staleness mode must be one of {STALENESS_MODES}, got {mode!r}")
    if mode == "fixed" or depth == 0:
        return [max(j - 1 - depth, 0) for j in range(steps + 1)]
    rng = random.Random(f"kleval-staleness:{seed}")  # a string seed: the same stream in every process
    finished = [0.0]  # finished[v]: when policy version v exists (version 0, the initial policy: time 0)
    sampler_free, versions = 0.0, [0]
    for j in range(1, steps + 1):
        barrier = max(j - 1 - depth, 0)  # the sampler may not run further ahead than `depth` updates
        start = max(sampler_free, finished[barrier])
        versions.append(max(bisect.bisect_right(finished, start) - 1, barrier))
        sampler_free = start + rng.expovariate(1.0)
        finished.append(max(sampler_free, finished[j - 1]) + rng.expovariate(1.0))  # update j needs batch j
    return versions
