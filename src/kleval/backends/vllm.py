"""The vLLM backend: one `LLM` per model (or one per GPU group with data parallelism).

Every prompt gets its own `SamplingParams(n=..., seed=...)`, the seed derived from (run seed,
prompt text) as in the hf backend, so a prompt's n samples do not depend on which other prompts
share the call, on chunking, or on which data-parallel worker serves it. Prompts go in as token
ids (chat template applied first when asked), so no special token is added twice.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from kleval.backends.common import apply_chat, check_options, sample_seed, strip_reasoning, truncate_at_stop
from kleval.errors import ConfigError, KlevalError
from kleval.types import Completion, SamplingParams

OPTIONS = ("tensor_parallel_size", "data_parallel_size", "max_model_len", "gpu_memory_utilization",
           "enable_prefix_caching", "dtype", "strip_think", "trust_remote_code", "enforce_eager",
           "max_num_seqs", "engine_kwargs")
_ENGINE_OPTIONS = ("tensor_parallel_size", "max_model_len", "gpu_memory_utilization",
                   "enable_prefix_caching", "dtype", "trust_remote_code", "enforce_eager", "max_num_seqs")
INSTALL_HINT = "vLLM is not installed; install it with: pip install 'kleval[vllm]' (or use --backend hf)"


def import_vllm():
    """Import vllm or raise a KlevalError that says how to install it."""
    try:
        import vllm
    except ImportError as exc:
        raise KlevalError(f"{INSTALL_HINT} ({exc})") from exc
    return vllm


def engine_arguments(model_path, tokenizer_path, options: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments for `vllm.LLM`, from kleval's backend options."""
    kwargs: dict[str, Any] = {"model": str(model_path), "tokenizer": str(tokenizer_path or model_path), "seed": 0}
    for key in _ENGINE_OPTIONS:
        if options.get(key) is not None:
            kwargs[key] = options[key]
    kwargs.update(options.get("engine_kwargs") or {})
    return kwargs


def start_engine(kwargs: dict[str, Any]):
    """`vllm.LLM(**kwargs)`, with an engine that cannot start reported in one line that names the
    options that usually fix it (memory share, context length, CUDA graphs)."""
    import vllm

    try:
        return vllm.LLM(**kwargs)
    except (ValueError, RuntimeError, MemoryError, TypeError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise KlevalError(
            f"vLLM could not start for {kwargs['model']}: {type(exc).__name__}: {first}; try "
            "--gpu-memory-utilization (e.g. 0.5), a smaller --max-model-len, --enforce-eager, or "
            "--engine-arg KEY=VALUE") from exc


def request_seed(seed: int, text: str) -> int:
    """vLLM takes a per-request seed; derive it from the prompt text (kept within 31 bits)."""
    return sample_seed(seed, text, 0) & 0x7FFFFFFF


def run_requests(llm, token_prompts: list[list[int]], seeds: list[int], params: SamplingParams):
    """Generate with one SamplingParams per prompt; returns plain (text, n_tokens, finish) tuples."""
    from vllm import SamplingParams as VSamplingParams

    sampling = [
        VSamplingParams(n=params.n, seed=s, temperature=params.temperature, top_p=params.top_p,
                        max_tokens=params.max_tokens, stop=list(params.stop) or None)
        for s in seeds
    ]
    prompts = [{"prompt_token_ids": ids} for ids in token_prompts]
    outputs = llm.generate(prompts, sampling, use_tqdm=False)
    return [
        [(o.text, len(o.token_ids), o.finish_reason) for o in out.outputs]
        for out in outputs
    ]


class VLLMBackend:
    """Generation through vLLM's offline `LLM` engine."""

    name = "vllm"

    def __init__(self, model_path: str | Path, *, tokenizer_path: str | Path | None = None, **options: Any):
        check_options(self.name, options, OPTIONS)
        import_vllm()
        self.strip_think = bool(options.get("strip_think", False))
        self.data_parallel_size = int(options.get("data_parallel_size") or 1)
        if self.data_parallel_size < 1:
            raise ConfigError(f"data_parallel_size must be >= 1, got {self.data_parallel_size}")
        kwargs = engine_arguments(model_path, tokenizer_path, options)
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(kwargs["tokenizer"],
                                                       trust_remote_code=bool(options.get("trust_remote_code")))
        if self.data_parallel_size == 1:
            self.llm = start_engine(kwargs)
            self.pool = None
        else:
            from kleval.backends.vllm_parallel import DataParallelPool

            self.llm = None
            self.pool = DataParallelPool(kwargs, self.data_parallel_size,
                                         int(options.get("tensor_parallel_size") or 1))

    def generate(self, prompts: Sequence[str], params: SamplingParams, *, chat: bool = False) -> list[list[Completion]]:
        texts = apply_chat(self.tokenizer, prompts, chat)
        templated = chat and bool(getattr(self.tokenizer, "chat_template", None))
        token_prompts = [self.tokenizer.encode(t, add_special_tokens=not templated) for t in texts]
        seeds = [request_seed(params.seed, t) for t in texts]
        if self.pool is None:
            raw = run_requests(self.llm, token_prompts, seeds, params)
        else:
            raw = self.pool.run(token_prompts, seeds, params)
        results = []
        for ids, samples in zip(token_prompts, raw):
            if len(samples) != params.n:
                raise KlevalError(f"vLLM returned {len(samples)} samples for a prompt, expected {params.n}")
            row = []
            for text, num_tokens, finish in samples:
                text, hit = truncate_at_stop(text, params.stop)
                finish = "stop" if hit or finish == "stop" else "length"
                if self.strip_think:
                    text = strip_reasoning(text)
                row.append(Completion(text=text, num_tokens=num_tokens, prompt_tokens=len(ids), finish_reason=finish))
            results.append(row)
        return results

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None
        if self.llm is not None:
            self.llm = None
            try:
                from vllm.distributed.parallel_state import cleanup_dist_env_and_memory
            except ImportError:  # older or trimmed builds: the engine is freed with the object
                return
            cleanup_dist_env_and_memory()


def visible_device_groups(data_parallel_size: int, tensor_parallel_size: int) -> list[str]:
    """Split the visible GPUs into data-parallel groups of tensor_parallel_size each."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        devices = [d for d in visible.split(",") if d.strip()]
    else:
        import torch

        devices = [str(i) for i in range(torch.cuda.device_count())]
    need = data_parallel_size * tensor_parallel_size
    if len(devices) < need:
        raise ConfigError(f"data_parallel_size x tensor_parallel_size = {need} GPUs, but {len(devices)} are visible")
    return [",".join(devices[g * tensor_parallel_size:(g + 1) * tensor_parallel_size])
            for g in range(data_parallel_size)]
