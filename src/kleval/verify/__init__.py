"""Answer verification: extract the final answer from a completion and grade it against the gold."""
from __future__ import annotations

from kleval.verify import extract

__all__ = ["extract"]
