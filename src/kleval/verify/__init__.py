"""Answer verification: extract the final answer from a completion and grade it against the gold.

Public API: `verify(gold=, completion=, kind=, policy=) -> Verdict`, `VERIFIER_VERSION`,
`Policy` and its named presets, `VerifyItem` and `VerifierPool` (process pool with hard
per-item wall-clock limits), and `extract.last_boxed` / `extract.gsm8k_final`.
"""
from __future__ import annotations

from kleval.verify import extract
from kleval.verify.core import VERIFIER_VERSION, verify
from kleval.verify.policy import PRESETS, Policy, resolve_policy

__all__ = ["PRESETS", "Policy", "VERIFIER_VERSION", "VerifierPool", "VerifyItem", "extract", "resolve_policy", "verify"]


def __getattr__(name: str):
    # The pool pulls in multiprocessing machinery; load it only when asked for.
    if name in ("VerifierPool", "VerifyItem"):
        from kleval.verify import pool

        return getattr(pool, name)
    raise AttributeError(name)
