"""`kleval train`: RL fine-tuning with one explicit KL configuration (or export it to other trainers)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

HELP = "RL-train with an explicit KL configuration (--tiny for the CPU arithmetic mode), or --export it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="k3-loss",
                        help="KL preset: none, k1-reward, k1-loss, k3-reward, k3-loss, k2-loss, k1-both, k3-both")
    parser.add_argument("--beta", type=float, default=None, help="KL coefficient (tiny default 1.0)")
    parser.add_argument("--estimator", choices=["k1", "k2", "k3", "none"], help="override the preset's estimator")
    parser.add_argument("--placement", choices=["reward", "loss", "both"], help="override the preset's placement")
    parser.add_argument("--granularity", choices=["token", "sequence"], help="estimator per token or per sequence")
    parser.add_argument("--importance-weighting", choices=["none", "token", "sequence"],
                        help="importance-weight the KL term for off-policy samples (per token or per sequence)")
    parser.add_argument("--clamp", type=float, default=None, help="straight-through clamp of KL values")
    parser.add_argument("--tiny", action="store_true", help="CPU tiny mode: synthetic arithmetic, tiny Llama")
    parser.add_argument("--model", help="base (reference) model directory in Hugging Face format")
    parser.add_argument("--task", help="training task spec name (tiny: arith_add_train)")
    parser.add_argument("--out", help="run directory (resumes from its latest global_step_N)")
    parser.add_argument("--steps", type=int, default=None, help="RL steps, one rollout batch each")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--algorithm", choices=["rloo", "grpo"],
                        help="advantage baseline: leave-one-out (rloo) or group-normalized (grpo)")
    parser.add_argument("--loss-aggregation",
                        choices=["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-sum-norm"],
                        help="how per-token losses are averaged (sets how strong a given beta is; docs/training.md)")
    parser.add_argument("--lr", type=float, default=None, help="learning rate")
    parser.add_argument("--prompts-per-step", type=int, help="prompts per rollout batch")
    parser.add_argument("--samples-per-prompt", type=int, help="completions per prompt (the RLOO/GRPO group)")
    parser.add_argument("--max-new-tokens", type=int, help="longest completion in tokens")
    parser.add_argument("--temperature", type=float, help="sampling temperature (the policy trained is pi^(1/T))")
    parser.add_argument("--ppo-epochs", type=int, help="updates per rollout batch (off-policy when > 1)")
    parser.add_argument("--staleness", type=int, help="train on rollouts from the policy N updates ago")
    parser.add_argument("--staleness-mode", choices=["fixed", "latest"], default=None,
                        help="with --staleness/--async-level N: 'fixed' (default): every batch exactly N updates "
                             "stale after the first N+1; 'latest': the newest policy at most N updates old, "
                             "varying with a seeded timing model (train/staleness.py)")
    parser.add_argument("--recipe", choices=["kleval", "async"], default="kleval",
                        help="'async': the paper's off-policy recipe: -clamp(pi/pi_old, 0, 8) * (R - group mean), "
                             "no PPO clip, token mean, KL clamped to [-10, 10], rollouts --async-level updates stale")
    parser.add_argument("--async-level", type=int, default=None,
                        help="--recipe async: rollouts come from the policy this many updates ago (default 10)")
    parser.add_argument("--ratio-cap", type=float, default=None,
                        help="--recipe async: per-token importance ratio clamped to [0, cap] (default 8)")
    parser.add_argument("--eval-every", type=int, default=None,
                        help="evaluate the policy every N steps (saving that step) into a study directory that "
                             "`kleval report` reads: accuracy against step without a separate eval pass")
    parser.add_argument("--eval-tasks", default=None, help="--eval-every: comma-separated task names (kleval tasks)")
    parser.add_argument("--eval-n", type=int, default=1, help="--eval-every: samples per problem (default 1)")
    parser.add_argument("--eval-limit", type=int, default=100, help="--eval-every: problems per task (default 100)")
    parser.add_argument("--eval-max-tokens", type=int, default=None,
                        help="--eval-every: longest completion (default 256; --tiny: 8)")
    parser.add_argument("--eval-out", default=None, help="--eval-every: study directory (default RUN_DIR/eval-study)")
    parser.add_argument("--save-every", type=int, help="steps between checkpoints (global_step_N)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default 1)")
    parser.add_argument("--rollout", choices=["tiny", "hf", "vllm"], help="rollout backend")
    parser.add_argument("--device", help="cpu or cuda")
    parser.add_argument("--bf16", action="store_true",
                        help="bfloat16 (GPU); with --fsdp: bf16 compute over fp32 master weights")
    parser.add_argument("--fsdp", action="store_true",
                        help="under torchrun: shard policy, reference, gradients and Adam state (FSDP2)")
    parser.add_argument("--micro-batch-size", type=int,
                        help="rows per forward/backward (gradient accumulation; default 4, tiny: whole batch)")
    parser.add_argument("--logits-chunk-mb", type=int,
                        help="megabytes of fp32 logits per chunk of positions in the log-softmax (default 256)")
    parser.add_argument("--activation-checkpointing", action="store_true",
                        help="recompute decoder layers in backward: less memory, about a third more compute")
    parser.add_argument("--autocast-bf16", action="store_true",
                        help="bf16 autocast of the forward passes over fp32 weights (log-softmax stays fp32)")
    parser.add_argument("--grad-norm-split-every", type=int,
                        help="steps between separate policy / KL gradient norms (one extra backward)")
    parser.add_argument("--export", choices=["verl", "openrlhf", "trl"],
                        help="print the other trainer's overrides for this configuration and exit")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def _config(args):
    from dataclasses import replace

    from kleval.errors import ConfigError
    from kleval.train.config import TrainConfig
    from kleval.klconfig import preset
    from kleval.train.tiny import DEFAULT_BETA, ensure_base, tiny_config

    overrides = {key: value for key, value in {
        "algorithm": args.algorithm, "loss_aggregation": args.loss_aggregation, "learning_rate": args.lr,
        "prompts_per_step": args.prompts_per_step, "samples_per_prompt": args.samples_per_prompt,
        "max_new_tokens": args.max_new_tokens, "temperature": args.temperature, "ppo_epochs": args.ppo_epochs, "staleness": args.staleness,
        "save_every": args.save_every, "threads": args.threads, "rollout_backend": args.rollout,
        "device": args.device, "task": args.task, "steps": args.steps,
        "grad_norm_split_every": args.grad_norm_split_every, "sharding": "fsdp" if args.fsdp else None,
        "micro_batch_size": args.micro_batch_size, "logits_chunk_mb": args.logits_chunk_mb,
        "activation_checkpointing": args.activation_checkpointing or None, "autocast_bf16": args.autocast_bf16 or None,
    }.items() if value is not None}
    if args.bf16:
        overrides["dtype"] = "bfloat16"
    if args.tiny:
        base = ensure_base(args.model, progress=not args.no_progress) if not args.export else (args.model or "tiny-base")
        beta = DEFAULT_BETA if args.beta is None else args.beta
        config = tiny_config(args.preset, base_dir=base, beta=beta, seed=args.seed, steps=overrides.pop("steps", 300))
        if "save_every" not in overrides:
            overrides["save_every"] = max(config.steps // 3, 1)
        config = config.with_overrides(**overrides)
    else:
        if not args.model and not args.export:
            raise ConfigError("give --model DIR (a base checkpoint in Hugging Face format) or use --tiny")
        config = TrainConfig(model=args.model or "", kl=preset(args.preset, beta=args.beta), preset=args.preset,
                             seed=args.seed).with_overrides(**overrides)
    kl_changes = {key: value for key, value in {
        "estimator": args.estimator, "placement": args.placement, "granularity": args.granularity,
        "importance_weighting": args.importance_weighting, "clamp": args.clamp}.items() if value is not None}
    if kl_changes:
        from kleval.klconfig import preset_name

        kl = replace(config.kl, **kl_changes)
        config = replace(config, kl=kl, preset=preset_name(kl))
    if args.recipe == "async":
        from kleval.train.async_recipe import apply_recipe

        level = args.async_level if args.async_level is not None else args.staleness
        config = apply_recipe(config, async_level=level, ratio_cap=args.ratio_cap)
    elif args.async_level is not None or args.ratio_cap is not None:
        raise ConfigError("--async-level and --ratio-cap belong to --recipe async")
    if args.staleness_mode is not None:  # after the recipe, which sets the staleness it applies to
        config = config.with_overrides(staleness_mode=args.staleness_mode)
    return config


def run(args: argparse.Namespace) -> int:
    from kleval.errors import ConfigError

    config = _config(args)
    if args.export:
        from kleval.train.export import export

        exported = export(config, args.export)
        if exported.unexpressible:  # refused: no settings to print, only why
            raise ConfigError(f"{args.export} cannot reproduce this configuration: {exported.unexpressible}")
        print(exported.render())
        return 0
    if not args.out:
        raise ConfigError("give --out RUN_DIR (where step checkpoints and train_log.jsonl go)")
    import contextlib

    from kleval.train.checkpoint import run_lock
    from kleval.train.loop import train

    if str(config.device).startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ConfigError(f"--device {config.device}: this torch {torch.__version__} has no usable CUDA; "
                              "use --device cpu or install a CUDA build of torch")
    online = _online_eval(args, config)
    main_rank = os.environ.get("RANK", "0") == "0"
    with run_lock(Path(args.out)) if main_rank else contextlib.nullcontext():  # one writer per run dir
        last = train(config, args.out, progress=not args.no_progress, online_eval=online)
    if os.environ.get("RANK", "0") == "0":  # under torchrun, rank 0 speaks for the run
        print(f"done: {last}")
    return 0


def _online_eval(args, config):
    """The OnlineEval of --eval-every (None without it); unknown tasks fail before training starts."""
    from kleval.errors import ConfigError

    if args.eval_every is None:
        if args.eval_tasks or args.eval_out:
            raise ConfigError("--eval-tasks and --eval-out need --eval-every N")
        return None
    from kleval.train.online_eval import OnlineEval

    tasks = tuple(t.strip() for t in (args.eval_tasks or "").split(",") if t.strip())
    max_tokens = args.eval_max_tokens or (8 if args.tiny else 256)
    online = OnlineEval(every=args.eval_every, tasks=tasks, out=Path(args.eval_out or Path(args.out) / "eval-study"),
                        n=args.eval_n, limit=args.eval_limit, max_tokens=max_tokens, seed=args.seed,
                        backend_options={"device": config.device})
    online.check_tasks()
    return online
