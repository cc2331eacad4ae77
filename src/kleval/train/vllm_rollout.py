"""vLLM rollouts for the GPU mode (UNTESTED ON GPU: written against vLLM 0.8-0.10's offline API).

The engine samples; the trainer keeps the weights of record. After every update the policy's
weights are pushed into the engine, and a log-prob check on a fixed prompt compares the engine's
log-probs of its own sample with the trainer's forward, so a silent weight-sync failure (stale
weights, wrong dtype or name mapping) stops the run instead of training on the wrong policy.
vLLM is imported lazily; nothing here runs on a CPU-only machine.
"""
from __future__ import annotations

from typing import Sequence

from kleval.train.rollout import RolloutBatch

LOGPROB_TOLERANCE = 0.05  # mean absolute per-token difference allowed between engine and trainer (bf16)


class VLLMRollout:
    """A colocated vLLM engine that samples for the trainer and receives its weights after each update."""

    def __init__(self, model_dir: str, *, gpu_memory_utilization: float = 0.35, dtype: str = "bfloat16", seed: int = 0):
        from vllm import LLM

        self.device = "cuda"
        self.llm = LLM(model=model_dir, dtype=dtype, gpu_memory_utilization=gpu_memory_utilization, seed=seed,
                       enable_prefix_caching=True)

    def push_weights(self, named_tensors) -> None:
        """Copy the trainer's current weights into the engine (same process, same GPU).

        named_tensors: (name, full tensor) pairs, e.g. sharding.full_parameters(policy), which under
        FSDP all-gathers one parameter at a time (every rank pushes into its own engine).
        """
        engine_model = self.llm.llm_engine.model_executor.driver_worker.model_runner.model
        engine_model.load_weights(named_tensors)
        self.llm.reset_prefix_cache()

    def sample(self, tokenizer, prompts: Sequence[str], *, samples_per_prompt: int, max_new_tokens: int,
               temperature: float, seed: int | None = None) -> RolloutBatch:
        """Sample from the token ids the trainer scores (never the strings: vLLM would tokenize them
        again, with special tokens, e.g. a second BOS on Llama-style chat templates)."""
        import torch
        from vllm import SamplingParams

        from kleval.train.rollout import encode_prompts, finish_batch

        params = SamplingParams(n=samples_per_prompt, temperature=temperature, top_p=1.0, top_k=-1, min_p=0.0,
                                repetition_penalty=1.0, presence_penalty=0.0, frequency_penalty=0.0,
                                max_tokens=max_new_tokens, seed=seed)
        outputs = self.llm.generate(_token_prompts(tokenizer, prompts), params, use_tqdm=False)
        prompt_ids, prompt_mask = encode_prompts(tokenizer, prompts, samples_per_prompt)
        responses = [list(c.token_ids) for out in outputs for c in out.outputs]
        width = max(max((len(r) for r in responses), default=1), 1)
        response_ids = torch.full((len(responses), width), tokenizer.pad_token_id, dtype=torch.long)
        for row, ids in enumerate(responses):
            response_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        device = self.device
        return finish_batch(tokenizer, prompt_ids.to(device), prompt_mask.to(device), response_ids.to(device),
                            tokenizer.eos_token_id, samples_per_prompt)

    def check_logprobs(self, scorer, tokenizer, prompt: str, *, max_new_tokens: int = 16) -> float:
        """Mean |engine log-prob - trainer log-prob| over one greedy sample; raises when too large.

        scorer: the policy's scoring.Scorer (the trainer's own forward).
        """
        import torch
        from vllm import SamplingParams

        from kleval.train.data_parallel import Ranks
        from kleval.train.rollout import finish_batch
        from kleval.train.scoring import score_batch

        out = self.llm.generate(_token_prompts(tokenizer, [prompt]),
                                SamplingParams(temperature=0.0, max_tokens=max_new_tokens, logprobs=0),
                                use_tqdm=False)[0].outputs[0]
        engine = torch.tensor([next(iter(lp.values())).logprob for lp in out.logprobs])
        ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        device = self.device
        rollout = finish_batch(tokenizer, torch.tensor([ids], device=device),
                               torch.ones(1, len(ids), dtype=torch.long, device=device),
                               torch.tensor([list(out.token_ids)], device=device), -1, 1)
        trainer = score_batch(scorer, None, rollout, Ranks()).logprobs[0].cpu()
        gap = float((engine[: len(trainer)] - trainer[: len(engine)]).abs().mean())
        if gap > LOGPROB_TOLERANCE:
            raise RuntimeError(f"vLLM and trainer log-probs differ by {gap:.3f} per token after a weight push; "
                               "the engine is not sampling from the trained policy")
        return gap


def _token_prompts(tokenizer, prompts: Sequence[str]) -> list[dict]:
    """vLLM token prompts: exactly the ids rollout.encode_prompts gives the trainer (no special tokens added)."""
    return [{"prompt_token_ids": tokenizer(p, add_special_tokens=False)["input_ids"]} for p in prompts]
