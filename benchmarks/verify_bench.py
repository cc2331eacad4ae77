"""Benchmark kleval's verifier against Math-Verify 0.9.0 on real, final-answer-labelled completions.

Rows: every `label_type == "final_answer"` row with a gold in ../shared/data/model_outputs/
(ProcessBench GSM8K/MATH/OlympiadBench, Qwen2.5-Math MATH samples, MMLU-Pro, OpenAI GSM8K).
The OpenAI GSM8K rows are graded a second time as kind `number` under the default policy (what a
user without the `gsm8k` policy gets); those copies count in throughput, not in the totals.
Both verifiers grade the same rows in the same run on the same machine. Printed per verifier:
agreement with the labels, false accepts (verifier says correct, label says wrong), false
rejects, verdicts per second and p99 latency; then the throughput ratio kleval/Math-Verify and
agreement and false accepts per source (file / benchmark), side by side.
kleval runs through VerifierPool (2 workers, as the eval runner uses it) for throughput and
in-process for latency; Math-Verify runs in process (its signal timeouts need the main thread).

    .venv/bin/python benchmarks/verify_bench.py [--limit N] [--workers 2] [--show-disagreements 20]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "model_outputs"
FILES = ("processbench.jsonl", "qwen25math_math_cot_100.jsonl", "mmlu_pro_eval_results.jsonl",
         "gsm8k_openai_example_solutions.jsonl")


def policy_for(row: dict) -> tuple[str, str]:
    """(kind, policy) a kleval task would use for this row's benchmark."""
    if row["benchmark"] == "mmlu-pro":
        return "choice", "choice"
    if row["benchmark"] == "gsm8k":
        return ("number", "default") if row.get("as_plain_number") else ("number", "gsm8k")
    return "math", "default"


def source_of(row: dict) -> str:
    """The per-source bucket a row is reported in (file stem / benchmark, plus the policy variant)."""
    name = row["file"].split("_")[0].replace(".jsonl", "")
    suffix = " (kind number, default policy)" if row.get("as_plain_number") else ""
    return f"{name}/{row['benchmark']}{suffix}"


