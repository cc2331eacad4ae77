"""Rollouts: sample responses for a batch of prompts from the current policy.

Two in-process backends share one output type:
- "tiny": a short sampling loop over the model's forward with its KV cache. At 0.1-3M parameters
  `generate` costs more in per-call overhead than the model does in compute; this loop does only
  what RL sampling needs (temperature, end of sequence, padding after it).
- "hf": transformers `generate` (any causal LM, CPU or GPU; sensible at 0.5B+ parameters).
vLLM rollouts (GPU) live in `vllm_rollout.py` and return the same RolloutBatch.
Log-probs are never taken from the sampler: the trainer recomputes them with its own forward.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

from kleval.backends.common import cache_argument


@dataclass
class RolloutBatch:
    """Sampled responses of one step. B = prompts * samples, grouped contiguously per prompt.

    prompt_ids / prompt_mask: [B, P], left-padded. response_ids / response_mask: [B, T],
    right-padded; the mask is 1 up to and including the end-of-sequence token.
    """

    prompt_ids: object
    prompt_mask: object
    response_ids: object
    response_mask: object
    texts: list[str]
    truncated: object  # [B] bool: no end of sequence within max_new_tokens
    prompt_index: list[int]  # [B] index of each row's prompt in the step's prompt list

    def rows(self, index: slice) -> "RolloutBatch":
        """The rows of a slice (a micro-batch), as a batch of its own."""
        return RolloutBatch(self.prompt_ids[index], self.prompt_mask[index], self.response_ids[index],
                            self.response_mask[index], self.texts[index], self.truncated[index],
                            self.prompt_index[index])

    def trimmed(self) -> "RolloutBatch":
        """The same rows without the left-padding columns that all of them have (positions of the
        real tokens do not change: they count real tokens only)."""
        real_columns = self.prompt_mask.any(0).nonzero()
        first = int(real_columns[0]) if len(real_columns) else 0
        if first == 0:
            return self
        return RolloutBatch(self.prompt_ids[:, first:], self.prompt_mask[:, first:], self.response_ids,
                            self.response_mask, self.texts, self.truncated, self.prompt_index)


def encode_prompts(tokenizer, prompts: Sequence[str], repeat: int):
    """Left-padded prompt ids [len(prompts) * repeat, P] and mask, each prompt repeated in place."""
    import torch

    encoded = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
    width = max(len(e) for e in encoded)
    ids = torch.full((len(encoded), width), tokenizer.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(encoded), width), dtype=torch.long)
    for row, e in enumerate(encoded):
        ids[row, width - len(e):] = torch.tensor(e, dtype=torch.long)
        mask[row, width - len(e):] = 1
    return ids.repeat_interleave(repeat, 0), mask.repeat_interleave(repeat, 0)


def finish_batch(tokenizer, prompt_ids, prompt_mask, response_ids, eos_id, repeat):
    """Build the response mask (through the first end of sequence), texts and truncation flags."""
    import torch

    is_eos = response_ids == eos_id  # [B, T]
    seen_eos_before = (is_eos.cumsum(-1) - is_eos.long()) > 0  # [B, T]: an earlier token was EOS
    response_mask = (~seen_eos_before).long()
    response_ids = torch.where(seen_eos_before, torch.full_like(response_ids, tokenizer.pad_token_id), response_ids)
    truncated = ~is_eos.any(-1)
    lengths = response_mask.sum(-1).tolist()
    texts = tokenizer.batch_decode([ids[:n] for ids, n in zip(response_ids.tolist(), lengths)], skip_special_tokens=True)
    prompt_index = [row // repeat for row in range(response_ids.shape[0])]
    return RolloutBatch(prompt_ids, prompt_mask, response_ids, response_mask, texts, truncated, prompt_index)


def output_cache(out):
    """The KV cache a forward returned (`cache` in transformers 5.2x, `past_key_values` before)."""
    return out["cache"] if "cache" in out else out["past_key_values"]


def sample_tiny(model, tokenizer, prompts: Sequence[str], *, samples_per_prompt: int, max_new_tokens: int,
                temperature: float, generator=None) -> RolloutBatch:
    """Sample with a hand-written KV-cached loop (see module docstring)."""
    import torch

    prompt_ids, prompt_mask = encode_prompts(tokenizer, prompts, samples_per_prompt)
    device = next(model.parameters()).device
    prompt_ids, prompt_mask = prompt_ids.to(device), prompt_mask.to(device)
    eos_id = tokenizer.eos_token_id
    padded = bool((prompt_mask == 0).any())
    # Without left padding no mask is needed (the fast causal path); with it, positions skip pads.
    attention_mask = prompt_mask if padded else None
    positions = (prompt_mask.cumsum(-1) - 1).clamp(min=0)
    batch = prompt_ids.shape[0]
    finished = torch.zeros(batch, dtype=torch.bool, device=device)
    tokens = []
    with torch.no_grad():
        if padded:
            out = model(input_ids=prompt_ids, attention_mask=attention_mask, position_ids=positions, use_cache=True)
            cache, logits = output_cache(out), out.logits[:, -1, :]  # logits [B, V]
        else:  # each prompt once, its cache shared by its samples (rows are grouped per prompt)
            out = model(input_ids=prompt_ids[::samples_per_prompt], use_cache=True)
            cache = output_cache(out)
            cache.batch_repeat_interleave(samples_per_prompt)
            logits = out.logits[:, -1, :].repeat_interleave(samples_per_prompt, 0)  # [B, V]
        next_position = positions[:, -1:] + 1
        for step in range(max_new_tokens):
            probs = torch.softmax(logits.float() / temperature, dim=-1)
            token = torch.multinomial(probs, 1, generator=generator).squeeze(-1)  # [B]
            token = torch.where(finished, torch.full_like(token, eos_id), token)
            tokens.append(token)
            finished |= token == eos_id
            if bool(finished.all()) or step == max_new_tokens - 1:
                break
            if attention_mask is not None:
                attention_mask = torch.cat([attention_mask, torch.ones_like(attention_mask[:, :1])], -1)
            out = model(input_ids=token.unsqueeze(-1), attention_mask=attention_mask, position_ids=next_position,
                        use_cache=True, **{cache_argument(model): cache})
            cache, next_position = output_cache(out), next_position + 1
            logits = out.logits[:, -1, :]
    response_ids = torch.stack(tokens, -1)  # [B, T'] with T' <= max_new_tokens
    return finish_batch(tokenizer, prompt_ids, prompt_mask, response_ids, eos_id, samples_per_prompt)


def sample_hf(model, tokenizer, prompts: Sequence[str], *, samples_per_prompt: int, max_new_tokens: int,
              temperature: float, generator=None) -> RolloutBatch:
    """Sample with transformers `generate` (seeded through torch's global generator), from the
    policy's own distribution at `temperature`: every logits processor neutral, whatever the
    model's generation_config.json asks (a repetition penalty there would make the samples
    off-policy while the loss treats them as on-policy)."""
    import torch

    prompt_ids, prompt_mask = encode_prompts(tokenizer, prompts, samples_per_prompt)
    device = next(model.parameters()).device
    prompt_ids, prompt_mask = prompt_ids.to(device), prompt_mask.to(device)
    with torch.no_grad(), neutral_generation_config(model):
        sequences = model.generate(
            input_ids=prompt_ids, attention_mask=prompt_mask, do_sample=True, temperature=temperature, top_p=1.0,
            top_k=0, max_new_tokens=max_new_tokens, eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        )
    response_ids = sequences[:, prompt_ids.shape[1]:]
    return finish_batch(tokenizer, prompt_ids, prompt_mask, response_ids, tokenizer.eos_token_id, samples_per_prompt)


@contextmanager
def neutral_generation_config(model) -> Iterator[None]:
    """Swap the model's generation_config for an empty one while sampling: `generate` fills every
    setting left unset from it (repetition_penalty, top_k, min_new_tokens, suppress_tokens, ...),
    so only an empty one leaves transformers' neutral defaults and the arguments given."""
    from transformers import GenerationConfig

    saved = model.generation_config
    model.generation_config = GenerationConfig()
    try:
        yield
    finally:
        model.generation_config = saved


def sample(backend: str, model, tokenizer, prompts, **kwargs) -> RolloutBatch:
    """Dispatch to the in-process rollout backend by name ("tiny" or "hf")."""
    if backend == "tiny":
        return sample_tiny(model, tokenizer, prompts, **kwargs)
    if backend == "hf":
        return sample_hf(model, tokenizer, prompts, **kwargs)
    raise ValueError(f"rollout backend {backend!r} is not an in-process backend")
