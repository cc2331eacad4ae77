"""How much does `kleval eval` cost on top of raw generation? Prints the wall-time ratio.

Same tiny checkpoint, same prompts, same chunks and seeds: (a) the raw backend's generate calls
alone, (b) the full `kleval.eval.run.evaluate` (generation + logging + verification in the process
pool + results). Runs are interleaved (a, b, a, b, ...) so machine noise hits both alike.
Target: median ratio b/a <= 1.10 (verification overlaps generation instead of following it).

    .venv/bin/python benchmarks/eval_overhead.py [--repeats 3] [--limit 100] [--n 4] [--max-tokens 128]

Measured on 2 cores (tiny model, 800 samples, ~10 s of generation): 1.05 with one grading
worker (the default on 2 cores), 1.17 with two. With much less work (256 samples, ~2.4 s of
generation) the ~1 s start-up of the grading worker dominates: about 1.45.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--tasks", default="gsm8k,math500")
    parser.add_argument("--checkpoint", help="model dir (default: build a tiny one)")
    args = parser.parse_args()

    from kleval.backends import make_backend
    from kleval.eval.checkpoints import discover
    from kleval.eval.run import EvalSpec, evaluate, task_seed
    from kleval.tasks import load_task
    from kleval.tiny import build_tiny_checkpoint
    from kleval.types import SamplingParams

    work = Path(tempfile.mkdtemp(prefix="kleval-bench-"))
    ckpt_dir = Path(args.checkpoint) if args.checkpoint else build_tiny_checkpoint(work / "tiny")
    spec = EvalSpec(tasks=tuple(args.tasks.split(",")), ks=(1,), limit=args.limit,
                    sampling=SamplingParams(n=args.n, temperature=1.0, max_tokens=args.max_tokens, seed=0))
    tasks = [load_task(t) for t in spec.tasks]

    def raw() -> float:
        start = time.perf_counter()
        backend = make_backend("hf", str(ckpt_dir))
        for task in tasks:
            problems = task.problems(spec.limit)
            for i in range(0, len(problems), spec.chunk_size):
                params = replace(spec.sampling, seed=task_seed(spec.sampling.seed, task.name))
                backend.generate([task.prompt(p) for p in problems[i:i + spec.chunk_size]], params, chat=task.chat)
        backend.close()
        return time.perf_counter() - start

    def full(k: int) -> float:
        start = time.perf_counter()
        evaluate(discover([str(ckpt_dir)]), spec, work / f"study{k}", progress=False)
        return time.perf_counter() - start

    raw_times, full_times = [], []
    for k in range(args.repeats):
        raw_times.append(raw())
        full_times.append(full(k))
        print(f"repeat {k}: raw generate {raw_times[-1]:.2f}s  kleval eval {full_times[-1]:.2f}s  "
              f"ratio {full_times[-1] / raw_times[-1]:.3f}")
    samples = sum(len(t.problems(spec.limit)) for t in tasks) * args.n
    ratios = [f / r for f, r in zip(full_times, raw_times)]
    print(f"{samples} samples per run; median raw {statistics.median(raw_times):.2f}s, "
          f"median kleval {statistics.median(full_times):.2f}s")
    print(f"median ratio kleval/raw = {statistics.median(ratios):.3f} (target <= 1.10)")


if __name__ == "__main__":
    main()
