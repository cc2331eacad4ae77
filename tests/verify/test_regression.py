"""The regression table: one row per verifier bug ever found, plus real model outputs with labels."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kleval.verify import verify

ROWS = [json.loads(line) for line in (Path(__file__).parent / "regression.jsonl").read_text().splitlines() if line]


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}-{r['note'][:40]}" for i, r in enumerate(ROWS)])
def test_regression_row(row):
    verdict = verify(gold=row["gold"], completion=row["completion"], kind=row["kind"], policy=row["policy"])
    if row["expected"] == "not-correct":
        assert not verdict.correct, verdict
    else:
        assert verdict.status.value == row["expected"], verdict
