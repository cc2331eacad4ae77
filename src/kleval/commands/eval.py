"""`kleval eval`: run checkpoints on tasks into a resumable study directory."""
from __future__ import annotations

import argparse

from kleval.commands._args import csv_list as _csv, nonnegative_float, positive_float, positive_int, probability
from kleval.commands._args import positive_int_list as _ints
from pathlib import Path

HELP = "evaluate checkpoints on tasks: samples, verdicts, pass@k results (resumable)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    S = argparse.SUPPRESS  # unset flags stay absent so the study spec can supply them
    p.add_argument("--config", help="study spec TOML (e.g. evals/paper.toml); flags override it")
    p.add_argument("--checkpoints", nargs="+", default=S, metavar="PATH",
                   help="model dirs, run dirs holding step dirs (TRL/verl/OpenRLHF/kleval), or globs")
    p.add_argument("--tasks", type=_csv, default=S, help="comma-separated task names (see `kleval tasks`)")
    p.add_argument("--n", type=positive_int, default=S, help="samples per problem (default 1)")
    p.add_argument("--k", type=_ints, default=S, help="comma-separated k for pass@k/maj@k, each <= n (default 1)")
    p.add_argument("--temperature", type=nonnegative_float, default=S, help="sampling temperature; 0 = greedy (default 1.0)")
    p.add_argument("--top-p", type=probability, default=S, help="nucleus sampling (default 1.0)")
    p.add_argument("--max-tokens", type=positive_int, default=S, help="max new tokens per completion (default 2048)")
    p.add_argument("--seed", type=int, default=S, help="base seed (default 0)")
    p.add_argument("--limit", type=positive_int, default=S, help="first N problems of each task")
    p.add_argument("--backend", choices=["hf", "vllm", "openai"], default=S, help="generation engine (default hf)")
    p.add_argument("--out", default=S, help="study directory to write (resumed if it exists)")
    p.add_argument("--tokenizer", default=S, help="tokenizer for checkpoints that have none")
    p.add_argument("--trainer-config", default=S, metavar="PATH",
                   help="training config saved away from the checkpoints (verl .hydra/config.yaml, OpenRLHF "
                        "args JSON, TRL training_args, kleval_run.json); labels every checkpoint given")
    p.add_argument("--data-dir", default=S, help="local benchmark data (default ../shared/data or $KLEVAL_DATA_DIR)")
    p.add_argument("--chunk-size", type=positive_int, default=S,
                   help="prompts per generate call; a kill loses at most one chunk (default 32 hf, 512 vllm)")
    p.add_argument("--tensor-parallel-size", type=positive_int, default=S, help="vLLM tensor parallel size")
    p.add_argument("--max-model-len", type=positive_int, default=S, help="vLLM max model length")
    p.add_argument("--dtype", default=S, help="model dtype (e.g. bfloat16, float32)")
    p.add_argument("--device", default=S, help="hf backend device (default: cuda if available, else cpu)")
    p.add_argument("--verify-timeout", type=positive_float, default=S, help="hard per-answer grading limit in seconds")
    p.add_argument("--verify-workers", type=positive_int, default=S, help="grading processes (default: half the cores, 1-4)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--ray", action="store_true",
                   help="run each checkpoint x task as a Ray job (pip install 'kleval[ray]'); see docs/integrations.md")
    p.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="existing Ray cluster (e.g. auto, ray://head:10001); default: start a local Ray")
    p.add_argument("--gpus-per-job", type=float, default=None,
                   help="GPUs per Ray job (default 1 when the cluster has GPUs, else 0)")


def resolve_settings(args: argparse.Namespace) -> dict:
    """Defaults < study spec < explicit flags (see kleval.eval.spec)."""
    from kleval.eval.spec import DEFAULTS, resolve_settings as resolve

    return resolve(getattr(args, "config", None), {k: v for k, v in vars(args).items() if k in DEFAULTS})


def run(args: argparse.Namespace) -> int:
    from kleval.eval.checkpoints import discover
    from kleval.eval.run import evaluate
    from kleval.eval.spec import build_eval_spec

    s = resolve_settings(args)
    spec = build_eval_spec(s)
    checkpoints = discover(s["checkpoints"], tokenizer=s["tokenizer"], trainer_config=s["trainer_config"])
    if args.ray:
        from kleval.eval.distributed import evaluate_distributed

        results = evaluate_distributed(checkpoints, spec, Path(s["out"]), address=args.ray_address,
                                       gpus_per_job=args.gpus_per_job, progress=not args.no_progress)
    else:
        results = evaluate(checkpoints, spec, Path(s["out"]), progress=not args.no_progress)
    print((results.parent / "table.md").read_text(encoding="utf-8"))
    print(f"study written to {results.parent} (results.csv, table.md, samples/, scores/)")
    return 0
