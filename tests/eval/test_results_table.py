"""results.py's table.md: names are data, escaped so they cannot split a row or format text."""
from __future__ import annotations

import re

import pandas as pd

from kleval.eval.results import render_table

HEADER = {"ks": [1], "verifier_version": "x",
          "sampling": {"n": 1, "temperature": 1.0, "top_p": 1.0, "max_tokens": 8, "seed": 0}}


def _frame(checkpoint: str, task: str) -> pd.DataFrame:
    return pd.DataFrame([{"checkpoint": checkpoint, "task": task, "split": "id", "kl_label": "k1|reward",
                          "step": 10, "pass@1": 0.5, "pass@1_lo": 0.25, "pass@1_hi": 0.75, "num_problems": 4,
                          "no_answer_rate": 0.0, "truncation_rate": 0.0, "mean_tokens": 3.0}])


def test_pipes_and_markup_in_names_do_not_split_rows():
    table = render_table(_frame("run|a*b*", "my|task"), HEADER)
    rows = [line for line in table.splitlines() if line.startswith("| run")]
    assert len(rows) == 2  # the pass@1 row and the rates row
    for row in rows:
        # every cell boundary is an unescaped pipe; escaped ones belong to names
        cells = re.split(r"(?<!\\)\|", row)[1:-1]
        assert cells[0].strip() == r"run\|a\*b\*"
    assert r"my\|task (id)" in table and r"k1\|reward" in table
    assert len(re.split(r"(?<!\\)\|", rows[0])) == 6  # checkpoint, config, step, one task + ends
