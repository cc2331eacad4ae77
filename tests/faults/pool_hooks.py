"""Verifier stand-ins for the pool's fault tests (imported by worker processes by name).

`slow_verify` sleeps `float(gold)` seconds; completion "crash" kills its process, "raise"
raises, "echo" returns a verdict carrying the whole completion (long replies through the pipe).
"""
from __future__ import annotations

import os
import time

from kleval.types import Status, Verdict


def slow_verify(*, gold: str, completion: str, kind: str, policy) -> Verdict:
    if completion == "crash":
        os._exit(3)
    if completion == "raise":
        raise ValueError("hook raised on purpose")
    time.sleep(float(gold) if gold.replace(".", "", 1).isdigit() else 0.0)
    extracted = completion if completion.startswith("echo") else completion[:20]
    return Verdict(Status.CORRECT, extracted, gold, extracted, "debug-sleep", "slept")
