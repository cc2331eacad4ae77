"""Per-call overhead and per-token cost of the hf backend, side by side with `model.generate`.

Run: .venv/bin/python benchmarks/backend_bench.py
It builds a tiny checkpoint, then for the same prompts and sampling settings prints the wall
time per call of `HFBackend.generate` and of transformers' `model.generate` (sampling with a
forced length, so both produce the same number of tokens), and their ratio. A max_tokens=1 call
is almost all fixed overhead: tokenization, seeding, set-up, one forward pass.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def side_by_side_ms(first, second, repeats: int) -> tuple[float, float]:
    """Best-of-`repeats` wall time per call of each function, calls interleaved so load hits both."""
    first(), second()  # warm-up
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for k, fn in enumerate((first, second)):
            start = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return best[0] * 1000, best[1] * 1000


def main() -> int:
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
