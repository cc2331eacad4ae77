"""VerifierPool: order and non-blocking submit (limits, kills and crashes: tests/faults/test_pool_faults.py)."""
from __future__ import annotations

import pytest

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


def test_pool_rejects_bad_settings():
    with pytest.raises(ValueError):
        VerifierPool(workers=0)
    with pytest.raises(ValueError):
        VerifierPool(timeout_s=0)
