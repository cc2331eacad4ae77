"""Reading the verifier test corpora (peer suite and held-out cases) and deriving the boxed variant.

Shared by tests/verify/test_peer_suites.py and benchmarks/verify_heldout.py, so both read the same
rows the same way. Loaded by file path (tests/ is not a package).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEER_SUITE = HERE / "math_verify.jsonl"
HELDOUT_DIR = HERE.parent / "heldout"
LABELS = ("correct", "incorrect")

# One math block spanning the whole prediction: $…$, $$…$$, \(…\), \[…\].
_WHOLE_BLOCK = re.compile(r"^\s*(?:\$\$(?P<dd>.*)\$\$|\$(?P<d>[^$]*)\$|\\\((?P<p>.*)\\\)|\\\[(?P<b>.*)\\\])\s*$", re.DOTALL)


def load_jsonl(path: Path) -> list[dict]:
    """Rows of a corpus file; a malformed row is an error naming its line."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            missing = {"gold", "completion", "expected", "kind"} - row.keys()
            if missing or row["expected"] not in LABELS:
                raise ValueError(f"{path}:{number}: bad row (missing {sorted(missing)} or expected not in {LABELS})")
            rows.append(row)
    return rows


def boxed_variant(prediction: str) -> str | None:
    r"""The prediction wrapped in \boxed{}, or None when it is prose or already boxed.

    A bare expression (no `$`, one line, no sentence) or a single math block is boxed; the
    block's delimiters are dropped: `$k = \frac{1}{3}$` -> `\boxed{k = \frac{1}{3}}`.
    """
    if "boxed" in prediction or "fbox" in prediction:
        return None
    match = _WHOLE_BLOCK.match(prediction)
    if match:
        body = next(group for group in match.groups() if group is not None)
        return None if "$" in body else "\\boxed{" + body.strip() + "}"
    if "$" in prediction or "\\(" in prediction or "\\[" in prediction or "\n" in prediction:
        return None
    if len(prediction.split()) > 3:  # a sentence, not an expression
        return None
    return "\\boxed{" + prediction.strip() + "}"


HELDOUT_ROUND_FOLDERS = ("v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
                         "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22")  # the first round lives in heldout/ itself


def heldout_files() -> dict[str, Path]:
    """Every held-out set by name: each round's dev/frozen pair ("heldout-dev", "heldout-v3-frozen", ...)."""
    files = {"heldout-dev": HELDOUT_DIR / "dev.jsonl", "heldout-frozen": HELDOUT_DIR / "frozen.jsonl"}
    for folder in HELDOUT_ROUND_FOLDERS:
        files |= {f"heldout-{folder}-{part}": HELDOUT_DIR / folder / f"{part}.jsonl" for part in ("dev", "frozen")}
    return files
