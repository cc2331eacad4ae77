"""Split the held-out verifier cases into dev.jsonl and frozen.jsonl (about 40% frozen per category).

The split is random per category with a fixed seed per round (chosen by the output folder: the
first round lives in heldout/, later ones in heldout/v3/, heldout/v4/, ...), so it is reproducible
from the union of both files: `cat dev.jsonl frozen.jsonl | python split.py --out DIR` rewrites the
same two files.

    python tests/verify/heldout/split.py ALL.jsonl --out tests/verify/heldout
    cat v4/dev.jsonl v4/frozen.jsonl | python tests/verify/heldout/split.py --out tests/verify/heldout/v4
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

SEED = 20261201
# Each round's seed, by the name of the folder holding its dev.jsonl and frozen.jsonl.
SEEDS = {"heldout": SEED, "v3": 20261215, "v4": 20261201, "v5": 20270105, "v6": 20270201, "v7": 20270301, "v8": 20270401, "v9": 20270501,
         "v10": 20270601, "v11": 20270701, "v12": 20270801}
FROZEN_SHARE = 0.4


def seed_for(folder: Path) -> int:
    """The seed of the round whose files live in `folder`; KeyError for a folder with no round."""
    return SEEDS[Path(folder).resolve().name]


def split(rows: list[dict], seed: int = SEED) -> tuple[list[dict], list[dict]]:
    """(dev, frozen): per category, sorted by id, shuffled with a seed naming the category."""
    by_category: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
    dev, frozen = [], []
    for category in sorted(by_category):
        members = sorted(by_category[category], key=lambda row: row["id"])
        random.Random(f"{seed}:{category}").shuffle(members)
        n_frozen = max(1, round(FROZEN_SHARE * len(members))) if len(members) >= 3 else 0
        frozen.extend(sorted(members[:n_frozen], key=lambda row: row["id"]))
        dev.extend(sorted(members[n_frozen:], key=lambda row: row["id"]))
    return dev, frozen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="*", help="JSONL files with every case (default: stdin)")
    parser.add_argument("--out", required=True, type=Path, help="folder for dev.jsonl and frozen.jsonl")
    parser.add_argument("--seed", type=int, help="seed for a new round (default: the seed of the --out folder's round)")
    args = parser.parse_args(argv)
    seed = args.seed
    if seed is None:
        if args.out.resolve().name not in SEEDS:
            print(f"error: no round's seed for folder {args.out}: pass --seed or add the folder to SEEDS", file=sys.stderr)
            return 2
        seed = seed_for(args.out)
    lines = [line for path in args.inputs for line in Path(path).read_text(encoding="utf-8").splitlines()] \
        if args.inputs else sys.stdin.read().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    ids = [row["id"] for row in rows]
    if len(ids) != len(set(ids)):
        print("error: duplicate case ids", file=sys.stderr)
        return 2
    dev, frozen = split(rows, seed)
    for name, part in (("dev.jsonl", dev), ("frozen.jsonl", frozen)):
        with open(args.out / name, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in part)
    print(f"dev {len(dev)} rows, frozen {len(frozen)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
