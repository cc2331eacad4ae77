"""The tiny base (reference) model: a character-level Llama taught arithmetic on noisy labels.

RL needs a base that is right often enough to get reward and wrong in ways RL can fix. A base
trained on clean labels and stopped early did not work in the recipe probe (RL made no progress),
so the supervised phase trains to convergence on labels with human-like noise:
with a carry (addition) or borrow (subtraction) the label forgets it 60% of the time, and any
label is a near miss (+-1 or +-10) 15% of the time. 65% of examples are addition (the RL task),
35% subtraction (the out-of-distribution skill that RL must not destroy).
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from kleval.synthetic import has_carry, pair_part

ALPHABET = list("0123456789+-=")
MODEL_SHAPE = dict(hidden_size=64, num_layers=2, num_heads=4, intermediate_size=256, max_positions=64)


def column_answer_without_carry(a: int, b: int, operator: str) -> int:
    """The answer a student gets by dropping every carry (or borrow): column by column."""
    if operator == "-" and a < b:
        return -column_answer_without_carry(b, a, "-")
    result, place = 0, 1
    while a >= 10 or b >= 10:
        x, y = a % 10, b % 10
        result += ((x + y) % 10 if operator == "+" else abs(x - y)) * place
        a, b, place = a // 10, b // 10, place * 10
    top = a + b if operator == "+" else abs(a - b)
    return result + top * place


def noisy_example(rng: random.Random, digits: int = 2) -> tuple[str, str]:
    """One (question, label) pair of the supervised mix, drawn from the "train" operand pairs."""
    while True:
        a, b = rng.randrange(10**digits), rng.randrange(10**digits)
        if pair_part(a, b, digits) == "train":
            break
    operator = "+" if rng.random() < 0.65 else "-"
    answer = a + b if operator == "+" else a - b
    if has_carry(a, b, "add" if operator == "+" else "sub") and rng.random() < 0.6:
        answer = column_answer_without_carry(a, b, operator)
    if rng.random() < 0.15:
        answer += rng.choice((-10, -1, 1, 10))
    return f"{a:0{digits}d}{operator}{b:0{digits}d}=", str(answer)


def build_tiny_base(out_dir: str | Path, *, steps: int = 2000, batch_size: int = 256, learning_rate: float = 1e-3,
                    seed: int = 0, threads: int | None = None, progress: bool = False) -> Path:
    """Train the arithmetic base model from scratch and save it (weights + tokenizer) in HF format."""
    return train_char_model(out_dir, alphabet=ALPHABET, draw_example=noisy_example, model_shape=MODEL_SHAPE,
                            steps=steps, batch_size=batch_size, learning_rate=learning_rate, seed=seed,
                            threads=threads, progress=progress)


def train_char_model(out_dir: str | Path, *, alphabet: Sequence[str], draw_example: Callable[[random.Random], tuple[str, str]],
                     model_shape: dict, steps: int, batch_size: int, learning_rate: float = 1e-3, seed: int = 0,
                     threads: int | None = None, progress: bool = False, desc: str = "base model") -> Path:
    """Supervised training of a character-level Llama on (question, label) pairs, loss on the label
    and end of sequence only (AdamW, 100-step warm-up, cosine decay); saved in HF format.

    draw_example(rng) returns one pair written in `alphabet`; every random draw comes from `seed`,
    so the same arguments on the same machine give the same weights.
    """
    import torch

    threads_before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        return _train_char_model(out_dir, alphabet, draw_example, model_shape, steps, batch_size, learning_rate,
                                 seed, progress, desc)
    finally:
        torch.set_num_threads(threads_before)  # the caller's evaluation keeps its own thread count


def _train_char_model(out_dir, alphabet, draw_example, model_shape, steps, batch_size, learning_rate, seed,
                      progress, desc) -> Path:
    import torch

    from kleval.tiny import make_model, make_tokenizer

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tokenizer = make_tokenizer(alphabet=alphabet)
    # The chat markers are in every kleval.tiny vocabulary; marking them special (same ids) makes
    # decoding with skip_special_tokens drop them, in training rollouts and in evaluation alike.
    tokenizer.add_special_tokens({"additional_special_tokens": ["<|user|>", "<|assistant|>"]})
    model = make_model(tokenizer, seed=seed, **model_shape)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / 100) * 0.5 * (1 + math.cos(math.pi * s / steps))
    )
    vocab = {ch: tokenizer.convert_tokens_to_ids(ch) for ch in alphabet}
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    bar = range(steps)
    if progress:
        from tqdm import tqdm

        bar = tqdm(bar, desc=desc, unit="step")
    for _ in bar:
        rows = []
        for _ in range(batch_size):
            question, label = draw_example(rng)
            rows.append(([vocab[c] for c in question], [vocab[c] for c in label] + [eos]))
        width = max(len(q) + len(a) for q, a in rows)
        input_ids = torch.full((batch_size, width), pad, dtype=torch.long)
        labels = torch.full((batch_size, width), -100, dtype=torch.long)  # loss on the answer only
        for row, (q, a) in enumerate(rows):
            input_ids[row, : len(q) + len(a)] = torch.tensor(q + a)
            labels[row, len(q): len(q) + len(a)] = torch.tensor(a)
        loss = model(input_ids=input_ids, labels=labels).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        if progress:
            bar.set_postfix(loss=f"{loss.item():.3f}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.eval()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
