"""Score kleval's verifier and Math-Verify on cases neither was built against (issue 10).

Sets: the peer suite (Math-Verify's own 277 parametrized test cases, tests/verify/peer/), the same
with each prediction that is one bare expression wrapped in \\boxed{}, and the held-out hard cases
(tests/verify/heldout/dev.jsonl and frozen.jsonl; round 3's v3/dev.jsonl and v3/frozen.jsonl).
Printed per set: n (non-debatable rows), agreement with the expected labels, false accepts (verifier
says correct, label says incorrect), false rejects; per test file for the peer suite and per
category for the held-out sets.

kleval grades each row with `kleval.verify.verify` (kind from the row, policy from the row or
`default`) through a VerifierPool, so a pathological row times out instead of hanging. Math-Verify
grades peer rows with the settings of its own test harness (the row's `mv_call`) and held-out rows
as a new user would: `parse("$gold$")` against `parse(completion)`, `StringExtractionConfig` for
kind `choice`. The frozen sets' rows are never printed or written (not even their ids), only their
numbers (the verifier's developers must not see them); `--show-disagreements N` lists N rows per
other set where kleval disagrees, and `--json` also records kleval's status per row of the other
sets (row id; peer suite: source).

    .venv/bin/python benchmarks/verify_heldout.py [--json OUT] [--skip-math-verify] [--show-disagreements N] [--no-frozen]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS_MODULE = ROOT / "tests" / "verify" / "peer" / "corpus.py"


def is_frozen(name: str) -> bool:
    """Every frozen held-out set, present or future (named `*-frozen`): its rows are never printed or written."""
    return name.endswith("-frozen")


def load_corpus_module():
    spec = importlib.util.spec_from_file_location("kleval_verify_corpus", CORPUS_MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_sets(corpus) -> dict[str, list[dict]]:
    """Each set's rows; every row gets `group` (test file or category) for the breakdown."""
    peer = corpus.load_jsonl(corpus.PEER_SUITE)
    for row in peer:
        row["group"] = row["source"].split("::")[0]
    boxed = []
    for row in peer:
        wrapped = corpus.boxed_variant(row["completion"])
        if wrapped is not None:
            boxed.append({**row, "completion": wrapped})
    sets = {"peer-plain": peer, "peer-boxed": boxed}
    for name, path in corpus.heldout_files().items():
        rows = corpus.load_jsonl(path)
        for row in rows:
            row["group"] = row["category"]
        sets[name] = rows
    return sets


def kleval_grades(rows: list[dict], workers: int, timeout_s: float) -> list[tuple[bool, str]]:
    from kleval.verify import VerifierPool, VerifyItem

    items = [VerifyItem(row["gold"], row["completion"], row["kind"], row.get("policy") or "default") for row in rows]
    with VerifierPool(workers=workers, timeout_s=timeout_s) as pool:
        verdicts = pool.map(items)
    return [(verdict.correct, verdict.status.value) for verdict in verdicts]


def math_verify_grade(row: dict) -> bool:
    """Math-Verify's verdict: its own harness settings for peer rows, a new user's call otherwise."""
    from math_verify import (
        ExprExtractionConfig,
        LatexExtractionConfig,
        StringExtractionConfig,
        parse,
        verify,
    )

    call = row.get("mv_call")
    if call is None:
        if row["kind"] == "choice":
            config = [StringExtractionConfig()]
            return bool(verify(parse(row["gold"], config), parse(row["completion"], config)))
        gold = parse("$" + row["gold"] + "$", extraction_config=[LatexExtractionConfig(), ExprExtractionConfig()])
        return bool(verify(gold, parse(row["completion"])))
    if call["harness"] == "string_extraction":
        config = [StringExtractionConfig(**(call.get("string_config") or {}))]
        return bool(verify(parse(row["gold"], config), parse(row["completion"], config)))
    if call["harness"] == "parse_verify":
        return bool(verify(parse(row["gold"]), parse(row["completion"])))
    targets = [LatexExtractionConfig(boxed_match_priority=0) if kind == "latex" else ExprExtractionConfig()
               for kind in call["match_types"]]
    return bool(verify(parse(row["gold"], targets), parse(row["completion"], targets),
                       float_rounding=call["precision"], strict=call["strict"],
                       allow_set_relation_comp=call["allow_set_relation_comp"]))


def math_verify_grades(rows: list[dict], show_ids: bool = True) -> list[bool]:
    grades = []
    for row in rows:
        try:
            grades.append(math_verify_grade(row))
        except Exception as error:  # a crash inside Math-Verify is its verdict "not correct"
            where = row.get("id", row.get("source")) if show_ids else "a row of a frozen set"
            print(f"  math-verify raised {type(error).__name__} on {where}", file=sys.stderr)
            grades.append(False)
    return grades


