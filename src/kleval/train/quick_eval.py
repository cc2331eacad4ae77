"""Fast in-process accuracy of a tiny checkpoint on a synthetic task (greedy or sampled).

For the CPU tiny mode's own measurements (docs/training.md, the demo's sanity numbers); the
study path (`kleval eval`) is the evaluation of record. Grading goes through Task.score.
"""
from __future__ import annotations

from pathlib import Path


def accuracy(checkpoint: str | Path, task_name: str, *, temperature: float = 0.0, limit: int | None = None,
             max_new_tokens: int = 5, seed: int = 0) -> float:
    """Fraction of the task's problems answered correctly (one sample each)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from kleval.tasks import load_task
    from kleval.train.rollout import sample_tiny

    task = load_task(task_name)
    problems = task.problems(limit)
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    model = AutoModelForCausalLM.from_pretrained(checkpoint).eval()
    # temperature 0 is greedy: a tiny temperature makes the softmax one-hot (ties aside).
    batch = sample_tiny(model, tokenizer, [task.prompt(p) for p in problems], samples_per_prompt=1,
                        max_new_tokens=max_new_tokens, temperature=max(temperature, 1e-6),
                        generator=torch.Generator().manual_seed(seed))
    correct = [task.score(problems[i], text).correct for i, text in zip(batch.prompt_index, batch.texts)]
    return sum(correct) / len(correct)
