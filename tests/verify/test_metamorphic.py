"""The same answer written another way gets the same verdict (benchmarks/verify_metamorphic.py, issue 10).

Each transform below rewrites a completion without changing what it says (`\\(x\\)` for `$x$`, "Thus" for
"Therefore", CRLF line ends, a Unicode minus, a bold "**Answer:**" label, `\\dfrac`, spaces inside a box, ...).
On every row of the regression and adversarial corpora, a rewrite may not turn a verdict that agrees with the
row's label into one that does not. (The benchmark runs all transforms, the held-out dev rows and the bench
outputs too, and lists every change; these are the transforms under which the corpora are already invariant.)
"""
from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import pytest

from kleval.verify import verify

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("verify_metamorphic", ROOT / "benchmarks" / "verify_metamorphic.py")
metamorphic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(metamorphic)

INVARIANT = ("dollar_to_paren", "paren_to_dollar", "opener_swap", "crlf", "unicode_minus",
             "final_answer_phrase", "answer_line_bold", "answer_case", "dfrac", "box_spaces")


@functools.cache
def _rows() -> tuple[dict, ...]:
    """Every third row of the two corpora (a fixed third, to keep the suite fast; the benchmark reads them all)."""
    rows = []
    for name in ("regression.jsonl", "adversarial.jsonl"):
        lines = [line for line in (ROOT / "tests" / "verify" / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        rows += [json.loads(line) for line in lines[::3]]
    return tuple(rows)


@functools.cache
def _agrees(index: int, completion: str) -> bool:
    row = _rows()[index]
    status = verify(gold=row["gold"], completion=completion, kind=row.get("kind") or "math",
                    policy=row.get("policy") or "default").status.value
    return (status == "correct") == (row["expected"] == "correct")


@pytest.mark.parametrize("name", INVARIANT)
def test_a_rewrite_that_keeps_the_meaning_keeps_the_verdict(name):
    broken = []
    for index, row in enumerate(_rows()):
        rewritten = metamorphic.rewrite(name, row["completion"])
        if rewritten is not None and _agrees(index, row["completion"]) and not _agrees(index, rewritten):
            broken.append(f"{row.get('note', '')[:60]!r}: ...{rewritten[-80:]!r}")
    assert not broken, f"{len(broken)} verdicts change under {name}: " + "; ".join(broken[:5])


def test_the_transforms_change_the_text_they_apply_to():
    """Each transform rewrites some corpus row (a transform that never applies would make its test vacuous)."""
    rows = _rows()
    for name in INVARIANT:
        assert any(metamorphic.rewrite(name, row["completion"]) is not None for row in rows), name
    assert metamorphic.rewrite("dollar_to_paren", "So the answer is $x = 5$.") == "So the answer is \\(x = 5\\)."
    assert metamorphic.rewrite("dollar_to_paren", "It costs $5 and $7 more.") is None  # currency is never rewritten
