"""VerifierPool: order, hard per-item limits with kill, dead workers replaced, non-blocking submit."""
from __future__ import annotations

import time

import pytest

from kleval.types import Status
from kleval.verify import VerifierPool, VerifyItem, verify


def test_pool_matches_in_process_verdicts_in_order():
    items = [VerifyItem(str(i), f"\\boxed{{{i if i % 3 else i + 1}}}") for i in range(40)]
    items.append(VerifyItem("B", "The answer is (B)", "choice"))
    with VerifierPool(workers=2, timeout_s=30) as pool:
        future = pool.submit(items)  # returns at once; .result() blocks
        pooled = future.result()
        again = pool.map(items[:5])
    expected = [verify(gold=i.gold, completion=i.completion, kind=i.kind, policy=i.policy) for i in items]
    assert [v.status for v in pooled] == [v.status for v in expected]
    assert [v.status for v in again] == [v.status for v in expected[:5]]


def test_hung_and_dead_workers_give_timeout_and_are_replaced():
    items = [VerifyItem("0", "a"), VerifyItem("60", "hang"), VerifyItem("0", "crash"), VerifyItem("0", "b")]
    with VerifierPool(workers=2, timeout_s=1.0, verify_fn="kleval.verify.pool:debug_slow_verify") as pool:
        pool.map(items[:1])
        start = time.monotonic()
        verdicts = pool.map(items)
        elapsed = time.monotonic() - start
        assert pool.restarts == 2
    assert [v.status for v in verdicts] == [Status.CORRECT, Status.TIMEOUT, Status.TIMEOUT, Status.CORRECT]
    assert elapsed < 1.0 + 1.0 + 20  # limit + 1 s, plus one worker restart (spawn and imports)
    assert "exceeded" in verdicts[1].explanation and "died" in verdicts[2].explanation


def test_pool_rejects_bad_settings():
    with pytest.raises(ValueError):
        VerifierPool(workers=0)
    with pytest.raises(ValueError):
        VerifierPool(timeout_s=0)
