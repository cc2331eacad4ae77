"""Split the fourth-round held-out verifier cases into dev.jsonl and frozen.jsonl (about 40% frozen per category).

The same rule as tests/verify/heldout/split.py (random per category, fixed seed, reproducible from the
union of both files), with this set's own seed:

    cat dev.jsonl frozen.jsonl | python tests/verify/heldout/v4/split.py --out tests/verify/heldout/v4
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SEED = 20261201

_spec = importlib.util.spec_from_file_location("kleval_heldout_split", Path(__file__).resolve().parents[1] / "split.py")
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)


def split(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """(dev, frozen) for this set's seed."""
    return _base.split(rows, SEED)


def main(argv: list[str] | None = None) -> int:
    return _base.main(argv, SEED)


if __name__ == "__main__":
    sys.exit(main())
