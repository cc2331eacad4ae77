"""Prepared GPU check: bf16 RL steps of a Qwen2.5-0.5B-shaped model at 512 and 1,024-token responses.

    python benchmarks/gpu_check.py                         # one GPU, no downloads, < 8 minutes
    python benchmarks/gpu_check.py --tokenizer DIR         # a real tokenizer's files (e.g. SmolLM2's, 3.5 MB)
    python benchmarks/gpu_check.py --tiny                  # CPU dry run (tests/train/test_benchmarks.py)

What runs is the real `kleval train` loop (`train.loop.train`) on a random-weight model with
Qwen2.5-0.5B's shape (24 layers, d 896, 14/2 heads, MLP 4864, V = 151,936, tied embeddings), fp32
master weights with bf16 autocast, micro-batches of --micro-batch rows, `hf` rollouts
(transformers `generate`, every logits processor neutral), K3 in the loss, a coin-flip reward
(hash of the response) so that the policy gradient is not zero. Random weights almost
never emit end of sequence, so responses run to the full length: the worst case for memory.
The tokenizer is the one given, else a byte-level BPE built on the spot with the tokenizers
library (nothing is downloaded). Prints one JSON object per response length: peak GPU memory,
seconds per step (the last step, after warm-up), generation and training tokens per second.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

QWEN25_05B = dict(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                  num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                  tie_word_embeddings=True, rope_theta=1000000.0, rms_norm_eps=1e-6)
TINY = dict(vocab_size=4096, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=4096, tie_word_embeddings=True)


class CoinTask:
    """The task's prompts with a reward of 0 or 1 from a hash of the response: a random-weight model
    gets no real reward, and all-zero rewards would leave the policy gradient zero."""

    def __init__(self, task):
        self.task = task
        self.chat, self.policy, self.problems, self.prompt = task.chat, "default", task.problems, task.prompt

    def reward(self, problem, text: str) -> float:
        import hashlib

        return float(hashlib.sha256(text.encode()).digest()[0] & 1)


def build_model_dir(out: Path, shape: dict, tokenizer_dir: str | None, device: str) -> str:
    """A random-weight Qwen2 checkpoint with a tokenizer, written to `out` (fp32 safetensors)."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    from kleval.tiny import make_tokenizer

    if tokenizer_dir:
        tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
        name = f"{tokenizer_dir} ({len(tokenizer)} tokens)"
    else:
        tokenizer = make_tokenizer(vocab_size=512)
        name = f"byte-level BPE built here ({len(tokenizer)} tokens)"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    config = Qwen2Config(**shape, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                         bos_token_id=None)
    torch.manual_seed(0)
    with torch.device(device):
        model = Qwen2ForCausalLM(config)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return name


def run_length(model_dir: Path, length: int, args, device: str) -> dict:
    """Two RL steps of `kleval train` at one response length; the figures of the last step."""
    import torch

    from kleval.klconfig import preset
    from kleval.train.config import TrainConfig
    from kleval.train.diagnostics import read_log
    from kleval.tasks import load_task
    from kleval.train.loop import train

    config = TrainConfig(model=str(model_dir), task="arith_add_chat", kl=preset("k3-loss", beta=0.01), preset="k3-loss",
                         rollout_backend="hf", device=device, autocast_bf16=device != "cpu",
                         prompts_per_step=args.prompts, samples_per_prompt=args.samples, max_new_tokens=length,
                         micro_batch_size=args.micro_batch, steps=args.steps, save_every=10**6, learning_rate=1e-6,
                         grad_norm_split_every=0, threads=1)
    run_dir = model_dir.parent / f"run-{length}"
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    started = time.time()
    train(config, run_dir, progress=False, task=CoinTask(load_task(config.task)))
    last = read_log(run_dir)[-1]
    tokens = config.batch_size * last["response_length"]
    return {
        "response_length_max": length, "rows": config.batch_size, "micro_batch": config.micro_batch_size,
        "mean_response_length": last["response_length"],
        "peak_gpu_gb": round(torch.cuda.max_memory_allocated() / 2**30, 2) if device.startswith("cuda") else None,
        "seconds_per_step": round(last["step_seconds"], 2),
        "generate_tokens_per_second": round(tokens / last["rollout_seconds"], 1),
        "train_tokens_per_second": round(tokens / (last["score_seconds"] + last["update_seconds"]), 1),
        "kl_exact": last["kl_exact"], "grad_norm": last["grad_norm"], "wall_seconds": round(time.time() - started, 1),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="CPU dry run with a tiny Qwen2 (seconds)")
    parser.add_argument("--tokenizer", help="directory with a real tokenizer's files (default: build a BPE here)")
    parser.add_argument("--lengths", default=None, help="response lengths (default 512,1024; tiny 8)")
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--micro-batch", type=int, default=4)
    parser.add_argument("--steps", type=int, default=2, help="RL steps per length (the last is reported)")
    args = parser.parse_args(argv)
    import torch

    device = "cpu" if args.tiny else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        print("gpu_check: no CUDA device (use --tiny for the CPU dry run)", file=sys.stderr)
        return 2
    lengths = [int(x) for x in (args.lengths or ("8" if args.tiny else "512,1024")).split(",")]
    with tempfile.TemporaryDirectory(prefix="kleval-gpu-check-") as tmp:
        model_dir = Path(tmp) / "model"
        tokenizer = build_model_dir(model_dir, TINY if args.tiny else QWEN25_05B, args.tokenizer, device)
        header = {"device": torch.cuda.get_device_name() if device == "cuda" else "cpu", "torch": torch.__version__,
                  "shape": "tiny" if args.tiny else "Qwen2.5-0.5B", "tokenizer": tokenizer}
        print(json.dumps(header), flush=True)
        for length in lengths:
            print(json.dumps(run_length(model_dir, length, args, device)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
