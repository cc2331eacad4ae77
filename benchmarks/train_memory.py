"""Peak memory of one RL step against response length and batch size, at a fixed micro-batch.

    python benchmarks/train_memory.py                        # SmolLM2-135M shape, random weights (~3-5 min)
    python benchmarks/train_memory.py --model DIR            # a real checkpoint (same shape: same memory)
    python benchmarks/train_memory.py --tiny                 # seconds: the dry run `make test` runs

Every configuration runs in a fresh subprocess: the policy and the reference are built, then the
process's resident-set high-water mark is reset (/proc/self/clear_refs) and one full RL step runs
(no-grad scoring of policy and reference with the full-vocabulary KL, advantages, the micro-batched
forward/backward, Adam's first step, which allocates its state). "step peak" is the high-water mark
during the step minus the resident size before it. The optimizer is SGD at learning rate 0
(allocates nothing), so the figure is scoring + forward/backward + the fp32 gradients; Adam adds
its two fp32 moments (8 bytes per parameter) and its step's temporaries, which do not depend on
the batch. "- grads" takes the gradients (4 bytes per parameter) out: the rest is activations,
logit chunks and scores, the part that depends on the batch's shape. "MB/token" divides it by the
tokens of one micro-batch (micro x length). torch's CPU allocator hands large blocks back to
the OS, so RSS follows what the step holds. Responses are random tokens of exactly the given length
(no sampling: generation memory is not the trainer's).

Two figures for the old path (one forward over the whole batch, five [B, T, V] fp32 tensors):
- "whole batch": measured, this code with micro-batch = B and one chunk per micro-batch (the
  logits of the whole batch at once), where it fits in the --whole-batch-limit tokens;
- "old estimate": computed, 5 x B x T x V x 4 bytes (policy and reference log-softmax, the two
  exponentials and the product of the old exact-KL statistic), activations not included.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SMOLLM2_SHAPE = dict(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                     num_attention_heads=9, num_key_value_heads=3, max_position_embeddings=8192,
                     tie_word_embeddings=True, rms_norm_eps=1e-5, rope_theta=100000.0)
TINY_SHAPE = dict(vocab_size=4096, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=2048, tie_word_embeddings=True)
PROMPT_TOKENS = 32


def _rss_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _models(model_dir: str | None, tiny: bool):
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM

    if model_dir:
        return [AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32) for _ in range(2)]
    config = LlamaConfig(**(TINY_SHAPE if tiny else SMOLLM2_SHAPE))
    models = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        models.append(LlamaForCausalLM(config).float())
    return models


def one_step(spec: dict) -> dict:
    """Run one RL step as described in the module docstring; returns the measurements."""
    import torch

    from kleval.klconfig import preset
    from kleval.train.data_parallel import Ranks
    from kleval.train.loop import reward_advantages, update_policy, Rollout
    from kleval.train.rollout import RolloutBatch
    from kleval.train.scoring import Scorer, ScoringSettings, score_batch
    from kleval.train.config import TrainConfig

    torch.set_num_threads(spec["threads"])
    policy, reference = _models(spec.get("model"), spec["tiny"])
    reference.requires_grad_(False)
    vocab = policy.config.vocab_size
    rows, length, micro = spec["batch"], spec["length"], spec["micro_batch"]
    config = TrainConfig(model="-", kl=preset("k3-both", beta=0.1), samples_per_prompt=2, prompts_per_step=rows // 2,
                         max_new_tokens=length, micro_batch_size=micro, logits_chunk_mb=spec["chunk_mb"],
                         grad_norm_split_every=0)
    g = torch.Generator().manual_seed(0)
    prompts = torch.randint(3, vocab, (rows // 2, PROMPT_TOKENS), generator=g).repeat_interleave(2, 0)
    batch = RolloutBatch(prompts, torch.ones_like(prompts), torch.randint(3, vocab, (rows, length), generator=g),
                         torch.ones(rows, length, dtype=torch.long), [""] * rows, torch.ones(rows, dtype=torch.bool),
                         [r // 2 for r in range(rows)])
    settings = ScoringSettings(micro, chunk_mb=spec["chunk_mb"])
    run = type("Run", (), {})()
    run.config, run.policy, run.ranks = config, policy, Ranks()
    run.policy_scorer = Scorer(policy, settings)
    # SGD at lr 0 without foreach allocates nothing: the peak is scoring + forward/backward (+ the
    # fp32 gradients); Adam's moments and its step's temporaries are counted apart (fixed_mb).
    run.optimizer = torch.optim.SGD(policy.parameters(), lr=0.0, foreach=False)
    reference_scorer = Scorer(reference, settings)
    before = _rss_mb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    started = time.time()
    scores = score_batch(run.policy_scorer, reference_scorer, batch, run.ranks)
    rollout = Rollout(batch, torch.rand(rows, generator=g), None, None)
    advantages, _ = reward_advantages(config, rollout, scores, scores.logprobs)
    update_policy(run, batch, scores, advantages, None, step=1)
    seconds = time.time() - started
    peak = _rss_mb("VmHWM")
    params = sum(p.numel() for p in policy.parameters())
    return {**spec, "vocab": vocab, "params": params, "rss_before_mb": round(before), "step_peak_mb": round(peak - before),
            "grads_mb": round(params * 4 / 2**20),  # fp32 gradients, allocated by the step
            "seconds": round(seconds, 1), "tokens_per_second": round(rows * length / seconds, 1),
            "old_estimate_mb": round(5 * rows * length * vocab * 4 / 2**20)}


def measure(spec: dict) -> dict:
    """one_step in a fresh interpreter (so every figure starts from the same resident set)."""
    done = subprocess.run([sys.executable, __file__, "--one", json.dumps(spec)], capture_output=True, text=True,
                          env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {**spec, "error": (done.stderr.strip().splitlines() or ["killed"])[-1]}
    return json.loads(lines[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="checkpoint directory (default: random weights of SmolLM2-135M's shape)")
    parser.add_argument("--tiny", action="store_true", help="a tiny Llama (V 4096): the dry run")
    parser.add_argument("--lengths", default=None, help="response lengths at --length-batch rows (comma list)")
    parser.add_argument("--batches", default=None, help="batch sizes at --batch-length tokens (comma list)")
    parser.add_argument("--length-batch", type=int, default=2)
    parser.add_argument("--batch-length", type=int, default=128)
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--chunk-mb", type=int, default=64)
    parser.add_argument("--whole-batch-limit", type=int, default=512,
                        help="measure the whole-batch path only up to this many response tokens per batch")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: oversubscribed cores make more threads far slower)")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one_step(json.loads(args.one))), flush=True)
        return 0
    lengths = [int(x) for x in (args.lengths or ("16,64" if args.tiny else "64,256,1024")).split(",")]
    batches = [int(x) for x in (args.batches or ("2,4" if args.tiny else "2,4,8")).split(",")]
    base = dict(model=args.model, tiny=args.tiny, threads=args.threads, chunk_mb=args.chunk_mb)
    specs = [dict(base, batch=args.length_batch, length=n, micro_batch=args.micro_batch) for n in lengths]
    specs += [dict(base, batch=b, length=args.batch_length, micro_batch=args.micro_batch) for b in batches
              if (b, args.batch_length) not in {(s["batch"], s["length"]) for s in specs}]
    rows = []
    for spec in specs:
        row = {**measure(spec), "whole_batch_peak_mb": None}
        if spec["batch"] * spec["length"] <= args.whole_batch_limit and "error" not in row:
            whole = measure(dict(spec, micro_batch=spec["batch"], chunk_mb=1 << 16))
            row["whole_batch_peak_mb"] = whole.get("step_peak_mb")
        rows.append(row)
        if len(rows) == 1:
            print(_header(), flush=True)
        print(_format_row(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if all("error" not in r for r in rows) else 1


def _header() -> str:
    return (f"{'batch':>5} {'length':>6} {'micro':>5} {'step peak MB':>12} {'- grads':>12} {'MB/token':>8} "
            f"{'whole batch MB':>14} {'old estimate MB':>15} {'s/step':>7} {'tok/s':>6}")


def _format_row(row: dict) -> str:
    if "error" in row:
        return f"{row['batch']:>5} {row['length']:>6} {row['micro_batch']:>5}  error: {row['error']}"
    variable = row["step_peak_mb"] - row["grads_mb"]
    per_token = variable / (row["micro_batch"] * row["length"])
    whole = row.get("whole_batch_peak_mb")
    return (f"{row['batch']:>5} {row['length']:>6} {row['micro_batch']:>5} {row['step_peak_mb']:>12} {variable:>12} "
            f"{per_token:>8.2f} "
            f"{('-' if whole is None else whole):>14} {row['old_estimate_mb']:>15} {row['seconds']:>7} "
            f"{row['tokens_per_second']:>6}")


if __name__ == "__main__":
    sys.exit(main())