def score(rows: list[dict], accepted: list[bool]) -> dict:
    """Agreement, false accepts and rejects over non-debatable rows, overall and per group."""
    def tally(pairs):
        n = len(pairs)
        agree = sum(ok == (row["expected"] == "correct") for row, ok in pairs)
        return {"n": n, "agreement": agree / n if n else None,
                "false_accepts": sum(ok and row["expected"] == "incorrect" for row, ok in pairs),
                "false_rejects": sum(not ok and row["expected"] == "correct" for row, ok in pairs)}

    scored = [(row, ok) for row, ok in zip(rows, accepted) if not row.get("debatable")]
    result = tally(scored)
    result["n_debatable"] = len(rows) - len(scored)
    groups = defaultdict(list)
    for row, ok in scored:
        groups[row["group"]].append((row, ok))
    result["groups"] = {group: tally(pairs) for group, pairs in sorted(groups.items())}
    return result


def show(name: str, verifier: str, stats: dict, breakdown: bool) -> None:
    agreement = f"{stats['agreement']:.1%}" if stats["agreement"] is not None else "n/a"
    print(f"{name:15s} {verifier:12s} n {stats['n']:4d}  agreement {agreement:>6s}  "
          f"false accepts {stats['false_accepts']:3d}  false rejects {stats['false_rejects']:3d}  "
          f"(debatable rows left out: {stats['n_debatable']})")
    if breakdown:
        for group, part in stats["groups"].items():
            print(f"    {group:40s} n {part['n']:3d}  agreement {part['agreement']:6.1%}  "
                  f"FA {part['false_accepts']:2d}  FR {part['false_rejects']:2d}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every number to this JSON file")
    parser.add_argument("--skip-math-verify", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout-s", type=float, default=10.0, help="kleval per-row limit")
    parser.add_argument("--show-disagreements", type=int, default=0, metavar="N",
                        help="list N rows per set where kleval disagrees (never for the frozen set)")
    parser.add_argument("--quiet-groups", action="store_true", help="no per-file / per-category lines")
    parser.add_argument("--no-frozen", action="store_true",
                        help="skip the frozen held-out sets entirely (for the verifier's developers while they fix)")
    args = parser.parse_args(argv)
    if args.workers < 1 or args.timeout_s <= 0:
        print("error: --workers must be >= 1 and --timeout-s > 0", file=sys.stderr)
        return 2

    from kleval.verify import VERIFIER_VERSION

    corpus = load_corpus_module()
    try:
        sets = load_sets(corpus)
        if args.no_frozen:
            sets = {name: rows for name, rows in sets.items() if not is_frozen(name)}
    except (OSError, ValueError) as error:
        print(f"error: cannot read the verifier corpora: {error}", file=sys.stderr)
        return 2
    report = {"verifier_version": VERIFIER_VERSION, "sets": {}}
    try:
        from importlib.metadata import version

        report["math_verify_version"] = version("math-verify")
    except Exception:  # not installed: only kleval is scored
        report["math_verify_version"] = None
    print(f"kleval verifier {VERIFIER_VERSION}; math-verify {report['math_verify_version']}")

    for name, rows in sets.items():
        start = time.perf_counter()
        graded = kleval_grades(rows, args.workers, args.timeout_s)
        entry = {"kleval": score(rows, [ok for ok, _ in graded])}
        statuses: dict[str, int] = defaultdict(int)
        for _, status in graded:
            statuses[status] += 1
        entry["kleval"]["statuses"] = dict(statuses)
        if not is_frozen(name):  # per-row statuses, keyed by row id (peer suite: source)
            entry["kleval"]["row_status"] = {row.get("id", row.get("source")): status
                                             for row, (_, status) in zip(rows, graded)}
        entry["kleval"]["seconds"] = round(time.perf_counter() - start, 2)
        if not args.skip_math_verify and report["math_verify_version"]:
            entry["math_verify"] = score(rows, math_verify_grades(rows, show_ids=not is_frozen(name)))
        report["sets"][name] = entry
        print()
        show(name, "kleval", entry["kleval"], breakdown=not args.quiet_groups)
        print(f"    statuses: {dict(statuses)}")
        if "math_verify" in entry:
            show(name, "math-verify", entry["math_verify"], breakdown=not args.quiet_groups)
        if args.show_disagreements and not is_frozen(name):
            wrong = [(row, status) for row, (ok, status) in zip(rows, graded)
                     if not row.get("debatable") and ok != (row["expected"] == "correct")]
            for row, status in wrong[:args.show_disagreements]:
                label = row.get("id", row.get("source"))
                print(f"    x {label}: expected {row['expected']}, kleval {status}; gold {row['gold']!r}; "
                      f"completion {row['completion'][:120]!r}")

    if args.json:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        except OSError as error:
            print(f"error: cannot write {args.json}: {error}", file=sys.stderr)
            return 2
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