def load_rows(limit: int | None) -> list[dict]:
    rows = []
    for name in FILES:
        with open(DATA / name, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if row.get("label_type") == "final_answer" and row.get("label") is not None and row.get("gold"):
                    rows.append({**row, "file": name})
                    if name.startswith("gsm8k_openai"):
                        # The same outputs as a user without the gsm8k policy grades them: kind `number`.
                        rows.append({**row, "file": name, "as_plain_number": True})
    return rows[:limit] if limit else rows


def math_verify_grade(row: dict) -> bool:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, StringExtractionConfig, parse, verify

    if row["benchmark"] == "mmlu-pro":
        config = [StringExtractionConfig()]
        gold = parse(row["gold"], extraction_config=config)
        answer = parse(row["completion"], extraction_config=config)
    else:
        gold = parse("$" + row["gold"] + "$", extraction_config=[LatexExtractionConfig(), ExprExtractionConfig()])
        answer = parse(row["completion"])
    return bool(verify(gold, answer))


def per_source(rows: list[dict], columns: dict[str, list[bool]], labels: list[bool]) -> None:
    """Agreement and false accepts per source, one column per verifier, side by side."""
    sources = sorted({source_of(r) for r in rows})
    header = "".join(f"  {name:>26s}" for name in columns)
    print(f"{'source':52s} {'rows':>5s}{header}")
    for source in sources + ["processbench (all)"]:
        if source == "processbench (all)":
            picked = [i for i, r in enumerate(rows) if r["file"].startswith("processbench")]
        else:
            picked = [i for i, r in enumerate(rows) if source_of(r) == source]
        cells = []
        for verdicts in columns.values():
            agree = sum(verdicts[i] == labels[i] for i in picked) / len(picked)
            accepts = sum(verdicts[i] and not labels[i] for i in picked)
            cells.append(f"  {agree:>10.2%} ({accepts:3d} false acc.)")
        print(f"{source:52s} {len(picked):5d}{''.join(cells)}")


def summarize(name: str, verdicts: list[bool], labels: list[bool], seconds: float, latencies: list[float],
              counted: list[bool]) -> dict:
    """Totals over the rows marked `counted` (the GSM8K duplicates graded as plain numbers are not);
    throughput over every graded row."""
    pairs = [(v, l) for v, l, c in zip(verdicts, labels, counted) if c]
    agree = sum(v == l for v, l in pairs)
    false_accepts = sum(v and not l for v, l in pairs)
    false_rejects = sum(l and not v for v, l in pairs)
    p99 = statistics.quantiles(latencies, n=100)[98] if len(latencies) >= 2 else float("nan")
    stats = {"agreement": agree / len(pairs), "false_accepts": false_accepts, "false_rejects": false_rejects,
             "verdicts_per_s": len(labels) / seconds, "p99_ms": p99 * 1000}
    print(f"{name:28s} agreement {stats['agreement']:.2%}  false accepts {false_accepts:4d}  "
          f"false rejects {false_rejects:4d}  {stats['verdicts_per_s']:8.1f} verdicts/s  p99 {stats['p99_ms']:.1f} ms")
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show-disagreements", type=int, default=0, metavar="N")
    parser.add_argument("--skip-math-verify", action="store_true")
    args = parser.parse_args(argv)

    from kleval.verify import VerifierPool, VerifyItem, verify

    rows = load_rows(args.limit)
    labels = [bool(r["label"]) for r in rows]
    counted = [not r.get("as_plain_number") for r in rows]
    items = [VerifyItem(r["gold"], r["completion"], *policy_for(r)) for r in rows]
    print(f"{sum(counted)} final-answer-labelled rows from {DATA} (+{len(rows) - sum(counted)} GSM8K rows "
          "graded again as kind number under the default policy)")

    with VerifierPool(workers=args.workers) as pool:
        pool.map(items[:4])  # start-up is not grading time
        start = time.perf_counter()
        pooled = pool.map(items)
        pool_seconds = time.perf_counter() - start

    latencies, in_process = [], []
    start = time.perf_counter()
    for item in items:
        t = time.perf_counter()
        in_process.append(verify(gold=item.gold, completion=item.completion, kind=item.kind, policy=item.policy))
        latencies.append(time.perf_counter() - t)
    single_seconds = time.perf_counter() - start
    mismatched = sum(a.status != b.status for a, b in zip(pooled, in_process))
    print(f"pool vs in-process verdicts differing: {mismatched}")

    kleval_ok = [v.correct for v in pooled]
    k_stats = summarize(f"kleval pool ({args.workers} workers)", kleval_ok, labels, pool_seconds, latencies, counted)
    summarize("kleval in-process", [v.correct for v in in_process], labels, single_seconds, latencies, counted)
    statuses: dict[str, int] = {}
    for v in pooled:
        statuses[v.status.value] = statuses.get(v.status.value, 0) + 1
    print("kleval statuses:", statuses)

    if args.skip_math_verify:
        per_source(rows, {"kleval": kleval_ok}, labels)
        return 0
    mv_ok, mv_latencies = [], []
    start = time.perf_counter()
    for row in rows:
        t = time.perf_counter()
        mv_ok.append(math_verify_grade(row))
        mv_latencies.append(time.perf_counter() - t)
    mv_stats = summarize("math-verify (in-process)", mv_ok, labels, time.perf_counter() - start, mv_latencies, counted)
    print(f"throughput ratio kleval pool / math-verify: {k_stats['verdicts_per_s'] / mv_stats['verdicts_per_s']:.2f}x")
    print(f"agreement difference kleval - math-verify: {100 * (k_stats['agreement'] - mv_stats['agreement']):+.2f} points")
    per_source(rows, {"kleval": kleval_ok, "math-verify": mv_ok}, labels)

    shown = 0
    for row, verdict, mv, label in zip(rows, pooled, mv_ok, labels):
        if shown >= args.show_disagreements:
            break
        if verdict.correct != label:
            shown += 1
            print(json.dumps({"label": label, "math_verify": mv, "gold": row["gold"], "status": verdict.status.value,
                              "extracted": verdict.extracted, "rule": verdict.rule, "benchmark": row["benchmark"],
                              "tail": row["completion"][-200:]}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
