"""VerifierPool: order and non-blocking submit (limits, kills and crashes: tests/faults/test_pool_faults.py)."""
from __future__ import annotations

import subprocess
import sys

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


def test_pool_starts_from_a_script_read_on_stdin():
    """`python - < script.py`: spawn cannot re-run a __main__ named "<stdin>", and the workers need none."""
    script = ("from kleval.verify import VerifierPool, VerifyItem\n"
              "with VerifierPool(workers=1, timeout_s=30) as pool:\n"
              "    print([v.status.value for v in pool.map([VerifyItem('5', 'The answer is 5.'), VerifyItem('5', '6')])])\n")
    done = subprocess.run([sys.executable, "-"], check=False, input=script, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "['correct', 'incorrect']"
