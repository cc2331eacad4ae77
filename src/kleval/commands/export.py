"""`kleval export lm-eval OUT_DIR`: write kleval's tasks as lm-evaluation-harness task configs."""
from __future__ import annotations

import argparse

from kleval.commands._args import csv_list as _csv, int_list as _ints

HELP = "export tasks for other harnesses (lm-eval task YAMLs graded by kleval's verifier)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", choices=["lm-eval"], help="what to export to")
    p.add_argument("out_dir", metavar="OUT_DIR", help="directory for the YAMLs, data/ and kleval_utils.py "
                   "(pass it to lm_eval --include_path)")
    p.add_argument("--tasks", type=_csv, default=None, help="comma-separated task names (default: all)")
    p.add_argument("--data-dir", default=None, help="local benchmark data (default ../shared/data or $KLEVAL_DATA_DIR)")
    p.add_argument("--n", type=int, default=1, help="lm-eval repeats per problem (default 1)")
    p.add_argument("--k", type=_ints, default=[1], help="comma-separated k for pass@k, each <= n (default 1)")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature; 0 = greedy (default 1.0)")
    p.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling (default 1.0)")
    p.add_argument("--max-tokens", type=int, default=2048, help="max new tokens per completion (default 2048)")
    p.add_argument("--limit", type=int, default=None, help="export only the first N problems of each task")


def run(args: argparse.Namespace) -> int:
    from kleval.lmeval import export_lm_eval

    paths = export_lm_eval(args.out_dir, args.tasks, data_dir=args.data_dir, repeats=args.n, ks=args.k,
                           temperature=args.temperature, top_p=args.top_p, max_tokens=args.max_tokens,
                           limit=args.limit)
    print(f"wrote {len(paths)} lm-eval tasks to {paths[0].parent if paths else args.out_dir}")
    print(f"run: lm_eval --model hf --model_args pretrained=MODEL_DIR --include_path {args.out_dir} "
          f"--tasks {','.join(p.stem for p in paths[:2])}{',...' if len(paths) > 2 else ''} --log_samples "
          "--output_path RESULTS_DIR  (add --apply_chat_template for chat tasks; see each YAML's header)")
    return 0
